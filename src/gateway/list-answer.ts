// List answers: a page as one `{data, meta}`, or an unpaged list (`limit=-1`, `limit none`)
// streamed chunk by chunk from a query-side cursor, never built whole in memory.

import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { DATA_STREAM_HEAD, dataStreamTail, sendData, sendDataStream } from './envelope.js';
import type { NodeClient } from './node-client.js';
import type { ListCursorReply, QueryRequest } from '../protocol/v1/query-messages.js';

/** Answers a `list` or `related` query: a page as it is, an unpaged list as a stream whose
 * bytes are what sendData would have written for the whole list. */
export async function sendList(ctx: Context, node: NodeClient, msg: Extract<QueryRequest, { op: 'list' | 'related' }>): Promise<void> {
  const reply = await node.query({ ...msg, stream: true as const });
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
    private readonly opened: ListCursorReply,
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
