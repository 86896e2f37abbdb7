// Cross-entity rules enforced inside apply: protected entities and delete cascades. Pure data,
// evaluated deterministically by the replica.

import { ApiError } from '../errors.js';
import type { Entity } from './commands.js';

/** When deleting an entity of `kind`, also delete every `target` whose `field` equals its id. */
export interface Cascade {
  target: string;
  field: string;
}

export const CASCADES: Record<string, Cascade[]> = {
  identities: [
    { target: 'api-sessions', field: 'identityId' },
    { target: 'authenticators', field: 'identityId' },
  ],
  authenticators: [{ target: 'api-sessions', field: 'authenticatorId' }],
};

/** Throws when the entity may not be deleted through the API. */
export function guardDelete(kind: string, record: Entity): void {
  if (kind === 'identities' && record.isDefaultAdmin === true) {
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'cannot delete the default admin' });
  }
  if (kind === 'identity-types') {
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'identity types are fixed' });
  }
}
