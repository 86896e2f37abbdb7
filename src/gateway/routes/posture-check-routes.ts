// Posture check routes beyond the derived CRUD: the fixed check types, and the mission's 403
// for a non-admin deleting a posture check. Mounted before the resource routes.

import type Router from '@koa/router';
import { ApiError } from '../../errors.js';
import { sendData } from '../envelope.js';
import { requireAdmin, requireCaller } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';
import { listParams, type ListReply } from './resource-routes.js';

export function addPostureCheckRoutes(router: Router, node: NodeClient): void {
  // BEHAVIOR.md "Where Weft deliberately differs": a valid non-admin session gets 403 here
  // (upstream 401). No session stays 401; admins fall through to the derived delete route.
  router.delete('/posture-checks/:id', async (ctx, next) => {
    if (!requireCaller(ctx).isAdmin) throw new ApiError('FORBIDDEN');
    await next();
  });
  router.get('/posture-check-types', async (ctx) => {
    requireAdmin(ctx);
    const page = await node.query<ListReply>({ op: 'postureCheckTypes', params: listParams(ctx) });
    sendData(ctx, page.data, page.meta);
  });
  router.get('/posture-check-types/:id', async (ctx) => {
    requireAdmin(ctx);
    sendData(ctx, await node.query({ op: 'postureCheckTypes', id: ctx.params.id }));
  });
}
