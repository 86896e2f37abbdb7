// LogFollower: one follow() subscription of a LocalLog — catches up from the store (streamed),
// then delivers new entries as they commit, in runs of up to `maxBatch` entries, until closed.

import type { LogEntry } from './log.js';

/** What a follower reads from its log; all positions are sequence numbers. */
export interface FollowSource {
  /** The highest durable seq. */
  committed(): number;
  /** The lowest seq still stored. */
  firstSeq(): number;
  /** The serialized command of a recently committed entry, if still in memory. */
  cached(seq: number): string | undefined;
  /** Entries seq in [from, to] as [seqKey, json], streamed from the store. */
  stream(from: number, to: number): AsyncIterable<[string, string]>;
}

/** The handle follow() returns. */
export interface LogSubscription {
  /** Stops delivery: no handler call starts after this is called. Resolves at once (it does not
   * wait for a handler already running, so a handler may call it); await `done` for that. */
  close(): Promise<void>;
  /** Resolves when delivery has stopped after close(), once any running handler returned; rejects
   * with the error that stopped delivery otherwise (the handler threw, or entries were trimmed). */
  readonly done: Promise<void>;
}

/** Thrown when a follower needs entries that trimBefore() has deleted. */
export class LogTrimmedError extends Error {
  constructor(
    readonly afterSeq: number,
    readonly firstSeq: number,
  ) {
    super(`cannot follow the log after seq ${afterSeq}: entries before ${firstSeq} were trimmed ` +
      `(start from a snapshot at seq >= ${firstSeq - 1})`);
    this.name = 'LogTrimmedError';
  }
}

/** Receives a run of consecutive entries (at least one, at most the follower's maxBatch). */
export type BatchHandler<C> = (entries: LogEntry<C>[]) => Promise<void>;

/** A running subscription. Delivery order is seq order with no gaps; the handler is awaited.
 * Entries that are already committed when the handler is free are delivered together. */
export class LogFollower<C> implements LogSubscription {
  readonly done: Promise<void>;
  #stopped = false;
  #wake: (() => void) | null = null;

  /** Throws LogTrimmedError if entries after afterSeq are no longer all stored. */
  static assertAvailable(afterSeq: number, firstSeq: number): void {
    if (afterSeq + 1 < firstSeq) throw new LogTrimmedError(afterSeq, firstSeq);
  }

  constructor(
    private readonly source: FollowSource,
    afterSeq: number,
    private readonly handler: BatchHandler<C>,
    onEnd: () => void,
    private readonly maxBatch = 1,
  ) {
    this.done = this.#run(afterSeq + 1).finally(onEnd);
    this.done.catch(() => {}); // observed through `done`; never an unhandled rejection
  }

  async close(): Promise<void> {
    this.#stopped = true;
    this.wake();
  }

  /** Called by the log after each commit (and by close()). */
  wake(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  async #run(next: number): Promise<void> {
    await Promise.resolve(); // never call the handler before follow() has returned
    try {
      while (!this.#stopped) {
        if (next > this.source.committed()) await new Promise<void>((resolve) => (this.#wake = resolve));
        else next = await this.#deliverFrom(next);
      }
    } catch (err) {
      if (!this.#stopped) throw err; // errors after close() (e.g. the store closing) are expected
    }
  }

  /** Delivers from memory if the entry is cached, else streams from the store up to the
   * current commit point; returns the next seq to deliver. */
  async #deliverFrom(next: number): Promise<number> {
    if (this.source.cached(next) !== undefined) return this.#deliverCached(next);
    LogFollower.assertAvailable(next - 1, this.source.firstSeq());
    const to = this.source.committed();
    let run: LogEntry<C>[] = [];
    for await (const [key, json] of this.source.stream(next, to)) {
      if (this.#stopped) return next;
      if (Number(key) !== next + run.length) break;
      run.push(this.#entry(next + run.length, json));
      if (run.length < this.maxBatch && this.source.cached(next + run.length) === undefined) continue;
      await this.handler(run);
      next += run.length;
      run = [];
      if (this.source.cached(next) !== undefined) return next;
    }
    if (run.length > 0 && !this.#stopped) {
      await this.handler(run);
      next += run.length;
    }
    if (next <= to && !this.#stopped && this.source.cached(next) === undefined) throw this.#missing(next);
    return next;
  }

  /** Delivers the committed entries from `next` on that are still in memory, as one run. */
  async #deliverCached(next: number): Promise<number> {
    const last = Math.min(this.source.committed(), next + this.maxBatch - 1);
    const run: LogEntry<C>[] = [];
    for (let seq = next; seq <= last; seq++) {
      const json = this.source.cached(seq);
      if (json === undefined) break;
      run.push(this.#entry(seq, json));
    }
    await this.handler(run);
    return next + run.length;
  }

  #entry(seq: number, json: string): LogEntry<C> {
    return { seq, command: JSON.parse(json) as C };
  }

  #missing(seq: number): Error {
    const firstSeq = this.source.firstSeq();
    if (seq < firstSeq) return new LogTrimmedError(seq - 1, firstSeq);
    return new Error(`log entry ${seq} is missing from the store (corrupt log?)`);
  }
}
