// Why a certificate login failed: every refusal is 401 INVALID_AUTH, and its cause names the
// reason (a stable code plus a sentence) so operators and tests can tell them apart. Pure.

import { ApiError } from '../errors.js';

export const CERT_AUTH_FAILURES = {
  NO_CERTIFICATE: 'no client certificate was presented in the TLS handshake',
  UNKNOWN_CERTIFICATE: 'no certificate authenticator matches the client certificate fingerprint',
  UNKNOWN_EXTERNAL_ID: "no identity has the externalId that the issuing CA's externalIdClaim reads from the client certificate",
  UNTRUSTED_ISSUER: 'the client certificate is not issued by the controller CA or a verified CA with isAuthEnabled',
  NOT_CLIENT_CERTIFICATE: 'the client certificate does not allow client authentication',
  CERT_NOT_ALLOWED: "the identity's auth policy does not allow certificate authentication",
  EXPIRED: "the client certificate has expired and the auth policy does not allow expired certificates",
  NOT_YET_VALID: 'the client certificate is not valid yet',
  IDENTITY_DISABLED: 'the identity is disabled',
} as const;

export type CertAuthFailure = keyof typeof CERT_AUTH_FAILURES;

/** 401 INVALID_AUTH with cause `{code: 'UNHANDLED', reason, message}`. */
export function certAuthError(reason: CertAuthFailure): ApiError {
  return new ApiError('INVALID_AUTH', { code: 'UNHANDLED', reason, message: CERT_AUTH_FAILURES[reason] });
}
