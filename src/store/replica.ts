// The replica: the node's LevelDB copy of all model data, built by applying the log in order
// (consecutive entries share one store batch). Owns apply results and read access, with a
// cache of decoded records; it never decides anything non-deterministic.

import { EventEmitter } from 'node:events';
import { ApiError, toApiError } from '../errors.js';
import { FENCED, type ApplyResult, type Command, type Entity } from '../domain/commands.js';
import { RESOURCES, type Kind } from '../domain/registry.js';
import type { LogEntry } from '../domain/log-entry.js';
import { applyCommand } from './apply.js';
import {
  APPLIED_SEQ_KEY,
  countKey,
  decodeStringValue,
  encodeValue,
  idFromIndexKey,
  indexPrefix,
  indexRange,
  indexValueRange,
  isRecordKey,
  keyBucket,
  lastPart,
  recordKey,
  uniqueKey,
  valueFromIndexKey,
} from './keys.js';
import type { KvStore } from './kv.js';
import { ensureFormat } from './replica-format.js';
import { RangeCache, rangeName } from './range-cache.js';
import { Transaction, type TxCaches } from './transaction.js';

/** How many recent apply results are kept for proposers that have not collected theirs yet. */
const RESULTS_KEPT = 20_000;
/** Fences are appended only for commands sent again after their shard's owner was declared gone. */
const FENCES_KEPT = 100_000;
/** Most log entries applied in one store batch. */
const APPLY_RUN = 256;
/** Heap bytes of decoded records kept for reads by default, estimated as RECORD_COST × their
 * JSON length (when over, the eighth decoded first is dropped); a node sizes it from its memory
 * budget (budgetShares().records). */
const RECORDS_CACHED_BYTES = 96 * 1024 * 1024;
const RECORD_COST = 4;

export interface AppliedEvent {
  seq: number;
  command: Command;
  result: ApplyResult;
}

export class Replica {
  private applied = 0;
  private readonly counts = new Map<string, number>();
  private readonly results = new Map<number, ApplyResult>();
  private oldestResult: number | undefined;
  /** Sequences of fences applied since this replica opened (the newest FENCES_KEPT): a proposer
   * whose append resolved to a fence learns it even when that result is no longer kept. */
  private readonly fences = new Set<number>();
  private readonly waiters = new Map<number, ((r: ApplyResult) => void)[]>();
  /** Decoded, deep-frozen records by record key; a commit drops every record key it writes. */
  private readonly records = new Map<string, { record: Entity; bytes: number }>();
  private recordBytes = 0;
  /** Bumped after every commit: a range read that started before one is not kept. */
  private epoch = 0;
  /** Commits under way: reads made meanwhile do not fill the caches either. */
  private committing = 0;
  /** Record keys being read from the store; `stale` once a commit wrote the key (or every kept
   * read was dropped) while a read of it was under way: such reads are not kept. Per key, so
   * that a steady flow of applies does not keep every record read out of the cache. */
  private readonly recordReads = new Map<string, { readers: number; stale: boolean }>();
  /** Range reads kept across applies; a commit drops the buckets it writes. */
  private readonly ranges = new RangeCache();
  /** What apply's transactions share: the record cache, and the range cache. */
  private readonly caches: TxCaches = { records: { getMany: async (keys: string[]) => (await this.readRecords(keys)).records }, ranges: this.ranges };
  /** Emits 'applied' (AppliedEvent) after each command is committed to the store. */
  readonly events = new EventEmitter();

  /** Cluster mode: a store that refuses a write stops the apply loop (the error propagates)
   * instead of recording the entry as rejected, which only this node would do: a node that
   * cannot apply stops serving rather than diverging from its peers. */
  failOnStoreError = false;

  private readonly recordCacheLimit: number;

  constructor(readonly kv: KvStore, opts: { recordCacheBytes?: number } = {}) {
    this.events.setMaxListeners(100);
    this.recordCacheLimit = opts.recordCacheBytes ?? RECORDS_CACHED_BYTES;
  }

  /** Estimated heap bytes of the decoded records kept (at most the limit given). */
  get recordCacheBytes(): number {
    return this.recordBytes;
  }

  /** Reads the applied sequence and the counts; upgrades an older data format first. */
  async open(): Promise<void> {
    await ensureFormat(this.kv);
    this.applied = Number((await this.kv.get(APPLIED_SEQ_KEY)) ?? 0);
    for (const decl of RESOURCES) this.counts.set(decl.kind, Number((await this.kv.get(countKey(decl.kind))) ?? 0));
  }

  /** The highest log sequence applied to this replica. */
  get appliedSeq(): number {
    return this.applied;
  }

  /** Applies one log entry; called in log order by the apply loop. */
  async apply(entry: LogEntry<Command>): Promise<void> {
    await this.applyBatch([entry]);
  }

  /**
   * Applies consecutive log entries in order, as one store batch per run of up to APPLY_RUN
   * (entries already applied are skipped). Each entry keeps its own result: it is applied in a
   * savepoint of the run's transaction, kept when it succeeds and rolled back when it is
   * rejected, so a rejected entry writes nothing and its neighbours are kept. A command whose
   * writes the store refuses is rejected like any other: the loop never stops on one entry.
   */
  async applyBatch(entries: LogEntry<Command>[]): Promise<void> {
    const fresh = entries.filter((entry) => entry.seq > this.applied);
    for (let i = 0; i < fresh.length; i += APPLY_RUN) await this.applyRun(fresh.slice(i, i + APPLY_RUN));
  }

  private async applyRun(entries: LogEntry<Command>[]): Promise<void> {
    if (entries.length === 0) return;
    const tx = new Transaction(this.kv, this.caches);
    const deltas = new Map<string, number>();
    const results: ApplyResult[] = [];
    const countOf = (kind: string) => this.count(kind) + (deltas.get(kind) ?? 0);
    for (const entry of entries) results.push(isExpired(entry) ? EXPIRED : entry.command.fence !== undefined ? FENCED_RESULT : await this.applyEntry(tx, entry.command, countOf, deltas));
    this.stageCounts(tx, deltas);
    tx.put(APPLIED_SEQ_KEY, String(entries[entries.length - 1].seq));
    try {
      await this.commit(tx);
    } catch (err) {
      if (this.failOnStoreError) throw err;
      // The store refused the run as a whole (nothing was written): find the entry it refuses.
      if (entries.length > 1) {
        for (const entry of entries) await this.applyRun([entry]);
        return;
      }
      results[0] = { ok: false, error: toApiError(err).toWire() };
      deltas.clear();
      await this.commit(this.appliedOnly(entries[0].seq));
    }
    for (const [kind, delta] of deltas) this.counts.set(kind, (this.counts.get(kind) ?? 0) + delta);
    entries.forEach((entry, i) => {
      this.applied = entry.seq;
      this.settle(entry.seq, results[i]);
      this.events.emit('applied', { seq: entry.seq, command: entry.command, result: results[i] } satisfies AppliedEvent);
    });
  }

  /** One entry inside a savepoint of the run's transaction: a rejection rolls back its writes
   * only. Its count changes join `deltas` only when it succeeds. */
  private async applyEntry(tx: Transaction, command: Command, countOf: (kind: string) => number, deltas: Map<string, number>): Promise<ApplyResult> {
    tx.savepoint();
    try {
      const own = await applyCommand(tx, command, countOf);
      tx.release();
      for (const [kind, delta] of own) deltas.set(kind, (deltas.get(kind) ?? 0) + delta);
      return { ok: true };
    } catch (err) {
      tx.rollback();
      return { ok: false, error: toApiError(err).toWire() };
    }
  }

  private appliedOnly(seq: number): Transaction {
    const tx = new Transaction(this.kv);
    tx.put(APPLIED_SEQ_KEY, String(seq));
    return tx;
  }

  /** Writes the transaction as one store batch, keeping both caches true to the store. */
  private async commit(tx: Transaction): Promise<void> {
    for (const key of tx.writtenKeys()) {
      if (!isRecordKey(key)) continue;
      this.forgetRecord(key);
      const reading = this.recordReads.get(key);
      if (reading) reading.stale = true;
    }
    this.ranges.forget(tx.writtenBuckets());
    this.committing++;
    try {
      await this.kv.batch(tx.ops());
    } finally {
      this.committing--;
      this.epoch++;
    }
  }

  /** Forgets every record and range this replica kept, for a store written outside apply
   * (tests that put corruption into a live store; on disk it is found after a restart, when
   * nothing is kept yet). Reads under way are not kept either. */
  dropKeptReads(): void {
    this.records.clear();
    this.recordBytes = 0;
    this.ranges.clear();
    this.epoch++;
    for (const reading of this.recordReads.values()) reading.stale = true;
  }

  private stageCounts(tx: Transaction, deltas: Map<string, number>): void {
    for (const [kind, delta] of deltas) tx.put(countKey(kind), String((this.counts.get(kind) ?? 0) + delta));
  }

  private settle(seq: number, result: ApplyResult): void {
    this.results.set(seq, result);
    if (result === FENCED_RESULT) {
      this.fences.add(seq);
      if (this.fences.size > FENCES_KEPT) this.fences.delete(this.fences.values().next().value!);
    }
    // Results are settled in seq order, so the oldest kept is the lowest seq (found by counting:
    // asking a Map that keeps losing its first entries for its first key scans what it lost).
    this.oldestResult ??= seq;
    while (this.results.size > RESULTS_KEPT) this.results.delete(this.oldestResult++);
    const waiting = this.waiters.get(seq);
    if (!waiting) return;
    this.waiters.delete(seq);
    for (const resolve of waiting) resolve(result);
  }

  /** Resolves with the result of `seq` once this replica has applied it (read-your-writes). */
  waitFor(seq: number, timeoutMs = 10_000): Promise<ApplyResult> {
    const known = this.results.get(seq);
    if (known) return Promise.resolve(known);
    if (seq <= this.applied) return Promise.resolve(this.fences.has(seq) ? FENCED_RESULT : { ok: true });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new ApiError('TIMEOUT')), timeoutMs);
      const list = this.waiters.get(seq) ?? [];
      list.push((r) => {
        clearTimeout(timer);
        resolve(r);
      });
      this.waiters.set(seq, list);
    });
  }

  /** The record, decoded and deep-frozen (shared with other readers: copy it to change it). */
  async get(kind: Kind, id: string): Promise<Entity | undefined> {
    const key = recordKey(kind, id);
    const cached = this.records.get(key);
    if (cached) return cached.record;
    const reading = this.startRead(key);
    let raw: string | undefined;
    try {
      raw = await this.kv.get(key);
    } finally {
      this.endRead(key, reading);
    }
    return raw === undefined ? undefined : this.decoded(key, raw, reading.stale);
  }

  /** The records in `ids` order (undefined where none), as get() returns them. `keep` false:
   * records read from the store are not kept in the cache (a streamed list reads each once). */
  async getMany(kind: string, ids: string[], keep = true): Promise<(Entity | undefined)[]> {
    return (await this.readRecords(ids.map((id) => recordKey(kind, id)), keep)).records;
  }

  /**
   * Records and raw store values read together, the values in `keys` order: whatever memory
   * does not hold comes from the store in one round trip (an access question needs an entity's
   * record and its policy lists; at a million identities none of them is in memory).
   */
  async getWithValues(refs: { kind: string; id: string }[], keys: string[]): Promise<{ records: (Entity | undefined)[]; values: (string | undefined)[] }> {
    return this.readRecords(refs.map((ref) => recordKey(ref.kind, ref.id)), true, keys);
  }

  /** Decoded records by record key, through the cache (apply reads records this way too), and
   * the raw values of `valueKeys`, read in the same store read, in their order. */
  private async readRecords(keys: string[], keep = true, valueKeys: string[] = []): Promise<{ records: (Entity | undefined)[]; values: (string | undefined)[] }> {
    const out = keys.map((key): Entity | undefined => this.records.get(key)?.record);
    const missing = keys.filter((_, i) => out[i] === undefined);
    if (missing.length === 0) {
      return { records: out, values: valueKeys.length === 0 ? [] : await this.kv.getMany(valueKeys) };
    }
    const readings = missing.map((key) => this.startRead(key));
    let raws: (string | undefined)[];
    try {
      raws = await this.kv.getMany(valueKeys.length === 0 ? missing : [...missing, ...valueKeys]);
    } finally {
      missing.forEach((key, i) => this.endRead(key, readings[i]));
    }
    let next = 0;
    const records = keys.map((key, i) => {
      if (out[i] !== undefined) return out[i];
      const stale = readings[next].stale;
      const raw = raws[next++];
      return raw === undefined ? undefined : this.decoded(key, raw, stale || !keep);
    });
    return { records, values: raws.slice(missing.length) };
  }

  /** Notes a read of a record key from the store (see recordReads); one that starts while a
   * commit is under way is stale from the start (the store may give the value before it). */
  private startRead(key: string): { readers: number; stale: boolean } {
    let reading = this.recordReads.get(key);
    if (!reading) this.recordReads.set(key, (reading = { readers: 0, stale: false }));
    reading.readers++;
    if (this.committing > 0) reading.stale = true;
    return reading;
  }

  private endRead(key: string, reading: { readers: number; stale: boolean }): void {
    if (--reading.readers === 0 && this.recordReads.get(key) === reading) this.recordReads.delete(key);
  }

  /** Decodes a record read from the store, and caches it unless a commit wrote its key (or
   * was under way) during the read. */
  private decoded(key: string, raw: string, stale: boolean): Entity {
    const record = deepFreeze(JSON.parse(raw) as Entity);
    if (stale || this.committing > 0) return record;
    const bytes = RECORD_COST * (key.length + raw.length);
    if (bytes > this.recordCacheLimit / 16) return record;
    this.forgetRecord(key);
    while (this.records.size > 0 && this.recordBytes + bytes > this.recordCacheLimit) this.dropOldestRecords(Math.max(1, this.records.size / 8));
    this.records.set(key, { record, bytes });
    this.recordBytes += bytes;
    return record;
  }

  private forgetRecord(key: string): void {
    const kept = this.records.get(key);
    if (!kept) return;
    this.records.delete(key);
    this.recordBytes -= kept.bytes;
  }

  /** Drops the `count` records kept longest, in one pass (see settle() for why not one by one). */
  private dropOldestRecords(count: number): void {
    for (const [key, kept] of this.records) {
      if (count-- <= 0) return;
      this.records.delete(key);
      this.recordBytes -= kept.bytes;
    }
  }

  /** The entity holding a unique field value. */
  async findUnique(kind: Kind, field: string, value: unknown): Promise<Entity | undefined> {
    const id = await this.kv.get(uniqueKey(kind, field, value));
    return id === undefined ? undefined : this.get(kind, id);
  }

  /** Ids of the entities whose indexed field equals value, in id order, read in one go. Small
   * index ranges are kept between commits (the range cache apply reads through, dropped by
   * every commit that writes the index), so presenting an entity rarely scans the store.
   * `keep` false: a range read now is not kept (see getMany). */
  async idsWhereList(kind: string, field: string, value: unknown, keep = true): Promise<string[]> {
    const range = indexValueRange(kind, field, value);
    // Kept as the keys themselves, under the name apply's transactions look them up by.
    return (await this.keptRange(range, rangeName(range), (key) => key, keep)).map(idFromIndexKey);
  }

  /** The members a policy link range names (the last part of each key), in key order, read in
   * one go. Kept between commits like idsWhereList's ranges (dropped by every commit that writes
   * links of the policy kind), so access questions over unchanged policies scan nothing. Shared:
   * the caller must not change the array. */
  linkMembers(range: { gt: string; lt: string }): Promise<readonly string[]> {
    // Kept as member ids, under a name rangeName never gives (those start with a digit).
    return this.keptRange(range, `m${rangeName(range)}`, lastPart);
  }

  /** A range's keys as `each` turns them, from the range cache or read now (and kept there if
   * no commit began meanwhile). Shared: the caller must not change the array. */
  private async keptRange(range: { gt: string; lt: string }, name: string, each: (key: string) => string, keep = true): Promise<string[]> {
    const bucket = keyBucket(range.gt)!;
    const kept = this.ranges.get(bucket, name);
    if (kept) return kept;
    const epoch = this.epoch;
    const values: string[] = [];
    for await (const key of this.kv.keys(range)) values.push(each(key));
    if (keep && epoch === this.epoch && this.committing === 0) this.ranges.set(bucket, name, values);
    return values;
  }

  /** Ids of the entities whose indexed field equals value, in id order. */
  async *idsWhere(kind: string, field: string, value: unknown): AsyncIterable<string> {
    for await (const key of this.kv.keys(indexValueRange(kind, field, value))) yield idFromIndexKey(key);
  }

  /** Ids whose indexed field is below `value` (nulls included), in value order. */
  async *idsBelow(kind: string, field: string, value: unknown): AsyncIterable<string> {
    const prefix = indexPrefix(kind, field);
    for await (const key of this.kv.keys({ gt: prefix, lt: `${prefix}${encodeValue(value)}` })) yield idFromIndexKey(key);
  }

  /** The distinct string values of an indexed (set) field, in byte order. */
  /** The distinct string values of an indexed field, in index order (or reversed), read as
   * they are asked for. */
  async *eachDistinctValue(kind: string, field: string, reverse = false): AsyncGenerator<string> {
    let last: string | undefined;
    for await (const key of this.kv.keys({ ...indexRange(kind, field), reverse })) {
      const encoded = valueFromIndexKey(key, kind, field);
      if (encoded === last) continue;
      last = encoded;
      const value = decodeStringValue(encoded);
      if (value !== undefined) yield value;
    }
  }

  count(kind: string): number {
    return this.counts.get(kind) ?? 0;
  }
}

/** Freezes a decoded JSON value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

/** A command stored after its expiry (by the log's own timestamp, the same on every node) is
 * refused: its proposer's requester was told the outcome is unknown and then that it failed. */
function isExpired(entry: LogEntry<Command>): boolean {
  return entry.timeMs !== undefined && entry.command.expires !== undefined && entry.timeMs > Date.parse(entry.command.expires);
}

/** A fence changes nothing; its refusal tells a proposer whose entry JetStream deduplicated
 * against it that its delivery was shut out (see Command.fence). */
const FENCED_RESULT: ApplyResult = {
  ok: false,
  error: new ApiError('TIMEOUT', { code: FENCED, message: 'a later delivery of this command shut this one out; its requester no longer waits for it' }).toWire(),
};

const EXPIRED: ApplyResult = {
  ok: false,
  error: new ApiError('TIMEOUT', { code: 'EXPIRED', message: 'the command reached the log after its expiry and was not applied' }).toWire(),
};
