// The error middleware, mounted first: the only place that writes an HTTP error body. Maps
// ApiErrors (and body-parser failures) to the upstream error envelope with the request id.

import type { Context, Next } from 'koa';
import { ApiError, toApiError } from '../../errors.js';
import { API_META, sendJson } from '../envelope.js';

const UNHANDLED_MESSAGE = new ApiError('UNHANDLED').message;

export interface ErrorLogger {
  (entry: { requestId: string; code: string; status: number; method: string; path: string; error?: unknown }): void;
}

export function errorMiddleware(log: ErrorLogger) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError('NOT_FOUND');
    } catch (err) {
      const apiError = classify(err);
      const requestId = String(ctx.state.requestId ?? '');
      log({
        requestId,
        code: apiError.code,
        status: apiError.status,
        method: ctx.method,
        path: ctx.path,
        error: apiError.status >= 500 ? err : undefined,
      });
      ctx.state.error = { code: apiError.code, cause: apiError.apiCause };
      if (apiError.status === 401) ctx.set('WWW-Authenticate', wwwAuthenticate(ctx));
      if (apiError.status === 429) ctx.set('Retry-After', String(retryAfterSeconds(apiError)));
      if (apiError.status === 503) ctx.set('Retry-After', '1');
      if (acceptsOnlyPem(ctx)) {
        ctx.status = 406;
        ctx.body = '';
        return;
      }
      const error: Record<string, unknown> = { code: apiError.code, message: apiError.message, requestId };
      // An unhandled fault's text stays in the log (under the request id), never in the answer.
      if (apiError.code === 'UNHANDLED') error.message = UNHANDLED_MESSAGE;
      else if (apiError.apiCause !== undefined) error.cause = apiError.apiCause;
      if (apiError.code === 'COULD_NOT_VALIDATE' && apiError.apiCause && 'field' in apiError.apiCause) {
        error.causeMessage = String((apiError.apiCause as { reason?: unknown }).reason ?? '');
      }
      sendJson(ctx, apiError.status, { error, meta: API_META });
    }
  };
}

/** Failures of Koa and its parts that carry an HTTP status; everything else is rebuilt by code. */
function classify(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const status = (err as { status?: number; statusCode?: number })?.status ?? (err as { statusCode?: number })?.statusCode;
  if (status === 413) return new ApiError('REQUEST_ENTITY_TOO_LARGE');
  if (status === 400 || status === 415) {
    return new ApiError('COULD_NOT_PARSE_BODY', { code: 'UNHANDLED', message: (err as Error).message });
  }
  // @koa/router answers a method it does not implement at all (TRACE, PROPFIND, ...) with 501;
  // upstream answers any method a path does not serve with 405.
  if (status === 405 || status === 501) return new ApiError('METHOD_NOT_ALLOWED');
  return toApiError(err);
}

/** Seconds a 429 asks the client to wait: the cause's `retryAfterSeconds` when given, else 1. */
function retryAfterSeconds(error: ApiError): number {
  const hinted = (error.apiCause as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof hinted === 'number' && Number.isFinite(hinted) && hinted >= 1 ? Math.ceil(hinted) : 1;
}

function wwwAuthenticate(ctx: Context): string {
  const state = ctx.get('zt-session') ? 'invalid' : 'missing';
  return (
    `zt-session realm="zt-session" error="${state}" error_description="zt-session token is ${state}", ` +
    `Bearer realm="openziti-oidc" error="missing" error_description="no bearer tokens found"`
  );
}

function acceptsOnlyPem(ctx: Context): boolean {
  const accept = ctx.get('accept');
  return accept !== '' && accept.includes('application/x-pem-file') && !accept.includes('json') && !accept.includes('*/*');
}
