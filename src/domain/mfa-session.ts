// The MFA state of an API session, as stored on its record: which sessions still owe a TOTP
// code, and the auth query that tells the client so (secondary-auth.ts builds the list).

/**
 * API-session record fields kept by MFA (read by the posture checks too):
 * - `isMfaRequired` (boolean): a TOTP code was asked for at login (verified MFA, or the auth
 *   policy's `secondary.requireTotp`), or MFA was enrolled during the session;
 * - `isMfaComplete` (boolean): the session has passed MFA;
 * - `mfaPassedAt` (ISO-8601 or null): when it passed, by `POST /authenticate/mfa` or by
 *   verifying an enrollment in this session; cleared when the identity's MFA is removed.
 */
export interface MfaSessionFields {
  isMfaRequired?: boolean;
  isMfaComplete?: boolean;
  mfaPassedAt?: string | null;
}

/** Upstream's auth query for an outstanding TOTP code (`NewAuthQueryZitiMfa`), field for field. */
export const MFA_AUTH_QUERY = Object.freeze({
  typeId: 'MFA',
  provider: 'ziti',
  format: 'alphaNumeric',
  httpMethod: 'POST',
  httpUrl: './authenticate/mfa',
  minLength: 4,
  maxLength: 6,
});

/** True while the session is only partially authenticated: TOTP required and not yet given. */
export function isMfaPending(session: MfaSessionFields): boolean {
  return session.isMfaRequired === true && session.isMfaComplete !== true;
}
