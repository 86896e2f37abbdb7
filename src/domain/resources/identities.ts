// The identity resource: who may connect. Identity-specific rules (type mapping, the default
// admin, disable/enable) live in the identity actor; this is the declared shape.

import type { ResourceDecl } from '../resource.js';

export const IDENTITY_TYPE_NAMES = ['User', 'Device', 'Service', 'Router', 'Default'] as const;
export const TERMINATOR_PRECEDENCES = ['default', 'required', 'failed'] as const;

export const identities: ResourceDecl = {
  kind: 'identities',
  entity: 'identity',
  actor: 'entity',
  selectable: true,
  description: 'Identities: the users, devices and services that authenticate to the network',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
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
