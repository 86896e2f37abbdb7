// Authentication and the caller's own session and identity; mounted on both the management
// and the client API. Each login method lives in src/gateway/login/.

import type Router from '@koa/router';
import { resourceOf } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { KNOWN_METHODS, LOGIN_METHODS } from '../login/login-methods.js';
import { loginPassesSecondaryExtJwt } from '../login/secondary-ext-jwt.js';
import { sendData, sendDataJson, sendEmpty } from '../envelope.js';
import { requireCaller } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

export function addAuthRoutes(router: Router, node: NodeClient): void {
  router.post('/authenticate', async (ctx) => {
    const method = String(ctx.query.method ?? '');
    const login = LOGIN_METHODS[method];
    if (!login) {
      const reason = KNOWN_METHODS.includes(method)
        ? `authentication method ${method} is not enabled on this controller`
        : `method must be one of ${KNOWN_METHODS.join(', ')}`;
      throw new ApiError('INVALID_AUTH_METHOD', { field: 'method', value: method, reason });
    }
    const token = await login(ctx, node);
    const extJwtPassed = await loginPassesSecondaryExtJwt(ctx, node, token);
    const session = await node.query({ op: 'currentSession', token, extJwtPassed });
    ctx.set('zt-session', token);
    sendData(ctx, session);
  });
  router.get('/current-api-session', async (ctx) => {
    const caller = requireCaller(ctx);
    sendData(ctx, await node.query({ op: 'currentSession', token: caller.token, extJwtPassed: caller.extJwtPassed === true }));
  });
  router.delete('/current-api-session', async (ctx) => {
    const caller = requireCaller(ctx);
    await node.command(resourceOf('api-sessions'), 'delete', caller.apiSessionId);
    sendEmpty(ctx);
  });
  router.get('/current-identity', async (ctx) => {
    const caller = requireCaller(ctx);
    sendDataJson(ctx, await node.queryJson({ op: 'get', kind: 'identities', id: caller.identityId }));
  });
}
