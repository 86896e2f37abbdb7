// What an API session still owes after its primary login (BEHAVIOR.md §4.4, §4.7): a TOTP code
// (kept on the session record) and a bearer token from the auth policy's required ext-jwt signer
// (checked on every request, as upstream does), and the auth queries that tell the client. Pure.

import { isMfaPending, MFA_AUTH_QUERY, type MfaSessionFields } from './mfa-session.js';

/** The secondary factors of one request's API session. */
export interface SecondaryState extends MfaSessionFields {
  /** The signer id of the identity's auth policy `secondary.requireExtJwtSigner`, null when none. */
  requiredExtJwtSigner?: string | null;
  /** True when this request carried a valid token of that signer for the session's identity. */
  extJwtPassed?: boolean;
}

/** The parts of the required signer an EXT-JWT auth query shows. */
export interface ExtJwtQuerySigner {
  id: string;
  externalAuthUrl?: unknown;
  clientId?: unknown;
  scopes?: unknown;
}

/** True while a required ext-jwt token is missing from the request. */
export function isExtJwtOwed(state: SecondaryState): boolean {
  return typeof state.requiredExtJwtSigner === 'string' && state.extJwtPassed !== true;
}

/** True while any secondary factor is outstanding: the session is partially authenticated. */
export function hasSecondaryOutstanding(state: SecondaryState): boolean {
  return isMfaPending(state) || isExtJwtOwed(state);
}

/** Upstream's auth query for a required ext-jwt signer. */
export function extJwtAuthQuery(signer: ExtJwtQuerySigner): Record<string, unknown> {
  return {
    typeId: 'EXT-JWT',
    provider: 'url',
    id: signer.id,
    httpUrl: typeof signer.externalAuthUrl === 'string' ? signer.externalAuthUrl : '',
    clientId: typeof signer.clientId === 'string' ? signer.clientId : '',
    scopes: Array.isArray(signer.scopes) ? [...(signer.scopes as string[])] : [],
  };
}

/** The session's `authQueries` on the wire: MFA first, then EXT-JWT (`signer` describes the
 * required signer; without it only the MFA query can be shown). */
export function authQueriesOf(state: SecondaryState, signer?: ExtJwtQuerySigner): Record<string, unknown>[] {
  const queries: Record<string, unknown>[] = [];
  if (isMfaPending(state)) queries.push({ ...MFA_AUTH_QUERY });
  if (isExtJwtOwed(state)) queries.push(extJwtAuthQuery(signer ?? { id: String(state.requiredExtJwtSigner) }));
  return queries;
}
