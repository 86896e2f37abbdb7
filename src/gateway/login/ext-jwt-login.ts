// External JWT login (`POST /authenticate?method=ext-jwt`, token in `Authorization: Bearer`):
// verifies the token against its issuer's signer, finds the identity by the signer's claim, then
// lets the identity's actor check its state and auth policy and create the session.

import type { Context } from 'koa';
import { extJwtError } from '../../domain/ext-jwt-failures.js';
import { jsonBody } from '../middleware/body.js';
import type { NodeClient } from '../node-client.js';
import { verifyBearer } from './ext-jwt-bearer.js';
import { sessionInfo } from './password-login.js';

export async function loginWithExtJwt(ctx: Context, node: NodeClient): Promise<string> {
  const { signer, value } = await verifyBearer(ctx, node);
  const found = await node.query({ op: 'extJwtIdentity', value, useExternalId: signer.useExternalId });
  if (!found) throw extJwtError('NO_MATCHING_IDENTITY', `no identity with ${signer.useExternalId ? 'externalId' : 'id'} ${JSON.stringify(value)}`);
  const body = ctx.request.length ? jsonBody(ctx) : undefined;
  const result = await node.identity('loginExtJwt', found.identityId, {
    signerId: signer.id,
    ...sessionInfo(ctx, body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined),
  });
  return result.token;
}
