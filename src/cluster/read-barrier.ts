// The read barrier of a cluster node: before a request is answered, the node applies the log up
// to the stream's last sequence as of the request's start, so a write acknowledged by any node
// is seen by every request that starts after it. Concurrent requests share one stream query,
// and queries start at most once per `minGapMs`: a request that arrives meanwhile waits for the
// next query, which is sent after it arrived, so sharing it keeps the guarantee.

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
  /** When the last query was sent (performance.now()). */
  #lastStart = -Infinity;

  readonly #minGapMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  /** `minGapMs`: the least time between two queries' starts (0: back to back); `now` and
   * `sleep` are the clock (tests give their own). */
  constructor(private readonly source: BarrierSource, opts: { minGapMs?: number; now?: () => number; sleep?: (ms: number) => Promise<void> } = {}) {
    this.#minGapMs = opts.minGapMs ?? 0;
    this.#now = opts.now ?? (() => performance.now());
    this.#sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Resolves once this node has applied every entry appended before the call. */
  async sync(): Promise<void> {
    const started = Date.now();
    const seq = await this.lastSeqAfterNow();
    await this.source.waitApplied(seq, Math.max(0, started + SYNC_WITHIN_MS - Date.now()));
  }

  /** The stream's last sequence read by a query sent after this call: a query already under way
   * may predate the caller's start, so callers join the next one, which all of them share. */
  lastSeqAfterNow(): Promise<number> {
    if (this.#queued) return this.#queued;
    if (!this.#running && this.#gapLeft() <= 0) return this.#start();
    this.#queued = (this.#running ?? Promise.resolve(0)).then(noop, noop).then(async () => {
      const gap = this.#gapLeft();
      if (gap > 0) await this.#sleep(gap);
      this.#queued = undefined;
      return this.#start();
    });
    return this.#queued;
  }

  #gapLeft(): number {
    return this.#lastStart + this.#minGapMs - this.#now();
  }

  #start(): Promise<number> {
    this.#lastStart = this.#now();
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
