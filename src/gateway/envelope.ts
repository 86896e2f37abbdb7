// The wire envelope: `{data, meta}` for successes and `{error, meta}` for failures, with the
// API versions in meta. The one place response bodies are serialised.

import type { Readable } from 'node:stream';
import type { Context } from 'koa';
import { NO_LIMIT_REPORTED } from '../domain/paging.js';

export const API_META = { apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1' } as const;

/** What `ctx.type = 'application/json'` sets, without the MIME lookup on every response. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes `{data, meta}`; `meta` extends the API versions (pagination, filterableFields). */
export function sendData(ctx: Context, data: unknown, meta: Record<string, unknown> = {}, status = 200): void {
  sendJson(ctx, status, { data, meta: { ...API_META, ...meta } });
}

/** The envelope's `meta` without pagination, serialised once. */
const API_META_JSON = JSON.stringify(API_META);

/** `{data, meta}` where data is JSON text already (a read answered as text by the query handler). */
export function sendDataJson(ctx: Context, dataJson: string): void {
  ctx.status = 200;
  ctx.set('content-type', JSON_TYPE);
  ctx.body = `{"data":${dataJson},"meta":${API_META_JSON}}`;
}

/** What a page answered as JSON text by the query handler starts with, and its meta's key. */
export const PAGE_HEAD = '{"data":';
const META_KEY = ',"meta":{';
/** The API versions as the first keys of an object (its text without the braces). */
const API_META_KEYS = API_META_JSON.slice(1, -1);

/**
 * `{data, meta}` from the JSON text of a page answer (`{"data":…,"meta":{…}}`, meta last, as
 * the query handler writes it), the API versions put first into its meta: the bytes sendData
 * writes for the parsed answer, without parsing its items and writing them again.
 */
export function sendPageJson(ctx: Context, answer: string): void {
  // The envelope's meta is the last key, and its own fields (filterableFields, pagination)
  // hold no `"meta":{`: the last one is the envelope's, whatever the items hold.
  const at = answer.lastIndexOf(META_KEY);
  if (!answer.startsWith(PAGE_HEAD) || at < 0 || !answer.endsWith('}}')) throw new Error('not a page answer');
  const head = answer.slice(0, at + META_KEY.length);
  const rest = answer.slice(at + META_KEY.length);
  ctx.status = 200;
  ctx.set('content-type', JSON_TYPE);
  ctx.body = withNoLimit(`${head}${API_META_KEYS}${rest === '}}' ? '' : ','}${rest}`);
}

/** 201 with `{id, _links}` for a created entity. */
export function sendCreated(ctx: Context, kind: string, id: string): void {
  sendData(ctx, { id, _links: { self: { href: `./${kind}/${encodeURIComponent(id)}` } } }, {}, 201);
}

/** 200 `{data:{}, meta}` after replace, patch and delete. */
export function sendEmpty(ctx: Context): void {
  sendData(ctx, {});
}

export function sendJson(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.set('content-type', JSON_TYPE);
  ctx.body = withNoLimit(JSON.stringify(body));
}

/** A JS number cannot carry 9223372036854775807 exactly; upstream reports it for "no limit". */
function withNoLimit(json: string): string {
  return json.replace(`"limit":"${NO_LIMIT_REPORTED}"`, `"limit":${NO_LIMIT_REPORTED}`);
}

/** The text a streamed `{data, meta}` starts with; items follow, comma-separated. */
export const DATA_STREAM_HEAD = '{"data":[';

/** The text a streamed `{data, meta}` ends with: what sendData writes after the last item. */
export function dataStreamTail(meta: Record<string, unknown>): string {
  return `],"meta":${withNoLimit(JSON.stringify({ ...API_META, ...meta }))}}`;
}

/** 200 with `{data, meta}` written by a stream (DATA_STREAM_HEAD, items, dataStreamTail). */
export function sendDataStream(ctx: Context, body: Readable): void {
  ctx.status = 200;
  ctx.set('content-type', JSON_TYPE);
  ctx.body = body;
}
