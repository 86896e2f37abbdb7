// Config types: a name and a JSON Schema that configs of the type are validated against. The
// schema itself is checked (compiled) by the config-types catalog actor before a write.

import type { ResourceDecl } from '../resource.js';
import { guardConfigTypeDelete, prepareConfigType } from './config-type-behaviour.js';

export const configTypes: ResourceDecl<'config-types'> = {
  kind: 'config-types',
  entity: 'config-type',
  actor: 'catalog',
  ownActor: 'config-type-catalog',
  description: 'Config types: JSON Schemas for service configs',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  prepare: prepareConfigType,
  guardDelete: guardConfigTypeDelete,
  columns: ['id', 'name'],
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    schema: { type: 'object', default: {}, description: 'A JSON Schema (draft-07, 2019-09 or 2020-12) configs must match' },
    // Upstream's update and patch bodies have no target: it is fixed at create (default service).
    target: { type: 'enum', values: ['service', 'router'], default: 'service', createOnly: true, filterable: true, sortable: true },
  },
};
