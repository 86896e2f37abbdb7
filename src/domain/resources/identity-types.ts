// Identity types: a read-only catalogue of two stored types, Default and Router (id = name).

import { ApiError } from '../../errors.js';
import type { ResourceDecl } from '../resource.js';

export const identityTypes: ResourceDecl<'identity-types'> = {
  kind: 'identity-types',
  entity: 'identity-type',
  actor: 'catalog',
  description: 'Identity types (Default and Router)',
  ops: { list: 'admin', get: 'admin' },
  guardDelete: () => {
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'identity types are fixed' });
  },
  columns: ['id', 'name'],
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true },
  },
};

/** The stored identity types; every other requested type maps to Default. */
export const IDENTITY_TYPE_IDS = ['Default', 'Router'] as const;
