// TOTP MFA enrollments: at most one per identity. The secret and the recovery codes never leave
// the controller through the generic presenter; /current-identity/mfa shows them by hand.

import type { ResourceDecl } from '../resource.js';

/**
 * An identity's MFA. `secret` is the base32 TOTP secret; `recoveryCodes` are the unused
 * single-use codes, kept in clear because `GET /current-identity/mfa/recovery-codes` must show
 * them again (hashing them would protect nothing the stored secret does not already give).
 */
export const mfas: ResourceDecl<'mfas'> = {
  kind: 'mfas',
  entity: 'mfa',
  actor: 'catalog',
  description: 'TOTP MFA enrollments of identities (served under /current-identity/mfa)',
  ops: {},
  fields: {
    identityId: { type: 'string', write: 'server', unique: true, indexed: true, ref: 'identities' },
    isVerified: { type: 'boolean', write: 'server' },
    secret: { type: 'string', write: 'server', secret: true },
    recoveryCodes: { type: 'stringList', write: 'server', secret: true },
  },
};
