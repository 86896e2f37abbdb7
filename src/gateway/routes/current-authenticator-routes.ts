// The caller's own authenticators (both APIs): list and detail, updb changes that need the
// current password, and certificate extension over mutual TLS (extend, then extend-verify).

import { resourceOf } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { sendData, sendEmpty } from '../envelope.js';
import { sendList } from '../list-answer.js';
import { jsonBody } from '../middleware/body.js';
import { requireCaller } from '../middleware/session.js';
import { peerCertificates } from '../peer-certificates.js';
import { listParams } from './resource-routes.js';
import { objectSchema, STRING, type HandRoute, type RouteContext, type RouteDeps } from './route-table.js';

const BASE = '/current-identity/authenticators';
const authenticators = resourceOf('authenticators');

const update = (mode: 'replace' | 'patch') => async (ctx: RouteContext, { node }: RouteDeps) => {
  const caller = requireCaller(ctx);
  await node.command(authenticators, 'updateSelf', ctx.params.id, { identityId: caller.identityId, mode, body: jsonBody(ctx) ?? {} });
  sendEmpty(ctx);
};

const extend = (op: 'extendCert' | 'extendCertVerify') => async (ctx: RouteContext, { node }: RouteDeps) => {
  const caller = requireCaller(ctx);
  const reply = await node.identity(op, caller.identityId, {
    authenticatorId: ctx.params.id,
    body: jsonBody(ctx) ?? {},
    peerCerts: peerCertificates(ctx)?.pems ?? [],
  });
  if (op === 'extendCertVerify') sendEmpty(ctx);
  else sendData(ctx, reply);
};

const TAGS = { type: 'object', additionalProperties: true };

export const CURRENT_AUTHENTICATOR_ROUTES: readonly HandRoute[] = [
  {
    method: 'get', path: BASE, access: 'authenticated', operationId: 'listCurrentIdentityAuthenticators',
    summary: 'List authenticators for the current identity', query: ['filter', 'limit', 'offset'],
    handler: async (ctx, { node }) => {
      const parent = { kind: 'identities' as const, id: requireCaller(ctx).identityId };
      await sendList(ctx, node, { op: 'related', parent, kind: 'authenticators', params: listParams(ctx) });
    },
  },
  {
    method: 'get', path: `${BASE}/:id`, access: 'authenticated', operationId: 'detailCurrentIdentityAuthenticator',
    summary: 'Retrieve an authenticator for the current identity',
    handler: async (ctx, { node }) => {
      const wire = await node.query({ op: 'get', kind: 'authenticators', id: ctx.params.id });
      if (wire.identityId !== requireCaller(ctx).identityId) throw new ApiError('NOT_FOUND');
      sendData(ctx, wire);
    },
  },
  {
    method: 'put', path: `${BASE}/:id`, access: 'authenticated', operationId: 'updateCurrentIdentityAuthenticator',
    summary: 'Update all fields on an authenticator of this identity',
    body: objectSchema({ username: STRING, password: STRING, currentPassword: STRING, tags: TAGS }, ['username', 'password', 'currentPassword']),
    handler: update('replace'),
  },
  {
    method: 'patch', path: `${BASE}/:id`, access: 'authenticated', operationId: 'patchCurrentIdentityAuthenticator',
    summary: 'Update the supplied fields on an authenticator of this identity',
    body: objectSchema({ username: STRING, password: STRING, currentPassword: STRING, tags: TAGS }, ['currentPassword']),
    handler: update('patch'),
  },
  {
    method: 'post', path: `${BASE}/:id/extend`, access: 'authenticated', operationId: 'extendCurrentIdentityAuthenticator',
    summary: 'Allows the current identity to recieve a new certificate associated with a certificate based authenticator',
    body: objectSchema({ clientCertCsr: STRING }, ['clientCertCsr']), ok: { description: 'The new client certificate and its CA chain' },
    handler: extend('extendCert'),
  },
  {
    method: 'post', path: `${BASE}/:id/extend-verify`, access: 'authenticated', operationId: 'extendVerifyCurrentIdentityAuthenticator',
    summary: 'Allows the current identity to validate reciept of a new client certificate',
    body: objectSchema({ clientCert: STRING }, ['clientCert']),
    handler: extend('extendCertVerify'),
  },
];
