// Operating the node (admin only): data integrity check/fix/results, database snapshots and
// identity traces. All are node-local operations answered through the bus (`ops.*` queries).

import { sendData } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { objectSchema, STRING, type HandRoute, type RouteContext, type RouteDeps } from './route-table.js';

const ZERO_TIME = '0001-01-01T00:00:00.000Z';
/** How long POST /database/snapshot waits for the copy: it answers once the snapshot is
 * written, as upstream does, and a million identities take longer than a read's 10 s. */
export const SNAPSHOT_TIMEOUT_MS = 30 * 60_000;

const startIntegrity = (fix: boolean) => async (ctx: RouteContext, { node }: RouteDeps) => {
  await node.query({ op: 'ops.integrityStart', fix });
  sendData(ctx, {}, {}, 202);
};
const STARTED = { status: 202, description: 'The integrity check has started; its results are read with GET /database/data-integrity-results' };

export const OPS_ROUTES: readonly HandRoute[] = [
  {
    method: 'post', path: '/database/check-data-integrity', access: 'admin', operationId: 'checkDataIntegrity',
    summary: 'Starts a data integrity scan on the datastore', ok: STARTED, handler: startIntegrity(false),
  },
  {
    method: 'post', path: '/database/fix-data-integrity', access: 'admin', operationId: 'fixDataIntegrity',
    summary: 'Runs a data integrity scan on the datastore, attempts to fix any issues it can and returns any found issues', ok: STARTED, handler: startIntegrity(true),
  },
  {
    method: 'get', path: '/database/data-integrity-results', access: 'admin', operationId: 'dataIntegrityResults',
    summary: 'Returns any results found from in-progress integrity checks',
    handler: async (ctx, { node }) => {
      const details = await node.query({ op: 'ops.integrityResults' });
      // The spec has strings: a run not started or not finished reports Go's zero time, no error ''.
      const wire = { ...details, startTime: details.startTime ?? ZERO_TIME, endTime: details.endTime ?? ZERO_TIME, error: details.error ?? '' };
      // Upstream reports these results unpaged, with limit -1.
      sendData(ctx, wire, { pagination: { limit: -1, offset: 0, totalCount: details.results.length } });
    },
  },
  {
    method: 'post', path: '/database/snapshot', access: 'admin', operationId: 'createDatabaseSnapshot', summary: 'Create a new database snapshot',
    ok: { description: 'The snapshot has been written' },
    handler: async (ctx, { node }) => sendData(ctx, await node.query({ op: 'ops.snapshot' }, { timeoutMs: SNAPSHOT_TIMEOUT_MS })),
  },
  {
    method: 'put', path: '/identities/:id/trace', access: 'admin', operationId: 'updateIdentityTracing', summary: 'Enable/disable data flow tracing for an identity',
    body: objectSchema({ enabled: { type: 'boolean' }, duration: STRING, traceId: STRING, channels: { type: 'array', items: STRING } }),
    handler: async (ctx, { node }) => sendData(ctx, await node.query({ op: 'ops.trace', identityId: ctx.params.id, spec: jsonBody(ctx) ?? null })),
  },
];
