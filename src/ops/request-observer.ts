// What happens after every HTTP request: one structured access-log line (info), the request
// and login metrics, and a trace line when the caller is traced. Receives only what the
// gateway reports: no bodies, headers, query strings or tokens ever reach it.

import type { RequestReport } from '../gateway/app.js';
import type { Logger } from '../logger.js';
import { loginFailureReason, type NodeMetrics } from './node-metrics.js';
import { TRACE_API, type TraceRegistry } from './trace-registry.js';

/** One finished request as the gateway reports it. */
export type RequestEntry = RequestReport;

export interface RequestObserverDeps {
  log: Logger;
  metrics: NodeMetrics;
  traces: TraceRegistry;
}

export function createRequestObserver({ log, metrics, traces }: RequestObserverDeps): (entry: RequestEntry) => void {
  return (entry) => {
    const route = entry.route ?? 'unmatched';
    const ms = Math.round(entry.ms * 10) / 10;
    metrics.observeRequest(entry.method, route, entry.status, entry.ms / 1000);
    if (entry.method === 'POST' && route.endsWith('/authenticate')) {
      metrics.observeLogin(entry.loginMethod, entry.status, loginFailureReason(entry.errorCode, entry.errorCause));
    }
    const traceId = traces.isTraced(entry.identityId, TRACE_API);
    // Built field by field: conditional spreads cost more than the rest of the line.
    const fields: Record<string, unknown> = { requestId: entry.requestId, method: entry.method, route, status: entry.status, ms };
    if (entry.identityId) fields.identityId = entry.identityId;
    if (entry.errorCode) fields.code = entry.errorCode;
    if (traceId) fields.traceId = traceId;
    log.info('request', fields);
    if (traceId) {
      traces.trace(entry.identityId, TRACE_API, 'trace request', {
        requestId: entry.requestId, method: entry.method, path: entry.path, route, status: entry.status, ms, code: entry.errorCode,
      });
    }
  };
}
