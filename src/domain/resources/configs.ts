// Configs: named data of a config type, validated against the type's schema (by the configs
// catalog actor); services reference them by id in their `configs` list.

import type { ResourceDecl } from '../resource.js';

export const configs: ResourceDecl<'configs'> = {
  kind: 'configs',
  entity: 'config',
  actor: 'catalog',
  ownActor: 'config-catalog',
  present: ['configs'],
  description: 'Configs: typed data attached to services',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  cascades: [{ target: 'identity-service-configs', field: 'configId' }],
  columns: ['id', 'name', 'configTypeId'],
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    configTypeId: {
      type: 'string', required: true, createOnly: true, filterable: true, sortable: true, indexed: true,
      ref: 'config-types', refConflictCode: 'CONFLICT_CANNOT_MODIFY_REFERENCED',
    },
    data: { type: 'object', required: true, description: 'Data matching the config type schema' },
  },
};
