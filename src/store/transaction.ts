// A write set over the KV store that sees its own writes: apply builds one per run of log
// entries and commits it as a single atomic batch. Each entry writes inside a savepoint, kept
// on success and rolled back on rejection. Written keys are also kept sorted per key family and
// kind, so a range read costs log(n) however large the run is, and nothing when the run wrote
// nothing of that kind.

import type { Entity } from '../domain/commands.js';
import { compareUtf8 } from './compare-utf8.js';
import { keyBucket } from './keys.js';
import type { KvOp, KvStore } from './kv.js';
import { rangeName, type RangeCache } from './range-cache.js';

/** A key range with exclusive bounds, as apply reads them. */
export interface TxRange {
  gt: string;
  lt: string;
}

/** Reads decoded records (shared, frozen objects) from the store the transaction reads. */
export interface RecordReader {
  getMany(keys: string[]): Promise<(Entity | undefined)[]>;
}

/** What a transaction may share with the replica's readers: decoded records, and the range
 * reads kept across transactions (both true to the store as the transaction found it). */
export interface TxCaches {
  records?: RecordReader;
  ranges?: RangeCache;
}

/** The store must not be written by anyone else while a transaction is open: it reads each
 * range of the store once and keeps what it read. */
export class Transaction {
  /** Written keys → value (null = deleted). */
  private readonly writes = new Map<string, string | null>();
  /** The written keys in key order, per bucket (keys.ts `keyBucket`), for range reads. */
  private readonly buckets = new Map<string, SortedKeys>();
  /** The store's keys per range read so far (never changed: copied before use). */
  private readonly ranges = new Map<string, string[]>();
  /** While a savepoint is open: each write's key and the value it replaced (undefined = none). */
  private undo: (string | null | undefined)[] | undefined;

  /** Reads `kv`, through the shared caches when given. */
  constructor(
    private readonly kv: KvStore,
    private readonly caches: TxCaches = {},
  ) {}

  /** Starts recording the writes that follow, so that rollback() can undo them. */
  savepoint(): void {
    this.undo = [];
  }

  /** Keeps the writes made since savepoint(). */
  release(): void {
    this.undo = undefined;
  }

  /** Undoes every write made since savepoint(), newest first. */
  rollback(): void {
    const undo = this.undo ?? [];
    this.undo = undefined;
    for (let i = undo.length - 2; i >= 0; i -= 2) {
      const key = undo[i] as string;
      const before = undo[i + 1];
      if (before !== undefined) {
        this.writes.set(key, before);
      } else {
        this.writes.delete(key);
        this.bucket(key).remove(key);
      }
    }
  }

  async get(key: string): Promise<string | undefined> {
    const written = this.writes.get(key);
    if (written !== undefined) return written ?? undefined;
    return this.kv.get(key);
  }

  /** As get(), for a key that is expected not to be stored: read on this thread when the
   * store can (KvStore.getAbsent). */
  async getAbsent(key: string): Promise<string | undefined> {
    const written = this.writes.get(key);
    if (written !== undefined) return written ?? undefined;
    return this.kv.getAbsent ? this.kv.getAbsent(key) : this.kv.get(key);
  }

  /** Several reads in one round trip to the store. */
  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    const missing = keys.filter((key) => !this.writes.has(key));
    if (missing.length === 0) return keys.map((key) => this.writes.get(key) ?? undefined);
    const stored = await this.kv.getMany(missing);
    if (missing.length === keys.length) return stored;
    let next = 0;
    return keys.map((key) => (this.writes.has(key) ? (this.writes.get(key) ?? undefined) : stored[next++]));
  }

  /** What this transaction itself wrote at the keys (undefined: not written, or deleted),
   * without reading the store: for keys the caller knows the store does not hold. */
  writtenValues(keys: string[]): (string | undefined)[] {
    return keys.map((key) => this.writes.get(key) ?? undefined);
  }

  /** Decoded records at record keys. Never change what this returns: records the transaction
   * did not write may be shared (frozen) objects. */
  async getRecords(keys: string[]): Promise<(Entity | undefined)[]> {
    const missing = keys.filter((key) => !this.writes.has(key));
    let stored: (Entity | undefined)[] = [];
    const records = this.caches.records;
    if (missing.length > 0) stored = records ? await records.getMany(missing) : (await this.kv.getMany(missing)).map(decode);
    if (missing.length === keys.length) return stored;
    let next = 0;
    return keys.map((key) => (this.writes.has(key) ? decode(this.writes.get(key) ?? undefined) : stored[next++]));
  }

  /** The decoded record at a record key (see getRecords). */
  async getRecord(key: string): Promise<Entity | undefined> {
    return (await this.getRecords([key]))[0];
  }

  put(key: string, value: string): void {
    this.write(key, value);
  }

  del(key: string): void {
    this.write(key, null);
  }

  /** Keys in (gt, lt) as the transaction sees them. Meant for modest ranges (one entity's links,
   * one attribute's members), since the range is gathered before it is returned. */
  async keysIn(range: TxRange): Promise<string[]> {
    const stored = await this.storedKeys(range);
    const own = this.written(range);
    if (own.length === 0) return stored.slice();
    const keys = new Set(stored);
    for (const key of own) {
      if (this.writes.get(key) === null) keys.delete(key);
      else keys.add(key);
    }
    return [...keys].sort(compareUtf8);
  }

  /** True when some key in the range exists as the transaction sees it. */
  async anyIn(range: TxRange): Promise<boolean> {
    return (await this.keysIn(range)).length > 0;
  }

  /** Every write, as the ops of one batch. */
  ops(): KvOp[] {
    const out: KvOp[] = [];
    for (const [key, value] of this.writes) out.push(value === null ? { type: 'del', key } : { type: 'put', key, value });
    return out;
  }

  /** The buckets (keys.ts `keyBucket`) of every key written; '' for keys without one. */
  writtenBuckets(): IterableIterator<string> {
    return this.buckets.keys();
  }

  /** Every key written (put or deleted). */
  writtenKeys(): IterableIterator<string> {
    return this.writes.keys();
  }

  private write(key: string, value: string | null): void {
    const before = this.writes.get(key);
    if (before === undefined) this.bucket(key).add(key);
    this.undo?.push(key, before);
    this.writes.set(key, value);
  }

  /** The store's keys in the range, read at most once per transaction (nothing else writes
   * the store while apply's transaction is open), and kept across transactions in the shared
   * range cache when the range lies in one bucket. */
  private async storedKeys(range: TxRange): Promise<string[]> {
    const name = rangeName(range);
    const bucket = keyBucket(range.gt);
    const shared = bucket !== undefined && bucket === keyBucket(range.lt) ? this.caches.ranges : undefined;
    const known = this.ranges.get(name) ?? shared?.get(bucket!, name);
    if (known) return known;
    const stored: string[] = [];
    for await (const key of this.kv.keys(range)) stored.push(key);
    this.ranges.set(name, stored);
    shared?.set(bucket!, name, stored);
    return stored;
  }

  /** The written keys strictly inside the range, in key order. */
  private written(range: TxRange): string[] {
    if (this.writes.size === 0) return [];
    const name = keyBucket(range.gt);
    if (name !== undefined && name === keyBucket(range.lt)) return this.buckets.get(name)?.within(range) ?? [];
    return [...this.buckets.values()].flatMap((bucket) => bucket.within(range)).sort(compareUtf8);
  }

  private bucket(key: string): SortedKeys {
    const name = keyBucket(key) ?? '';
    let bucket = this.buckets.get(name);
    if (!bucket) this.buckets.set(name, (bucket = new SortedKeys()));
    return bucket;
  }
}

function decode(raw: string | undefined): Entity | undefined {
  return raw === undefined ? undefined : (JSON.parse(raw) as Entity);
}

/** Distinct keys, sorted when read: keys added since the last read are sorted and then
 * inserted by binary search (a few) or merged in one pass (many). */
class SortedKeys {
  private sorted: string[] = [];
  private pending: string[] = [];

  add(key: string): void {
    this.pending.push(key);
  }

  remove(key: string): void {
    const pending = this.pending.lastIndexOf(key);
    if (pending >= 0) {
      this.pending.splice(pending, 1);
      return;
    }
    const at = upperBound(this.sorted, key) - 1;
    if (at >= 0 && this.sorted[at] === key) this.sorted.splice(at, 1);
  }

  /** The keys strictly inside the range, in key order. */
  within(range: TxRange): string[] {
    const sorted = this.keys();
    const out: string[] = [];
    for (let i = upperBound(sorted, range.gt); i < sorted.length && compareUtf8(sorted[i], range.lt) < 0; i++) out.push(sorted[i]);
    return out;
  }

  private keys(): string[] {
    const fresh = this.pending;
    if (fresh.length === 0) return this.sorted;
    this.pending = [];
    fresh.sort(compareUtf8);
    if (fresh.length * 16 < this.sorted.length) {
      for (const key of fresh) this.sorted.splice(upperBound(this.sorted, key), 0, key);
    } else {
      this.sorted = this.sorted.length === 0 ? fresh : merge(this.sorted, fresh);
    }
    return this.sorted;
  }
}

/** Index of the first key > `key`. */
function upperBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareUtf8(keys[mid], key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Two sorted lists of distinct keys (none in both) as one sorted list. */
function merge(a: string[], b: string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = compareUtf8(a[i], b[j]) <= 0 ? a[i++] : b[j++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}
