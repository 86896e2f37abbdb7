// Why an ext-jwt login failed: every refusal is 401 INVALID_AUTH, and its cause names the reason
// (a stable code plus a sentence) so operators and tests can tell them apart. Pure.

import { ApiError } from '../errors.js';

export const EXT_JWT_FAILURES = {
  MISSING_TOKEN: 'no bearer token in the Authorization header',
  MALFORMED_TOKEN: 'the bearer token is not a well-formed signed JWT',
  MISSING_KID: 'the token header has no kid',
  UNKNOWN_ISSUER: 'the token issuer is not a known external JWT signer',
  SIGNER_DISABLED: 'the external JWT signer for this issuer is disabled',
  UNKNOWN_KID: 'the signer has no key with the token kid',
  JWKS_UNAVAILABLE: "the signer's JWKS endpoint could not be read",
  BAD_SIGNATURE: 'the token signature does not verify with the signer key',
  EXPIRED: 'the token has expired',
  NOT_YET_VALID: 'the token is not valid yet (nbf)',
  BAD_AUDIENCE: "the token audience does not contain the signer's audience",
  INVALID_CLAIMS: 'the token claims are invalid',
  NO_MATCHING_IDENTITY: 'no identity matches the token claim',
  IDENTITY_DISABLED: 'the identity is disabled',
  EXT_JWT_NOT_ALLOWED: "the identity's auth policy does not allow ext-jwt authentication",
  SIGNER_NOT_ALLOWED: "the signer is not in the allowed signers of the identity's auth policy",
} as const;

export type ExtJwtFailure = keyof typeof EXT_JWT_FAILURES;

/** 401 INVALID_AUTH with cause `{code: 'UNHANDLED', reason, message, detail?}`. */
export function extJwtError(reason: ExtJwtFailure, detail?: string): ApiError {
  const cause: Record<string, unknown> = { code: 'UNHANDLED', reason, message: EXT_JWT_FAILURES[reason] };
  if (detail !== undefined) cause.detail = detail;
  return new ApiError('INVALID_AUTH', cause);
}
