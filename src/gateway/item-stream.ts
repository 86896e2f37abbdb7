// Unpaged answers the gateway shapes itself (lists merged, filtered or mapped here): the items of
// a list query read chunk by chunk from its cursor, two such lists merged in order, and the
// streamed `{data, meta}` body written from them. Never holds a whole list.

import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { DATA_STREAM_HEAD, sendDataStream } from './envelope.js';
import type { NodeClient } from './node-client.js';
import type { QueryRequest, StreamableOp } from '../protocol/v1/query-messages.js';

type Wire = Record<string, unknown>;

/** A list query that may answer a cursor. */
export type StreamQuery = Extract<QueryRequest, { op: StreamableOp }>;

/** An opened list: its items in batches (as the cursor's chunks come), its meta, and the count
 * of matches once the batches are done. */
export interface OpenedList {
  batches: AsyncGenerator<Wire[], void, undefined>;
  meta: Record<string, unknown>;
  /** Every match (the cursor's total); set once `batches` is done. */
  total(): number;
  /** Closes the cursor unless it is done (batches returned early do it themselves). */
  close(): void;
}

/** Asks for an unpaged list; an error in the query (400 on a filter) is thrown here, before any
 * answer starts. A query that answers a page (a filter's own `limit`) yields that page. */
export async function openList(node: NodeClient, msg: StreamQuery): Promise<OpenedList> {
  const reply = await node.query({ ...msg, stream: true as const });
  if (!('cursor' in reply)) {
    const data = reply.data as Wire[];
    const total = Number((reply.meta.pagination as Wire | undefined)?.totalCount ?? data.length);
    return { batches: (async function* () { if (data.length > 0) yield data; })(), meta: reply.meta, total: () => total, close: () => undefined };
  }
  const { cursor } = reply;
  let total = 0;
  let done = false;
  const close = () => {
    if (done) return;
    done = true;
    node.query({ op: 'listClose', cursor }).catch(() => undefined);
  };
  async function* batches(): AsyncGenerator<Wire[], void, undefined> {
    try {
      while (!done) {
        const chunk = await node.query({ op: 'listNext', cursor });
        done = chunk.done;
        total = chunk.total;
        if (chunk.items !== '') yield JSON.parse(`[${chunk.items}]`) as Wire[];
      }
    } finally {
      // The answer ended early (the client went away): the cursor's iterators close now.
      close();
    }
  }
  return { batches: batches(), meta: reply.meta, total: () => total, close };
}

/** Opens several lists at once; if one is refused, the others are closed and its error thrown. */
export async function openLists(node: NodeClient, msgs: StreamQuery[]): Promise<OpenedList[]> {
  const opened = await Promise.allSettled(msgs.map((msg) => openList(node, msg)));
  const refused = opened.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (!refused) return opened.map((r) => (r as PromiseFulfilledResult<OpenedList>).value);
  for (const r of opened) if (r.status === 'fulfilled') r.value.close();
  throw refused.reason;
}

/** The items of several lists, each in `order` already, as one list in that order (on a tie,
 * the earlier list's item first: what a stable sort of the lists put end to end gives). */
export async function* mergeInOrder(lists: AsyncIterator<Wire[]>[], order: (a: Wire, b: Wire) => number): AsyncGenerator<Wire[], void, undefined> {
  const heads = lists.map(() => ({ items: [] as Wire[], at: 0, done: false }));
  const refill = async (i: number) => {
    const head = heads[i];
    while (!head.done && head.at >= head.items.length) {
      const step = await lists[i].next();
      if (step.done) head.done = true;
      else [head.items, head.at] = [step.value, 0];
    }
  };
  try {
    for (;;) {
      for (let i = 0; i < heads.length; i++) await refill(i);
      const live = heads.filter((h) => !h.done);
      if (live.length === 0) return;
      // Take items while every live list still has one in hand: the batch ends where one runs out.
      const out: Wire[] = [];
      while (live.every((h) => h.at < h.items.length)) {
        let best = live[0];
        for (const h of live) if (order(h.items[h.at], best.items[best.at]) < 0) best = h;
        out.push(best.items[best.at++]);
      }
      if (out.length > 0) yield out;
    }
  } finally {
    await Promise.all(lists.map((list) => list.return?.(undefined)));
  }
}

/** Skips the first `offset` items, applies `map` (undefined leaves an item out) and counts what
 * it passes on. */
export async function* pageItems(batches: AsyncIterable<Wire[]>, offset: number, map: (item: Wire) => Wire | undefined, counted: { n: number }): AsyncGenerator<Wire[], void, undefined> {
  let skip = offset;
  for await (const batch of batches) {
    const from = Math.min(skip, batch.length);
    skip -= from;
    const out: Wire[] = [];
    for (let i = from; i < batch.length; i++) {
      const item = map(batch[i]);
      if (item !== undefined) out.push(item);
    }
    counted.n += out.length;
    if (out.length > 0) yield out;
  }
}

/** Writes `{data: [...items], meta}` as a stream: the same bytes sendData writes for the list
 * built whole. `tail` gives the text after the last item (dataStreamTail of the final meta),
 * asked once the items are done. `lists` are the opened lists the items come from: closed if
 * the answer ends early (even before its first item was asked for). */
export function sendItemStream(ctx: Context, items: AsyncGenerator<Wire[], void, undefined>, tail: () => string, lists: OpenedList[], head = DATA_STREAM_HEAD): void {
  sendDataStream(ctx, new ItemsBody(items, head, tail, lists));
}

class ItemsBody extends Readable {
  private started = false;
  private first = true;
  private finished = false;

  constructor(
    private readonly items: AsyncGenerator<Wire[], void, undefined>,
    private readonly head: string,
    private readonly tail: () => string,
    private readonly lists: OpenedList[],
  ) {
    super();
  }

  override _read(): void {
    this.pull().catch((err: unknown) => this.destroy(err as Error));
  }

  private async pull(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.push(this.head);
      return;
    }
    const step = await this.items.next();
    if (step.done) {
      this.finished = true;
      this.push(this.tail());
      this.push(null);
      return;
    }
    const text = step.value.map((item) => JSON.stringify(item)).join(',');
    this.push(this.first ? text : `,${text}`);
    this.first = false;
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    if (!this.finished) {
      this.items.return(undefined).catch(() => undefined);
      for (const list of this.lists) list.close();
    }
    done(err);
  }
}
