// The three policy kinds: edge router policies (identities ↔ edge routers), service edge
// router policies (services ↔ edge routers) and service policies (identities ↔ services,
// Dial or Bind, with posture checks). Role lists select with #attr, @id and #all.

import type { FieldSpec, ResourceDecl } from '../resource.js';
import { preparePolicy } from './policy-behaviour.js';

const SEMANTICS = ['AllOf', 'AnyOf'] as const;
const OPS = { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' } as const;

const name: FieldSpec = { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 };
const semantic: FieldSpec = { type: 'enum', values: SEMANTICS, requiredOn: ['create'], default: 'AllOf', filterable: true, sortable: true };
const roles = (target: string): FieldSpec => ({ type: 'stringList', default: [], filterable: true, indexed: true, roles: target });

export const edgeRouterPolicies: ResourceDecl<'edge-router-policies'> = {
  kind: 'edge-router-policies',
  entity: 'edge-router-policy',
  actor: 'catalog',
  present: ['access'],
  description: 'Edge router policies: which identities may use which edge routers',
  ops: OPS,
  prepare: preparePolicy,
  relations: [
    { child: 'identities', via: { members: true } },
    { child: 'edge-routers', via: { members: true } },
  ],
  columns: ['id', 'name', 'semantic', 'identityRoles', 'edgeRouterRoles'],
  fields: {
    name,
    semantic,
    identityRoles: roles('identities'),
    edgeRouterRoles: roles('edge-routers'),
    isSystem: { type: 'boolean', write: 'server', default: false, filterable: true, sortable: true },
  },
};

export const serviceEdgeRouterPolicies: ResourceDecl<'service-edge-router-policies'> = {
  kind: 'service-edge-router-policies',
  entity: 'service-edge-router-policy',
  actor: 'catalog',
  present: ['access'],
  description: 'Service edge router policies: which services may be reached over which edge routers',
  ops: OPS,
  prepare: preparePolicy,
  relations: [
    { child: 'services', via: { members: true } },
    { child: 'edge-routers', via: { members: true } },
  ],
  columns: ['id', 'name', 'semantic', 'serviceRoles', 'edgeRouterRoles'],
  fields: { name, semantic, serviceRoles: roles('services'), edgeRouterRoles: roles('edge-routers') },
};

export const servicePolicies: ResourceDecl<'service-policies'> = {
  kind: 'service-policies',
  entity: 'service-policy',
  actor: 'catalog',
  present: ['access'],
  description: 'Service policies: which identities may dial or bind which services, under which posture checks',
  ops: OPS,
  prepare: preparePolicy,
  relations: [
    { child: 'identities', via: { members: true } },
    { child: 'services', via: { members: true } },
    { child: 'posture-checks', via: { members: true } },
  ],
  columns: ['id', 'name', 'type', 'semantic', 'identityRoles', 'serviceRoles'],
  fields: {
    name,
    semantic,
    type: { type: 'enum', values: ['Dial', 'Bind'], required: true, filterable: true, sortable: true, indexed: true },
    identityRoles: roles('identities'),
    serviceRoles: roles('services'),
    postureCheckRoles: roles('posture-checks'),
  },
};
