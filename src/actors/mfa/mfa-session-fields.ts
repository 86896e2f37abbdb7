// At every login, whatever the method: a new API session owes a TOTP code when the identity has
// a verified MFA or its auth policy says `secondary.requireTotp`. Named in api-session-factory.ts.

import type { Entity } from '../../domain/commands.js';
import type { Replica } from '../../store/replica.js';
import { mfaOf } from './mfa-commands.js';

/** `isMfaRequired` / `isMfaComplete` of a new API session of `identity`. */
export async function mfaSessionFields(identity: Entity, replica: Replica): Promise<Record<string, unknown>> {
  const mfa = await mfaOf(replica, identity.id);
  const policy = await replica.get('auth-policies', String(identity.authPolicyId ?? 'default'));
  const requireTotp = (policy?.secondary as { requireTotp?: unknown } | undefined)?.requireTotp === true;
  if (mfa?.isVerified === true || requireTotp) return { isMfaRequired: true, isMfaComplete: false };
  return {};
}
