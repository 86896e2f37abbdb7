// Certificate login (`POST /authenticate?method=cert` over mutual TLS): the node finds whose
// certificate it is (by the external id a CA's claim reads from it, else by its fingerprint);
// the identity's actor checks trust, policy and validity.

import type { Context } from 'koa';
import { certAuthError } from '../../domain/cert-auth-failures.js';
import { jsonBody } from '../middleware/body.js';
import type { NodeClient } from '../node-client.js';
import { peerCertificates } from '../peer-certificates.js';
import { sessionInfo } from './password-login.js';

export async function loginWithCert(ctx: Context, node: NodeClient): Promise<string> {
  const peer = peerCertificates(ctx);
  if (!peer) throw certAuthError('NO_CERTIFICATE');
  const found = await node.query({ op: 'findCertIdentity', pems: peer.pems, fingerprint: peer.fingerprint });
  if (!found) throw certAuthError('UNKNOWN_CERTIFICATE');
  if (found.identityId === null) throw certAuthError('UNKNOWN_EXTERNAL_ID');
  const body = jsonBody(ctx);
  const info = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const result = await node.identity('loginCert', found.identityId, {
    ...('externalId' in found ? { externalId: found.externalId, caId: found.caId } : { authenticatorId: found.authenticatorId }),
    peerCerts: peer.pems,
    ...sessionInfo(ctx, info),
  });
  return result.token;
}
