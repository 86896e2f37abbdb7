// The secondary-factor parts of session reads: the ext-jwt signer an identity's auth policy
// requires (the gateway checks the request's bearer token against it) and the current session's
// auth queries. Never writes.

import type { Entity } from '../domain/commands.js';
import { authQueriesOf, isExtJwtOwed, type SecondaryState } from '../domain/secondary-auth.js';
import type { Replica } from '../store/replica.js';

/** The identity's auth policy `secondary.requireExtJwtSigner`, or null. */
export async function requiredExtJwtSignerOf(replica: Replica, identity: Entity): Promise<string | null> {
  const policy = await replica.get('auth-policies', String(identity.authPolicyId ?? 'default'));
  const signer = (policy?.secondary as { requireExtJwtSigner?: unknown } | undefined)?.requireExtJwtSigner;
  return typeof signer === 'string' && signer !== '' ? signer : null;
}

/** The session's outstanding auth queries for this request (`extJwtPassed`: the gateway found a
 * valid token of the required signer on it). */
export async function currentAuthQueries(replica: Replica, session: Entity, identity: Entity, extJwtPassed: boolean): Promise<Record<string, unknown>[]> {
  const state: SecondaryState = {
    isMfaRequired: session.isMfaRequired === true,
    isMfaComplete: session.isMfaComplete === true,
    requiredExtJwtSigner: await requiredExtJwtSignerOf(replica, identity),
    extJwtPassed,
  };
  const signer = isExtJwtOwed(state) ? await replica.get('external-jwt-signers', String(state.requiredExtJwtSigner)) : undefined;
  return authQueriesOf(state, signer);
}
