// The secondary ext-jwt factor (auth policy `secondary.requireExtJwtSigner`, BEHAVIOR.md §4.4,
// §4.7). As upstream, it is checked on every request and nothing is stored: a request passes it
// when it carries a valid bearer token of the required signer that names the session's identity.

import type { Context } from 'koa';
import { ApiError } from '../../errors.js';
import type { SessionInfo } from '../../protocol/v1/query-messages.js';
import type { NodeClient } from '../node-client.js';
import { hasBearer, verifyBearer } from './ext-jwt-bearer.js';

/** The caller as far as the check needs it (the `resolveSession` answer). */
export type SecondaryCaller = Pick<SessionInfo, 'identityId' | 'requiredExtJwtSigner'>;

/** True when the auth policy requires a signer and this request carries its valid token for the
 * caller's identity. Any token problem just leaves the factor outstanding. */
export async function passesSecondaryExtJwt(ctx: Context, node: NodeClient, caller: SecondaryCaller): Promise<boolean> {
  if (typeof caller.requiredExtJwtSigner !== 'string' || !hasBearer(ctx)) return false;
  try {
    const { signer, value } = await verifyBearer(ctx, node);
    if (signer.id !== caller.requiredExtJwtSigner) return false;
    const found = await node.query({ op: 'extJwtIdentity', value, useExternalId: signer.useExternalId });
    return found?.identityId === caller.identityId;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'INVALID_AUTH') return false;
    throw err;
  }
}

/** The same check for the request that just logged in with session `token`. */
export async function loginPassesSecondaryExtJwt(ctx: Context, node: NodeClient, token: string): Promise<boolean> {
  if (!hasBearer(ctx)) return false;
  return passesSecondaryExtJwt(ctx, node, await node.query({ op: 'resolveSession', token }));
}
