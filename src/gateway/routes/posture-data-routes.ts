// Management views of an identity's volatile posture state, answered by its identity actor:
// `/identities/{id}/posture-data` and `/identities/{id}/failed-service-requests` (last 50).

import type Router from '@koa/router';
import { sendData } from '../envelope.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

export function addPostureDataRoutes(router: Router, node: NodeClient): void {
  router.get('/identities/:id/posture-data', async (ctx) => {
    requireAdmin(ctx);
    sendData(ctx, await node.identity('postureData', ctx.params.id));
  });
  router.get('/identities/:id/failed-service-requests', async (ctx) => {
    requireAdmin(ctx);
    sendData(ctx, await node.identity('failedServiceRequests', ctx.params.id));
  });
}
