// Revocations: a revoked JWT id, identity or API session, kept until `expiresAt`. Created with
// the revoked entity's id (see revocation-routes); listed and read by admins.

import type { ResourceDecl } from '../resource.js';

/** How long a revocation is kept: past it, every token it could stop has expired. */
export const REVOCATION_HOURS = 24;

export const revocations: ResourceDecl<'revocations'> = {
  kind: 'revocations',
  entity: 'revocation',
  actor: 'catalog',
  ownActor: 'revocation-catalog',
  description: 'Revocations of JWT ids, identities and API sessions',
  ops: { list: 'admin', get: 'admin' },
  fields: {
    type: { type: 'enum', values: ['JTI', 'IDENTITY', 'API_SESSION'], required: true, filterable: true, sortable: true },
    expiresAt: { type: 'datetime', filterable: true, sortable: true, description: 'set by the controller' },
  },
};
