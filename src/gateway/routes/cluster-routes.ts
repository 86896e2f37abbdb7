// The cluster's state and member removal (admin only; a Weft extension, not in OpenZiti's API):
// GET /cluster and POST /cluster/members/:id/drain, answered by this node (`cluster.*` queries).

import { sendData } from '../envelope.js';
import type { HandRoute } from './route-table.js';

export const CLUSTER_ROUTES: readonly HandRoute[] = [
  {
    method: 'get', path: '/cluster', access: 'admin', operationId: 'detailCluster', summary: "The cluster's members, their state and the shards each owns",
    handler: async (ctx, { node }) => sendData(ctx, await node.query({ op: 'cluster.status' })),
  },
  {
    // The member stops owning shards at once (its peers take them over) and reports not ready,
    // so it can then be stopped without a write failing.
    method: 'post', path: '/cluster/members/:id/drain', access: 'admin', operationId: 'drainClusterMember',
    summary: 'Moves every shard off a member so that it can be stopped',
    ok: { status: 202, description: 'The member is draining' },
    handler: async (ctx, { node }) => sendData(ctx, await node.query({ op: 'cluster.drain', nodeId: ctx.params.id }), {}, 202),
  },
];
