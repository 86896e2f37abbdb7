// The read barrier of a cluster node: before a request is answered, the node applies the log up
// to the stream's last sequence as of the request's start, so a write acknowledged by any node
// is seen by every request that starts after it. Concurrent requests share one stream query.

/** What the barrier needs: the stream's last sequence, and a wait (of at most `maxMs`) until the
 * replica applied it. */
export interface BarrierSource {
  lastSeq(): Promise<number>;
  waitApplied(seq: number, maxMs: number): Promise<void>;
}

/** A barrier gives up after this long in all (ms): a query that waited for the one before it,
 * then the wait for the replica, stay within the few seconds a request is answered in. */
const SYNC_WITHIN_MS = 3_500;

export class ReadBarrier {
  #running?: Promise<number>;
  #queued?: Promise<number>;

  constructor(private readonly source: BarrierSource) {}

  /** Resolves once this node has applied every entry appended before the call. */
  async sync(): Promise<void> {
    const started = Date.now();
    const seq = await this.lastSeqAfterNow();
    await this.source.waitApplied(seq, Math.max(0, started + SYNC_WITHIN_MS - Date.now()));
  }

  /** The stream's last sequence read by a query sent after this call: a query already under way
   * may predate the caller's start, so callers join the next one, which all of them share. */
  lastSeqAfterNow(): Promise<number> {
    if (!this.#running) return this.#start();
    this.#queued ??= this.#running.then(noop, noop).then(() => {
      this.#queued = undefined;
      return this.#start();
    });
    return this.#queued;
  }

  #start(): Promise<number> {
    const query = this.source.lastSeq();
    this.#running = query;
    const done = () => {
      if (this.#running === query) this.#running = undefined;
    };
    query.then(done, done);
    return query;
  }
}

function noop(): void {}
