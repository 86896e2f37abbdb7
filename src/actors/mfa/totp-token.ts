// TOTP tokens (`POST /current-api-session/totp-token`), in the identity's actor: a valid TOTP code
// (never a recovery code, as upstream) buys a JWT signed by the node that proves when the code
// was checked, for the caller's API session. Nothing is stored.

import { randomUUID } from 'node:crypto';
import { verifyTotp } from '../../domain/totp.js';
import { ApiError } from '../../errors.js';
import { signTotpJwt } from '../../pki/enrollment-jwt.js';
import type { ActorMessage } from '../actor-host.js';
import type { CredentialDeps } from '../credentials/credential-deps.js';
import { mfaOf } from './mfa-commands.js';
import { mfaNow } from '../../domain/mfa-clock.js';

/** `{token, issuedAt}` for the identity's session, or MFA_INVALID_TOKEN / MFA_NOT_ENROLLED. */
export async function createTotpToken(deps: CredentialDeps, identityId: string, msg: ActorMessage): Promise<{ token: string; issuedAt: string }> {
  const code = typeof msg.code === 'string' ? msg.code : '';
  if (code === '') throw new ApiError('MFA_INVALID_TOKEN');
  const mfa = await mfaOf(deps.replica, identityId);
  if (!mfa) throw new ApiError('MFA_NOT_ENROLLED');
  if (!verifyTotp(String(mfa.secret), code, mfaNow())) throw new ApiError('MFA_INVALID_TOKEN');
  const issuedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  const token = await signTotpJwt(
    { certPem: deps.signer.caCertPem, keyPem: deps.signer.caKeyPem },
    { issuer: deps.baseUrl, identityId, apiSessionId: String(msg.apiSessionId ?? ''), id: randomUUID(), issuedAt },
  );
  return { token, issuedAt: issuedAt.toISOString() };
}
