// Identity operations beyond CRUD: disable / enable and the policy advisor.

import type Router from '@koa/router';
import { sendData, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

export function addIdentityRoutes(router: Router, node: NodeClient): void {
  router.post('/identities/:id/disable', async (ctx) => {
    requireAdmin(ctx);
    await node.identity('disable', ctx.params.id, { body: jsonBody(ctx) ?? {} });
    sendEmpty(ctx);
  });
  router.post('/identities/:id/enable', async (ctx) => {
    requireAdmin(ctx);
    await node.identity('enable', ctx.params.id);
    sendEmpty(ctx);
  });
  router.get('/identities/:id/policy-advice/:serviceId', async (ctx) => {
    requireAdmin(ctx);
    sendData(ctx, await node.query({ op: 'policyAdvice', identityId: ctx.params.id, serviceId: ctx.params.serviceId }));
  });
}
