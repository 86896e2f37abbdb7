// Authentication and the caller's own session and identity; mounted on both the management
// and the client API. Each login method lives in src/gateway/login/.

import { resourceOf } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { KNOWN_METHODS, LOGIN_METHODS } from '../login/login-methods.js';
import { loginPassesSecondaryExtJwt } from '../login/secondary-ext-jwt.js';
import { sendData, sendDataJson, sendEmpty } from '../envelope.js';
import { requireCaller } from '../middleware/session.js';
import { objectSchema, STRING, type HandRoute } from './route-table.js';

const STRINGS = { type: 'array', items: STRING };

/** Upstream's `authenticate` body: the password method's fields (certificate and ext-jwt logins
 * send none) and what the client reports about itself. */
const AUTHENTICATE_BODY = objectSchema({
  username: STRING,
  password: STRING,
  configTypes: STRINGS,
  envInfo: objectSchema({ arch: STRING, domain: STRING, hostname: STRING, os: STRING, osRelease: STRING, osVersion: STRING }),
  sdkInfo: objectSchema({ appId: STRING, appVersion: STRING, branch: STRING, revision: STRING, type: STRING, version: STRING }),
});

const SESSION_ANSWER = { description: 'The API session' };

export const AUTH_ROUTES: readonly HandRoute[] = [
  {
    method: 'post', path: '/authenticate', access: 'none', operationId: 'authenticate',
    summary: 'Authenticate via a method supplied via a query string parameter',
    query: ['method'], body: AUTHENTICATE_BODY, ok: { description: 'The new API session; its token is also in the zt-session header' },
    handler: async (ctx, { node }) => {
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
    },
  },
  {
    method: 'get', path: '/current-api-session', access: 'authenticated', operationId: 'getCurrentAPISession',
    summary: 'Return the current API session', ok: SESSION_ANSWER,
    handler: async (ctx, { node }) => {
      const caller = requireCaller(ctx);
      sendData(ctx, await node.query({ op: 'currentSession', token: caller.token, extJwtPassed: caller.extJwtPassed === true }));
    },
  },
  {
    method: 'delete', path: '/current-api-session', access: 'authenticated', operationId: 'deleteCurrentApiSession', summary: 'Logout',
    handler: async (ctx, { node }) => {
      await node.command(resourceOf('api-sessions'), 'delete', requireCaller(ctx).apiSessionId);
      sendEmpty(ctx);
    },
  },
  {
    method: 'get', path: '/current-identity', access: 'authenticated', operationId: 'getCurrentIdentity',
    summary: 'Return the current identity', ok: { description: 'The caller\'s identity' },
    handler: async (ctx, { node }) => {
      sendDataJson(ctx, await node.queryJson({ op: 'get', kind: 'identities', id: requireCaller(ctx).identityId }));
    },
  },
];
