// LocalLog: the durable single-node Log — entries in their own LevelDB (a LevelKv, owner-only),
// group-committed in synced batches, replayed from disk and then tailed live by followers.

import type { KvOp, KvStore } from '../store/kv.js';
import { LevelKv } from '../store/level-kv.js';
import type { Log, LogEntry } from './log.js';
import { LogFollower, type BatchHandler, type FollowSource, type LogSubscription } from './log-follower.js';

export { LogTrimmedError, type LogSubscription } from './log-follower.js';

const SEQ_DIGITS = 16;
const FIRST_KEY = '0'.repeat(SEQ_DIGITS);
const LAST_KEY = '9'.repeat(SEQ_DIGITS);
/** Entries below this seq were trimmed. '~' sorts after every digit, outside the entry range. */
const TRIM_KEY = '~trimmedBefore';
/** Most entries written by one group commit. */
const MAX_BATCH = 4096;
/** Serialized recent entries kept in memory so live followers need not read them back. */
const CACHE_SIZE = 8192;
const DELETE_CHUNK = 1000;
/** Most entries followBatches() hands over at once, by default. */
const FOLLOW_BATCH = 256;

/** Where a LocalLog keeps its entries: a LevelDB directory it owns, or a store given to it
 * (MemoryLog passes a MemoryKv). Either way the store holds this log and nothing else. */
export type LocalLogOptions = { path: string } | { kv: KvStore };

interface Pending {
  json: string;
  resolve(seq: number): void;
  reject(err: Error): void;
}

/** The zero-padded key of a sequence number; lexical order = numeric order. */
export function seqKey(seq: number): string {
  return String(seq).padStart(SEQ_DIGITS, '0');
}

/**
 * The durable Log. append() resolves only after the entry's batch was written with sync: true;
 * appends arriving while a write is in flight form the next batch (group commit). Sequence
 * numbers are assigned when a batch is written, in append order, so they have no gaps. A failed
 * write poisons the log: that batch and all later appends reject until it is reopened.
 * Commands are stored as JSON; followers receive a fresh JSON.parse copy of each.
 */
export class LocalLog<C = unknown> implements Log<C> {
  readonly #kv: KvStore;
  #state: 'closed' | 'opening' | 'open' | 'closing' = 'closed';
  #committed = 0;
  #firstSeq = 1;
  #queue: Pending[] = [];
  #writing = false;
  #failure: Error | null = null;
  #idle: (() => void)[] = [];
  #trimming: Promise<void> = Promise.resolve();
  #cache: string[] = [];
  #cacheStart = 1;
  readonly #followers = new Set<LogFollower<C>>();
  readonly #source: FollowSource;

  constructor(opts: LocalLogOptions) {
    this.#kv = 'kv' in opts ? opts.kv : new LevelKv({ path: opts.path });
    this.#source = {
      committed: () => this.#committed,
      firstSeq: () => this.#firstSeq,
      cached: (seq) => this.#cached(seq),
      stream: (from, to) => this.#kv.entries({ gte: seqKey(from), lte: seqKey(to) }),
    };
  }

  /** Opens the store and recovers lastSeq and the trim point; finishes an interrupted trim. */
  async open(): Promise<void> {
    if (this.#state !== 'closed') throw new Error(`LocalLog is ${this.#state}`);
    this.#state = 'opening';
    try {
      await this.#recover();
    } catch (err) {
      this.#state = 'closed';
      await this.#kv.close().catch(() => {});
      throw err;
    }
    this.#state = 'open';
  }

  async #recover(): Promise<void> {
    await this.#kv.open();
    const trim = await this.#kv.get(TRIM_KEY);
    this.#firstSeq = trim === undefined ? 1 : parseSeq(trim);
    let last = this.#firstSeq - 1;
    for await (const key of this.#kv.keys({ gte: FIRST_KEY, lte: LAST_KEY, reverse: true, limit: 1 })) {
      last = Math.max(last, parseSeq(key));
    }
    this.#committed = last;
    this.#cache = [];
    this.#cacheStart = last + 1;
    this.#failure = null;
    await this.#deleteBelow(this.#firstSeq);
  }

  async append(command: C): Promise<number> {
    if (this.#state !== 'open') throw new Error(`LocalLog is ${this.#state}; cannot append`);
    if (this.#failure !== null) throw this.#poisoned();
    const json = JSON.stringify(command);
    if (json === undefined) throw new TypeError('LocalLog: command is not JSON-serialisable');
    return new Promise<number>((resolve, reject) => {
      this.#queue.push({ json, resolve, reject });
      this.#flush();
    });
  }

  /** See {@link Log.follow}. Throws LogTrimmedError at once if entries after afterSeq were
   * trimmed. The subscription's `done` settles when delivery ends: it resolves after close(),
   * or rejects with the error that stopped it (a throwing handler, a trim overtaking it). */
  follow(afterSeq: number, handler: (entry: LogEntry<C>) => Promise<void>): LogSubscription {
    return this.#follow(afterSeq, (entries) => handler(entries[0]), 1);
  }

  /** See {@link Log.followBatches}: as follow(), but entries already committed when the
   * handler is free come as one run of up to `maxBatch` (an apply loop commits them together). */
  followBatches(afterSeq: number, handler: (entries: LogEntry<C>[]) => Promise<void>, maxBatch = FOLLOW_BATCH): LogSubscription {
    if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) throw new RangeError(`followBatches: bad maxBatch ${maxBatch}`);
    return this.#follow(afterSeq, handler, maxBatch);
  }

  #follow(afterSeq: number, handler: BatchHandler<C>, maxBatch: number): LogSubscription {
    if (this.#state !== 'open') throw new Error(`LocalLog is ${this.#state}; cannot follow`);
    if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) throw new RangeError(`follow: bad afterSeq ${afterSeq}`);
    LogFollower.assertAvailable(afterSeq, this.#firstSeq);
    const follower = new LogFollower<C>(this.#source, afterSeq, handler, () => this.#followers.delete(follower), maxBatch);
    this.#followers.add(follower);
    return follower;
  }

  async lastSeq(): Promise<number> {
    return this.#committed;
  }

  /** The lowest sequence still stored (lastSeq + 1 when everything was trimmed). */
  firstSeq(): number {
    return this.#firstSeq;
  }

  /** Deletes entries with seq < `seq` (e.g. once a snapshot covers them). The trim point is made
   * durable first; followers that later need a trimmed entry fail with LogTrimmedError. */
  async trimBefore(seq: number): Promise<void> {
    if (this.#state !== 'open') throw new Error(`LocalLog is ${this.#state}; cannot trim`);
    if (!Number.isSafeInteger(seq) || seq < 1) throw new RangeError(`trimBefore: bad seq ${seq}`);
    if (seq > this.#committed + 1) throw new RangeError(`trimBefore(${seq}): past lastSeq ${this.#committed}`);
    if (seq <= this.#firstSeq) return;
    this.#firstSeq = seq;
    if (this.#cacheStart < seq) this.#dropCache(Math.min(seq - this.#cacheStart, this.#cache.length));
    const run = this.#trimming.then(async () => {
      await this.#kv.batch([{ type: 'put', key: TRIM_KEY, value: String(seq) }], { sync: true });
      await this.#deleteBelow(seq);
    });
    this.#trimming = run.catch(() => {});
    await run;
  }

  /** Stops followers, lets queued appends finish, then closes the store. */
  async close(): Promise<void> {
    if (this.#state !== 'open') return;
    this.#state = 'closing';
    await Promise.all([...this.#followers].map((f) => f.close()));
    if (this.#writing || this.#queue.length > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
    await this.#trimming;
    await this.#kv.close();
    this.#state = 'closed';
  }

  /** Starts a synced write of everything queued, unless one is already in flight. */
  #flush(): void {
    if (this.#writing) return;
    if (this.#queue.length === 0) {
      for (const wake of this.#idle.splice(0)) wake();
      return;
    }
    this.#writing = true;
    const batch = this.#queue.splice(0, MAX_BATCH);
    const first = this.#committed + 1;
    const ops = batch.map((p, i): KvOp => ({ type: 'put', key: seqKey(first + i), value: p.json }));
    this.#kv.batch(ops, { sync: true }).then(
      () => this.#onCommitted(first, batch),
      (err: unknown) => this.#failed(err, batch),
    );
  }

  #onCommitted(first: number, batch: Pending[]): void {
    this.#committed = first + batch.length - 1;
    for (const p of batch) this.#cache.push(p.json);
    if (this.#cache.length > 2 * CACHE_SIZE) this.#dropCache(this.#cache.length - CACHE_SIZE);
    batch.forEach((p, i) => p.resolve(first + i));
    for (const follower of this.#followers) follower.wake();
    this.#writing = false;
    this.#flush();
  }

  #failed(err: unknown, batch: Pending[]): void {
    this.#failure = err instanceof Error ? err : new Error(String(err));
    const failed = this.#poisoned();
    for (const p of [...batch, ...this.#queue.splice(0)]) p.reject(failed);
    this.#writing = false;
    this.#flush();
  }

  #poisoned(): Error {
    return new Error('LocalLog: a synced write failed; the log must be reopened', { cause: this.#failure });
  }

  #cached(seq: number): string | undefined {
    return seq >= this.#cacheStart && seq >= this.#firstSeq ? this.#cache[seq - this.#cacheStart] : undefined;
  }

  #dropCache(count: number): void {
    this.#cache.splice(0, count);
    this.#cacheStart += count;
  }

  /** Deletes entry keys below `seq`, streaming them in chunks (not synced: the trim key rules). */
  async #deleteBelow(seq: number): Promise<void> {
    let ops: KvOp[] = [];
    for await (const key of this.#kv.keys({ gte: FIRST_KEY, lt: seqKey(seq) })) {
      ops.push({ type: 'del', key });
      if (ops.length < DELETE_CHUNK) continue;
      await this.#kv.batch(ops);
      ops = [];
    }
    if (ops.length > 0) await this.#kv.batch(ops);
  }
}

function parseSeq(text: string): number {
  const seq = Number(text);
  if (!Number.isSafeInteger(seq) || seq < 0) throw new Error(`LocalLog: corrupt sequence ${JSON.stringify(text)}`);
  return seq;
}
