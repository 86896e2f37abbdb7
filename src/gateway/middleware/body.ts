// Request bodies: JSON (and text for PEM uploads) parsed by koa-body up to 1 MiB; over that is
// 413. A body with another content type is refused before anything is read.

import type { Context, Next } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { ApiError } from '../../errors.js';

export const BODY_LIMIT = '1mb';

const parse = koaBody({
  json: true,
  text: true,
  urlencoded: false,
  multipart: false,
  jsonStrict: false,
  jsonLimit: BODY_LIMIT,
  textLimit: BODY_LIMIT,
  // PEM uploads (CSRs, certificates) arrive as text under these types too.
  textTypes: ['text/*', 'application/x-pem-file', 'application/pkcs10'],
  parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
});

export function bodyMiddleware(ctx: Context, next: Next): Promise<void> {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  // koa-body parses only POST, PUT, PATCH and DELETE; a bodiless read skips it altogether (and
  // takes no async step of its own).
  if (!hasBody && (ctx.method === 'GET' || ctx.method === 'HEAD')) return next();
  return parseBody(ctx, next, hasBody);
}

async function parseBody(ctx: Context, next: Next, hasBody: boolean): Promise<void> {
  if (hasBody && Number(ctx.get('content-length') || 0) > 1024 * 1024) throw new ApiError('REQUEST_ENTITY_TOO_LARGE');
  if (hasBody && !isPlainJson(ctx.get('content-type')) && !ctx.is('json', 'text/*', 'application/x-pem-file', 'application/pkcs10')) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
      code: 'UNHANDLED',
      message: `unsupported content type ${JSON.stringify(ctx.get('content-type'))}: send application/json`,
    });
  }
  await parse(ctx, next);
}

/** `application/json` with or without parameters: the common case, told without a MIME parse. */
function isPlainJson(type: string): boolean {
  return type === 'application/json' || type.startsWith('application/json;');
}

/** The parsed JSON body (an empty body reads as undefined). */
export function jsonBody(ctx: Context): unknown {
  const body = (ctx.request as unknown as { body?: unknown }).body;
  if (typeof body === 'string') {
    if (body.trim() === '') return undefined;
    try {
      return JSON.parse(body);
    } catch (err) {
      throw new ApiError('COULD_NOT_PARSE_BODY', { code: 'UNHANDLED', message: (err as Error).message });
    }
  }
  if (body && typeof body === 'object' && Object.keys(body).length === 0 && !ctx.get('content-length')) return undefined;
  return body;
}
