// List answers: a page as one `{data, meta}`, or an unpaged list (`limit=-1`, `limit none`)
// streamed chunk by chunk from a query-side cursor, never built whole in memory.

import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { MAX_LIMIT } from '../domain/paging.js';
import { DATA_STREAM_HEAD, PAGE_HEAD, dataStreamTail, sendData, sendDataStream, sendPageJson } from './envelope.js';
import type { NodeClient } from './node-client.js';
import type { ListCursorReply, ListReply, QueryRequest, StreamableOp } from '../protocol/v1/query-messages.js';

type Wire = Record<string, unknown>;

/** What a route shows of one list item (undefined: the item is left out). */
export type MapItem = (item: Wire) => Wire | undefined;

/** Answers a list query (any op that may stream): a page as it is, an unpaged list as a stream
 * whose bytes are what sendData would have written for the whole list. `map`, when given, is
 * applied to every item of either. */
export async function sendList(ctx: Context, node: NodeClient, msg: Extract<QueryRequest, { op: StreamableOp }>, map?: MapItem): Promise<void> {
  const asked = { ...msg, stream: true as const };
  if (map) {
    const reply = await node.query(asked);
    if (!('cursor' in reply)) return sendData(ctx, mapItems(reply.data as Wire[], map), reply.meta);
    return sendDataStream(ctx, new ListBody(node, reply, map));
  }
  // A page is written as the query handler serialised it: its items are neither copied on the
  // way (the bus hands the text through) nor serialised again here.
  const text = await node.queryJson(asked);
  if (text.startsWith(PAGE_HEAD)) return sendPageJson(ctx, text);
  const reply = JSON.parse(text) as ListReply | ListCursorReply;
  if (!('cursor' in reply)) return sendData(ctx, reply.data, reply.meta);
  sendDataStream(ctx, new ListBody(node, reply));
}

function mapItems(items: Wire[], map: MapItem): Wire[] {
  return items.map(map).filter((item): item is Wire => item !== undefined);
}

/** A chunk's items (JSON text, comma-separated) with `map` applied, as JSON text again. */
function mapChunk(items: string, map: MapItem): string {
  if (items === '') return '';
  return mapItems(JSON.parse(`[${items}]`) as Wire[], map).map((item) => JSON.stringify(item)).join(',');
}

/** Pulls chunks as the response is read; a client that goes away closes the cursor. */
class ListBody extends Readable {
  private started = false;
  private first = true;
  private finished = false;

  constructor(
    private readonly node: NodeClient,
    private readonly opened: ListCursorReply,
    private readonly mapItem?: MapItem,
  ) {
    super();
  }

  override _read(): void {
    this.pull().catch((err: unknown) => this.destroy(err as Error));
  }

  /** Pushes at least one piece (slices that found no item are pulled again at once). */
  private async pull(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.push(DATA_STREAM_HEAD);
      return;
    }
    for (;;) {
      const chunk = await this.node.query({ op: 'listNext', cursor: this.opened.cursor });
      const text = this.mapItem ? mapChunk(chunk.items, this.mapItem) : chunk.items;
      const items = text === '' ? '' : `${this.first ? '' : ','}${text}`;
      if (items) this.first = false;
      if (chunk.done) {
        this.finished = true;
        const { meta } = this.opened;
        this.push(items + dataStreamTail({ ...meta, pagination: { ...meta.pagination, totalCount: chunk.total } }));
        this.push(null);
        return;
      }
      if (items) {
        this.push(items);
        return;
      }
    }
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    if (!this.finished) this.node.query({ op: 'listClose', cursor: this.opened.cursor }).catch(() => undefined);
    done(err);
  }
}

/** A list or related-list query; its paging is set by readPages. */
export type PagedQuery = Extract<QueryRequest, { op: 'list' | 'related' }>;

/** The first `end` items of a list or related list (all of them by default), read in pages of
 * MAX_LIMIT, with its total and filterable fields. A filter's own `limit` or `skip` wins over the
 * parameters: a short page ends the read too. For pages merged on the gateway (the fabric's
 * routers); their unpaged answers stream (item-stream.ts). */
export async function readPages(node: NodeClient, msg: PagedQuery, end = Infinity): Promise<{ items: Wire[]; total: number; filterableFields: unknown }> {
  const items: Wire[] = [];
  for (;;) {
    const want = Math.min(MAX_LIMIT, end - items.length);
    const page = await node.query({ ...msg, params: { ...msg.params, limit: String(want), offset: String(items.length) } });
    const data = page.data as Wire[];
    items.push(...data);
    const total = Number((page.meta.pagination as Wire | undefined)?.totalCount ?? 0);
    if (data.length < want || items.length >= Math.min(end, total)) return { items, total, filterableFields: page.meta.filterableFields ?? [] };
  }
}
