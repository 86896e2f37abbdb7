// Posture check routes beyond the derived CRUD: the fixed check types.

import type Router from '@koa/router';
import { sendData } from '../envelope.js';
import { requireAdmin } from '../middleware/session.js';
import type { ListReply } from '../../protocol/v1/query-messages.js';
import type { NodeClient } from '../node-client.js';
import { listParams } from './resource-routes.js';

export function addPostureCheckRoutes(router: Router, node: NodeClient): void {
  router.get('/posture-check-types', async (ctx) => {
    requireAdmin(ctx);
    const page = (await node.query({ op: 'postureCheckTypes', params: listParams(ctx) })) as ListReply;
    sendData(ctx, page.data, page.meta);
  });
  router.get('/posture-check-types/:id', async (ctx) => {
    requireAdmin(ctx);
    sendData(ctx, await node.query({ op: 'postureCheckTypes', id: ctx.params.id }));
  });
}
