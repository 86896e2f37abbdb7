// What happens after every HTTP request: one structured access-log line (info), the request
// and login metrics, and a trace line when the caller is traced. Receives only what the
// gateway reports: no bodies, headers, query strings or tokens ever reach it.

import { ApiError } from '../errors.js';
import type { RequestReport } from '../gateway/app.js';
import type { ErrorLogger } from '../gateway/middleware/errors.js';
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

/**
 * The log line of a request that was not served. A 5xx is a fault: an error line with the error
 * (its text and stack stay in the log, never in the answer). A 503 SERVICE_UNAVAILABLE is a
 * deliberate "try again" (NATS unreachable, the node starting or behind, too many unpaged lists):
 * a warning with its cause and no stack, since an outage makes one for every request. A 4xx is
 * the caller's: debug.
 */
export function createErrorLogger(log: Logger): ErrorLogger {
  return (entry) => {
    if (entry.status < 500) return log.debug('request refused', entry);
    if (entry.code !== 'SERVICE_UNAVAILABLE') return log.error('request failed', entry);
    const { error, ...rest } = entry;
    const cause = error instanceof ApiError ? error.apiCause : error instanceof Error ? { message: error.message } : undefined;
    log.warn('request not served now', { ...rest, cause });
  };
}
