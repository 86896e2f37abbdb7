// Authentication and the caller's own session and identity; mounted on both the management
// and the client API. Password login goes to the identity's actor (hashing, lockout).

import type { Context } from 'koa';
import type Router from '@koa/router';
import { resourceOf } from '../../domain/registry.js';
import { ApiError, fieldError } from '../../errors.js';
import { sendData, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireCaller } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

const METHODS = ['password', 'cert', 'ext-jwt'];

export function addAuthRoutes(router: Router, node: NodeClient): void {
  router.post('/authenticate', async (ctx) => {
    const method = String(ctx.query.method ?? '');
    if (!METHODS.includes(method)) throw new ApiError('INVALID_AUTH_METHOD', { field: 'method', value: method, reason: 'method must be password, cert or ext-jwt' });
    if (method !== 'password') {
      throw new ApiError('INVALID_AUTH_METHOD', { field: 'method', value: method, reason: `authentication method ${method} is not enabled on this controller` });
    }
    const token = await loginWithPassword(ctx, node);
    const session = await node.query({ op: 'currentSession', token });
    ctx.set('zt-session', token);
    sendData(ctx, session);
  });
  router.get('/current-api-session', async (ctx) => {
    const caller = requireCaller(ctx);
    sendData(ctx, await node.query({ op: 'currentSession', token: caller.token }));
  });
  router.delete('/current-api-session', async (ctx) => {
    const caller = requireCaller(ctx);
    await node.command(resourceOf('api-sessions'), 'delete', caller.apiSessionId);
    sendEmpty(ctx);
  });
  router.get('/current-identity', async (ctx) => {
    const caller = requireCaller(ctx);
    sendData(ctx, await node.query({ op: 'get', kind: 'identities', id: caller.identityId }));
  });
}

async function loginWithPassword(ctx: Context, node: NodeClient): Promise<string> {
  const body = jsonBody(ctx);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw fieldError('username', null, 'username is required');
  const { username, password, envInfo, sdkInfo, configTypes } = body as Record<string, unknown>;
  checkLength('username', username, 4, 100);
  checkLength('password', password, 5, 100);
  const found = await node.query<{ identityId: string; authenticatorId: string } | null>({ op: 'findUpdb', username });
  if (!found) throw new ApiError('INVALID_AUTH');
  const result = await node.command<{ token: string }>(resourceOf('identities'), 'loginPassword', found.identityId, {
    authenticatorId: found.authenticatorId,
    password,
    envInfo,
    sdkInfo,
    configTypes,
    ipAddress: ctx.ip,
  });
  return result.token;
}

function checkLength(field: string, value: unknown, min: number, max: number): void {
  if (value === undefined || value === null) throw fieldError(field, null, `${field} is required`);
  if (typeof value !== 'string') throw fieldError(field, value, `${field} in body must be of type string`);
  const length = [...value].length;
  if (length < min) throw fieldError(field, field === 'password' ? '******' : value, `${field} should be at least ${min} chars long`);
  if (length > max) throw fieldError(field, field === 'password' ? '******' : value, `${field} should be at most ${max} chars long`);
}
