// Identity types: a read-only catalogue of two stored types, Default and Router (id = name).

import type { ResourceDecl } from '../resource.js';

export const identityTypes: ResourceDecl = {
  kind: 'identity-types',
  entity: 'identity-type',
  actor: 'catalog',
  description: 'Identity types (Default and Router)',
  ops: { list: 'admin', get: 'admin' },
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true },
  },
};

/** The stored identity types; every other requested type maps to Default. */
export const IDENTITY_TYPE_IDS = ['Default', 'Router'] as const;
