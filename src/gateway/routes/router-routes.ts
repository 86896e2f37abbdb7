// Router operations beyond CRUD: edge router re-enrollment, `/transit-routers` (the same
// routers as `/routers`) and `/controllers` (the running nodes).

import type Router from '@koa/router';
import { resourceOf } from '../../domain/registry.js';
import { sendData, sendEmpty } from '../envelope.js';
import { requireAccess, requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';
import { addResourceRoutes } from './resource-routes.js';

export function addRouterRoutes(router: Router, node: NodeClient): void {
  const edgeRouters = resourceOf('edge-routers');
  router.post('/edge-routers/:id/re-enroll', async (ctx) => {
    requireAdmin(ctx);
    await node.command(edgeRouters, 'reEnroll', ctx.params.id);
    sendEmpty(ctx);
  });
  addResourceRoutes(router, node, resourceOf('routers'), 'transit-routers');
  router.get('/controllers', async (ctx) => {
    requireAccess(ctx, 'authenticated');
    const page = await node.query({ op: 'controllers' });
    sendData(ctx, page.data, page.meta);
  });
}
