// The identity actor's half of an ext-jwt login: the gateway has verified the token and found
// the identity; here the signer, the identity's state and its auth policy are checked against
// fresh data (BEHAVIOR.md §4.5, §4.7) and the API session is created.

import type { Entity } from '../domain/commands.js';
import { extJwtError } from '../domain/ext-jwt-failures.js';
import { isDisabled } from '../domain/identity-state.js';
import type { ActorMessage } from './actor-host.js';
import { createApiSession, type LoginResult, type SessionRequest } from './api-session-factory.js';
import type { IdentityActorDeps } from './actor-deps.js';

interface ExtJwtPolicy {
  allowed?: boolean;
  allowedSigners?: string[];
}

/** Logs `identityId` in with the signer named in `msg.signerId`; 401 with the reason otherwise. */
export async function loginExtJwt(identityId: string, deps: IdentityActorDeps, msg: ActorMessage): Promise<LoginResult> {
  const { replica } = deps;
  const identity = await replica.get('identities', identityId);
  if (!identity) throw extJwtError('NO_MATCHING_IDENTITY');
  const signer = await replica.get('external-jwt-signers', String(msg.signerId ?? ''));
  if (!signer) throw extJwtError('UNKNOWN_ISSUER');
  if (signer.enabled !== true) throw extJwtError('SIGNER_DISABLED');
  checkPolicy(await policyOf(deps, identity), signer.id);
  if (isDisabled(identity)) throw extJwtError('IDENTITY_DISABLED');
  return createApiSession(deps, identity, signer.id, msg as SessionRequest);
}

async function policyOf(deps: IdentityActorDeps, identity: Entity): Promise<ExtJwtPolicy> {
  const policy = await deps.replica.get('auth-policies', String(identity.authPolicyId ?? 'default'));
  return ((policy?.primary as { extJwt?: ExtJwtPolicy } | undefined)?.extJwt ?? {}) as ExtJwtPolicy;
}

/** ext-jwt must be allowed; a non-empty allowedSigners must list the signer (empty = any). */
function checkPolicy(policy: ExtJwtPolicy, signerId: string): void {
  if (policy.allowed !== true) throw extJwtError('EXT_JWT_NOT_ALLOWED');
  const allowed = policy.allowedSigners ?? [];
  if (allowed.length > 0 && !allowed.includes(signerId)) throw extJwtError('SIGNER_NOT_ALLOWED');
}
