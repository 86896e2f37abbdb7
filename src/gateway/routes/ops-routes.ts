// Operating the node (admin only): data integrity check/fix/results, database snapshots and
// identity traces. All are node-local operations answered through the bus (`ops.*` queries).

import type Router from '@koa/router';
import type { Context } from 'koa';
import { sendData } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

export function addOpsRoutes(router: Router, node: NodeClient): void {
  const startIntegrity = (fix: boolean) => async (ctx: Context) => {
    requireAdmin(ctx);
    await node.query({ op: 'ops.integrityStart', fix });
    sendData(ctx, {}, {}, 202);
  };
  router.post('/database/check-data-integrity', startIntegrity(false));
  router.post('/database/fix-data-integrity', startIntegrity(true));
  router.get('/database/data-integrity-results', async (ctx) => {
    requireAdmin(ctx);
    const details = await node.query<{ results: unknown[] }>({ op: 'ops.integrityResults' });
    // Upstream reports these results unpaged, with limit -1.
    sendData(ctx, details, { pagination: { limit: -1, offset: 0, totalCount: details.results.length } });
  });
  router.post('/database/snapshot', async (ctx) => {
    requireAdmin(ctx);
    sendData(ctx, await node.query({ op: 'ops.snapshot' }));
  });
  router.put('/identities/:id/trace', async (ctx) => {
    requireAdmin(ctx);
    sendData(ctx, await node.query({ op: 'ops.trace', identityId: ctx.params.id, spec: jsonBody(ctx) ?? null }));
  });
}
