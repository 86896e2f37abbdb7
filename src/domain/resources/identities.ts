// The identity resource: who may connect. Its write and delete rules are in identity-behaviour;
// disable/enable and the login bookkeeping live in the identity actor.

import type { ResourceDecl } from '../resource.js';
import { guardIdentityDelete, prepareIdentity } from './identity-behaviour.js';

export const IDENTITY_TYPE_NAMES = ['User', 'Device', 'Service', 'Router', 'Default'] as const;
export const TERMINATOR_PRECEDENCES = ['default', 'required', 'failed'] as const;

export const identities: ResourceDecl<'identities'> = {
  kind: 'identities',
  entity: 'identity',
  actor: 'entity',
  ownActor: 'identity-actor',
  present: ['entity-refs', 'router-presence', 'enrollments', 'mfa'],
  selectable: true,
  description: 'Identities: the users, devices and services that authenticate to the network',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  prepare: prepareIdentity,
  guardDelete: guardIdentityDelete,
  cascades: [
    { target: 'api-sessions', field: 'identityId' },
    { target: 'authenticators', field: 'identityId' },
    { target: 'identity-service-configs', field: 'identityId' },
    { target: 'enrollments', field: 'identityId' },
    { target: 'mfas', field: 'identityId' },
  ],
  relations: [
    { child: 'authenticators', via: { index: 'identityId' } },
    { child: 'api-sessions', via: { index: 'identityId' } },
    { child: 'enrollments', via: { index: 'identityId' } },
    { child: 'service-policies', via: { policies: true } },
    { child: 'edge-router-policies', via: { policies: true } },
    { child: 'services', via: { through: 'service-policies' } },
    { child: 'edge-routers', via: { through: 'edge-router-policies' } },
  ],
  columns: ['id', 'name', 'type', 'isAdmin', 'roleAttributes'],
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    type: { type: 'enum', values: IDENTITY_TYPE_NAMES, required: true, description: 'accepted and mapped to typeId' },
    typeId: { type: 'string', write: 'server', filterable: true, sortable: true, indexed: true, ref: 'identity-types' },
    isAdmin: { type: 'boolean', required: true, filterable: true, sortable: true, indexed: true },
    isDefaultAdmin: { type: 'boolean', write: 'ignored', default: false, filterable: true, sortable: true },
    roleAttributes: { type: 'stringList', default: [], filterable: true, indexed: true, maxLength: 1024 },
    authPolicyId: { type: 'string', nullable: true, default: 'default', filterable: true, sortable: true, indexed: true, ref: 'auth-policies' },
    externalId: { type: 'string', nullable: true, default: null, unique: true, filterable: true, sortable: true },
    defaultHostingCost: { type: 'integer', min: 0, max: 65535, default: 0 },
    defaultHostingPrecedence: { type: 'enum', values: TERMINATOR_PRECEDENCES, default: 'default' },
    serviceHostingCosts: { type: 'intMap', min: 0, max: 65535, default: {} },
    serviceHostingPrecedences: { type: 'enumMap', values: TERMINATOR_PRECEDENCES, default: {} },
    appData: { type: 'tags', nullable: true, default: {} },
    permissions: { type: 'stringList', default: [] },
    enrollment: {
      type: 'object',
      createOnly: true,
      properties: { ott: { type: 'boolean' }, ottca: { type: 'string' }, updb: { type: 'string', minLength: 4, maxLength: 100 } },
    },
    disabledAt: { type: 'datetime', write: 'server', nullable: true, filterable: true, sortable: true },
    disabledUntil: { type: 'datetime', write: 'server', nullable: true, filterable: true, sortable: true },
    envInfo: { type: 'object', write: 'server' },
    sdkInfo: { type: 'object', write: 'server' },
  },
};
