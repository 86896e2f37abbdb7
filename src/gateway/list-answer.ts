// List answers: a page as one `{data, meta}`, or an unpaged list (`limit=-1`, `limit none`)
// streamed chunk by chunk from a query-side cursor, never built whole in memory.

import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { DATA_STREAM_HEAD, dataStreamTail, sendData, sendDataStream } from './envelope.js';
import type { NodeClient } from './node-client.js';

/** A list page as the query handler returns it. */
export interface ListReply {
  data: unknown;
  meta: Record<string, unknown>;
}

/** An unpaged list's first answer: its cursor, and meta without totalCount. */
interface CursorReply {
  cursor: string;
  meta: { pagination: Record<string, unknown> } & Record<string, unknown>;
}

/** One chunk (see ListChunk in the query handler's list cursors). */
interface ChunkReply {
  items: string;
  done: boolean;
  total: number;
}

/** Answers a `list` or `related` query: a page as it is, an unpaged list as a stream whose
 * bytes are what sendData would have written for the whole list. */
export async function sendList(ctx: Context, node: NodeClient, msg: Record<string, unknown>): Promise<void> {
  const reply = await node.query<ListReply | CursorReply>({ ...msg, stream: true });
  if (!('cursor' in reply)) return sendData(ctx, reply.data, reply.meta);
  sendDataStream(ctx, new ListBody(node, reply));
}

/** Pulls chunks as the response is read; a client that goes away closes the cursor. */
class ListBody extends Readable {
  private started = false;
  private first = true;
  private finished = false;

  constructor(
    private readonly node: NodeClient,
    private readonly opened: CursorReply,
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
      const chunk = await this.node.query<ChunkReply>({ op: 'listNext', cursor: this.opened.cursor });
      const items = chunk.items === '' ? '' : `${this.first ? '' : ','}${chunk.items}`;
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
