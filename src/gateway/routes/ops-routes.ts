// Operating the node (admin only): data integrity check/fix/results, database snapshots and
// identity traces. All are node-local operations answered through the bus (`ops.*` queries).

import type Router from '@koa/router';
import type { Context } from 'koa';
import { sendData } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

const ZERO_TIME = '0001-01-01T00:00:00.000Z';
/** How long POST /database/snapshot waits for the copy: it answers once the snapshot is
 * written, as upstream does, and a million identities take longer than a read's 10 s. */
export const SNAPSHOT_TIMEOUT_MS = 30 * 60_000;

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
    const details = await node.query({ op: 'ops.integrityResults' });
    // The spec has strings: a run not started or not finished reports Go's zero time, no error ''.
    const wire = { ...details, startTime: details.startTime ?? ZERO_TIME, endTime: details.endTime ?? ZERO_TIME, error: details.error ?? '' };
    // Upstream reports these results unpaged, with limit -1.
    sendData(ctx, wire, { pagination: { limit: -1, offset: 0, totalCount: details.results.length } });
  });
  router.post('/database/snapshot', async (ctx) => {
    requireAdmin(ctx);
    sendData(ctx, await node.query({ op: 'ops.snapshot' }, { timeoutMs: SNAPSHOT_TIMEOUT_MS }));
  });
  router.put('/identities/:id/trace', async (ctx) => {
    requireAdmin(ctx);
    sendData(ctx, await node.query({ op: 'ops.trace', identityId: ctx.params.id, spec: jsonBody(ctx) ?? null }));
  });
}
