// The cluster's state and member removal (admin only; a Weft extension, not in OpenZiti's API):
// GET /cluster and POST /cluster/members/:id/drain, answered by this node (`cluster.*` queries).

import type Router from '@koa/router';
import { sendData } from '../envelope.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

export function addClusterRoutes(router: Router, node: NodeClient): void {
  router.get('/cluster', async (ctx) => {
    requireAdmin(ctx);
    sendData(ctx, await node.query({ op: 'cluster.status' }));
  });
  // The member stops owning shards at once (its peers take them over) and reports not ready,
  // so it can then be stopped without a write failing.
  router.post('/cluster/members/:id/drain', async (ctx) => {
    requireAdmin(ctx);
    sendData(ctx, await node.query({ op: 'cluster.drain', nodeId: ctx.params.id }), {}, 202);
  });
}
