// Config types: a name and a JSON Schema that configs of the type are validated against.

import type { ResourceDecl } from '../resource.js';

export const configTypes: ResourceDecl = {
  kind: 'config-types',
  entity: 'config-type',
  actor: 'catalog',
  description: 'Config types: JSON Schemas for service configs',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    schema: { type: 'object', default: {} },
    target: { type: 'string', nullable: true, default: null, filterable: true },
  },
};
