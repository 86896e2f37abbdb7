// Certificate login (`POST /authenticate?method=cert` over mutual TLS): the peer certificate's
// fingerprint finds the authenticator; the identity's actor checks trust, policy and validity.

import type { Context } from 'koa';
import { certAuthError } from '../../domain/cert-auth-failures.js';
import { resourceOf } from '../../domain/registry.js';
import { jsonBody } from '../middleware/body.js';
import type { NodeClient } from '../node-client.js';
import { peerCertificates } from '../peer-certificates.js';
import { sessionInfo } from './password-login.js';

export async function loginWithCert(ctx: Context, node: NodeClient): Promise<string> {
  const peer = peerCertificates(ctx);
  if (!peer) throw certAuthError('NO_CERTIFICATE');
  const found = await node.query<{ identityId: string; authenticatorId: string } | null>({ op: 'findCertAuthenticator', fingerprint: peer.fingerprint });
  if (!found) throw certAuthError('UNKNOWN_CERTIFICATE');
  const body = jsonBody(ctx);
  const info = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const result = await node.command<{ token: string }>(resourceOf('identities'), 'loginCert', found.identityId, {
    authenticatorId: found.authenticatorId,
    peerCerts: peer.pems,
    ...sessionInfo(ctx, info),
  });
  return result.token;
}
