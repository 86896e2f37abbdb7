// The caller's own authenticators (both APIs): list and detail, updb changes that need the
// current password, and certificate extension over mutual TLS (extend, then extend-verify).

import type { Context } from 'koa';
import type Router from '@koa/router';
import { resourceOf } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { sendData, sendEmpty } from '../envelope.js';
import { sendList } from '../list-answer.js';
import { jsonBody } from '../middleware/body.js';
import { requireCaller } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';
import { peerCertificates } from '../peer-certificates.js';
import { listParams } from './resource-routes.js';

const BASE = '/current-identity/authenticators';

export function addCurrentAuthenticatorRoutes(router: Router, node: NodeClient): void {
  const authenticators = resourceOf('authenticators');
  router.get(BASE, async (ctx) => {
    const caller = requireCaller(ctx);
    const parent = { kind: 'identities', id: caller.identityId };
    await sendList(ctx, node, { op: 'related', parent, kind: 'authenticators', params: listParams(ctx) });
  });
  router.get(`${BASE}/:id`, async (ctx) => {
    const caller = requireCaller(ctx);
    const wire = await node.query({ op: 'get', kind: 'authenticators', id: ctx.params.id });
    if (wire.identityId !== caller.identityId) throw new ApiError('NOT_FOUND');
    sendData(ctx, wire);
  });
  const update = (mode: 'replace' | 'patch') => async (ctx: Context & { params: Record<string, string> }) => {
    const caller = requireCaller(ctx);
    await node.command(authenticators, 'updateSelf', ctx.params.id, { identityId: caller.identityId, mode, body: jsonBody(ctx) ?? {} });
    sendEmpty(ctx);
  };
  router.put(`${BASE}/:id`, update('replace'));
  router.patch(`${BASE}/:id`, update('patch'));
  const extend = (op: 'extendCert' | 'extendCertVerify') => async (ctx: Context & { params: Record<string, string> }) => {
    const caller = requireCaller(ctx);
    const reply = await node.identity(op, caller.identityId, {
      authenticatorId: ctx.params.id,
      body: jsonBody(ctx) ?? {},
      peerCerts: peerCertificates(ctx)?.pems ?? [],
    });
    if (op === 'extendCertVerify') sendEmpty(ctx);
    else sendData(ctx, reply);
  };
  router.post(`${BASE}/:id/extend`, extend('extendCert'));
  router.post(`${BASE}/:id/extend-verify`, extend('extendCertVerify'));
}
