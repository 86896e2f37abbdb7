// Request bodies of POST, PUT, PATCH and DELETE: JSON (and text for PEM uploads) up to 1 MiB,
// after any gzip/deflate Content-Encoding is undone; over that is 413. A body with another content
// type or encoding is refused with 415 before it is read, and JSON nested deeper than the cap is
// refused before it is parsed (nothing downstream then recurses deeper than that).

import { createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { Context, Next } from 'koa';
import { ApiError } from '../../errors.js';

/** The largest body, before and after decompression (bytes). */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** The deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 64;

const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// PEM uploads (CSRs, certificates) arrive as text under these types too.
const TEXT_TYPES = ['text/*', 'application/x-pem-file', 'application/pkcs10'];

export function bodyMiddleware(ctx: Context, next: Next): Promise<void> {
  // A bodiless read takes no async step of its own; a GET body is read only by the route that
  // accepts one (routeBodyMiddleware).
  if (!PARSED_METHODS.has(ctx.method)) return next();
  return parseBody(ctx, next, hasBody(ctx));
}

/** The same reading for one route whose method the app-wide middleware skips (a GET upstream
 * accepts a body on: the MFA recovery codes). */
export function routeBodyMiddleware(ctx: Context, next: Next): Promise<void> {
  return parseBody(ctx, next, hasBody(ctx));
}

function hasBody(ctx: Context): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
}

async function parseBody(ctx: Context, next: Next, hasBody: boolean): Promise<void> {
  const request = ctx.request as unknown as { body?: unknown };
  if (!hasBody) {
    request.body = {};
    return next();
  }
  if (Number(ctx.get('content-length') || 0) > BODY_LIMIT_BYTES) throw new ApiError('REQUEST_ENTITY_TOO_LARGE');
  const json = isJsonType(ctx);
  if (!json && !ctx.is(TEXT_TYPES)) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
      code: 'UNHANDLED',
      message: `unsupported content type ${JSON.stringify(ctx.get('content-type'))}: send application/json`,
    });
  }
  const text = await readText(ctx);
  request.body = json ? (text.trim() === '' ? {} : parseJsonText(text)) : text;
  await next();
}

/** A JSON content type; `application/json` with or without parameters is told without a MIME parse. */
function isJsonType(ctx: Context): boolean {
  const type = ctx.get('content-type');
  return type === 'application/json' || type.startsWith('application/json;') || Boolean(ctx.is('json'));
}

/** The body as UTF-8 text, decompressed per Content-Encoding, within BODY_LIMIT_BYTES. */
async function readText(ctx: Context): Promise<string> {
  const encoding = ctx.get('content-encoding').trim().toLowerCase() || 'identity';
  let source: Readable = ctx.req;
  if (encoding === 'gzip' || encoding === 'x-gzip') source = ctx.req.pipe(createGunzip());
  else if (encoding === 'deflate') source = ctx.req.pipe(createInflate());
  else if (encoding !== 'identity') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
      code: 'UNHANDLED',
      message: `unsupported content encoding ${JSON.stringify(encoding)}: send gzip, deflate or identity`,
    });
  }
  try {
    return (await collect(source)).toString('utf8');
  } catch (err) {
    if (err instanceof ApiError || source === ctx.req) throw err;
    throw new ApiError('COULD_NOT_PARSE_BODY', { code: 'UNHANDLED', message: `the body is not valid ${encoding} data` });
  } finally {
    if (source !== ctx.req) {
      ctx.req.unpipe(source as unknown as NodeJS.WritableStream);
      source.destroy();
      // A decoder that failed midway leaves the rest of the body unread: read and drop it, so
      // that the answer goes out and the connection stays usable (unread data would make the
      // socket's close a reset, and block the next request of a keep-alive connection).
      if (!ctx.req.complete) ctx.req.resume();
    }
  }
}

/** Reads a stream up to BODY_LIMIT_BYTES. Over the limit it stops reading but leaves the request
 * open (Node discards the rest after the answer), so the client still gets its 413. */
function collect(source: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (err: unknown, body?: Buffer) => {
      source.off('data', onData);
      source.off('end', onEnd);
      // The error listener stays: a decoder may report more than one error, and an unheard one
      // would be thrown.
      if (err) reject(err);
      else resolve(body!);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT_BYTES) chunks.push(chunk);
      else {
        source.pause();
        finish(new ApiError('REQUEST_ENTITY_TOO_LARGE'));
      }
    };
    const onEnd = () => finish(undefined, Buffer.concat(chunks));
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', finish);
  });
}

/** Parses JSON text after checking its nesting depth; both failures are 400 COULD_NOT_PARSE_BODY. */
export function parseJsonText(text: string): unknown {
  const depth = jsonDepth(text, MAX_JSON_DEPTH);
  if (depth > MAX_JSON_DEPTH) {
    throw new ApiError('COULD_NOT_PARSE_BODY', {
      code: 'UNHANDLED',
      message: `JSON nested more than ${MAX_JSON_DEPTH} levels deep (the cap is ${MAX_JSON_DEPTH})`,
    });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError('COULD_NOT_PARSE_BODY', { code: 'UNHANDLED', message: (err as Error).message });
  }
}

/**
 * The deepest array/object nesting in JSON text, counted by one linear scan that skips strings;
 * stops as soon as it exceeds `cap`. Malformed text gets a number too (the parser refuses it).
 */
export function jsonDepth(text: string, cap: number): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > deepest && (deepest = depth) > cap) return deepest;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return deepest;
}

/** The parsed JSON body (an empty body reads as undefined). A text body is not JSON: 415; a JSON
 * body that is a string (`"x"`) is returned as it is, for the route's validation to refuse. */
export function jsonBody(ctx: Context): unknown {
  const body = (ctx.request as unknown as { body?: unknown }).body;
  if (typeof body === 'string' && !isJsonType(ctx)) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
      code: 'UNHANDLED',
      message: `unsupported content type ${JSON.stringify(ctx.get('content-type'))}: send application/json`,
    });
  }
  if (body && typeof body === 'object' && Object.keys(body).length === 0 && !ctx.get('content-length')) return undefined;
  return body;
}
