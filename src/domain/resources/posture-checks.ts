// Posture checks: conditions an endpoint must meet (OS, MAC, domain, process, MFA). Selected by
// service policies' postureCheckRoles. Type-specific fields are validated by the catalog actor.

import type { ResourceDecl } from '../resource.js';

export const POSTURE_CHECK_TYPES = ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'PROCESS_MULTI', 'MFA'] as const;

export const postureChecks: ResourceDecl = {
  kind: 'posture-checks',
  entity: 'posture-check',
  actor: 'catalog',
  selectable: true,
  description: 'Posture checks',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    typeId: { type: 'enum', values: POSTURE_CHECK_TYPES, required: true, createOnly: true, filterable: true, sortable: true, indexed: true },
    roleAttributes: { type: 'stringList', default: [], filterable: true, indexed: true, maxLength: 1024 },
    version: { type: 'integer', write: 'server', default: 1, filterable: true, sortable: true },
  },
};
