// The replica: the node's LevelDB copy of all model data, built by applying the log in order.
// Owns apply results and read access; it never decides anything non-deterministic.

import { EventEmitter } from 'node:events';
import { ApiError, toApiError } from '../errors.js';
import type { ApplyResult, Command, Entity } from '../domain/commands.js';
import { RESOURCES } from '../domain/registry.js';
import type { LogEntry } from '../log/log.js';
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
  recordKey,
  uniqueKey,
  valueFromIndexKey,
} from './keys.js';
import type { KvStore } from './kv.js';
import { Transaction } from './transaction.js';

/** How many recent apply results are kept for proposers that have not collected theirs yet. */
const RESULTS_KEPT = 20_000;

export interface AppliedEvent {
  seq: number;
  command: Command;
  result: ApplyResult;
}

export class Replica {
  private applied = 0;
  private readonly counts = new Map<string, number>();
  private readonly results = new Map<number, ApplyResult>();
  private readonly waiters = new Map<number, ((r: ApplyResult) => void)[]>();
  /** Emits 'applied' (AppliedEvent) after each command is committed to the store. */
  readonly events = new EventEmitter();

  constructor(readonly kv: KvStore) {
    this.events.setMaxListeners(100);
  }

  async open(): Promise<void> {
    this.applied = Number((await this.kv.get(APPLIED_SEQ_KEY)) ?? 0);
    for (const decl of RESOURCES) this.counts.set(decl.kind, Number((await this.kv.get(countKey(decl.kind))) ?? 0));
  }

  /** The highest log sequence applied to this replica. */
  get appliedSeq(): number {
    return this.applied;
  }

  /** Applies one log entry; called in log order by the apply loop. A command whose writes the
   * store refuses is rejected like any other: the loop never stops on one entry. */
  async apply(entry: LogEntry<Command>): Promise<void> {
    if (entry.seq <= this.applied) return;
    const tx = new Transaction(this.kv);
    let result: ApplyResult = { ok: true };
    let deltas = new Map<string, number>();
    try {
      deltas = await applyCommand(tx, entry.command, (kind) => this.count(kind));
      this.stageCounts(tx, deltas);
      tx.put(APPLIED_SEQ_KEY, String(entry.seq));
      await this.kv.batch(tx.ops());
    } catch (err) {
      deltas = new Map();
      result = { ok: false, error: toApiError(err).toWire() };
      await this.kv.batch([{ type: 'put', key: APPLIED_SEQ_KEY, value: String(entry.seq) }]);
    }
    for (const [kind, delta] of deltas) this.counts.set(kind, (this.counts.get(kind) ?? 0) + delta);
    this.applied = entry.seq;
    this.settle(entry.seq, result);
    this.events.emit('applied', { seq: entry.seq, command: entry.command, result } satisfies AppliedEvent);
  }

  private stageCounts(tx: Transaction, deltas: Map<string, number>): void {
    for (const [kind, delta] of deltas) tx.put(countKey(kind), String((this.counts.get(kind) ?? 0) + delta));
  }

  private settle(seq: number, result: ApplyResult): void {
    this.results.set(seq, result);
    if (this.results.size > RESULTS_KEPT) {
      const oldest = this.results.keys().next().value;
      if (oldest !== undefined) this.results.delete(oldest);
    }
    const waiting = this.waiters.get(seq);
    if (!waiting) return;
    this.waiters.delete(seq);
    for (const resolve of waiting) resolve(result);
  }

  /** Resolves with the result of `seq` once this replica has applied it (read-your-writes). */
  waitFor(seq: number, timeoutMs = 10_000): Promise<ApplyResult> {
    const known = this.results.get(seq);
    if (known) return Promise.resolve(known);
    if (seq <= this.applied) return Promise.resolve({ ok: true });
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

  async get(kind: string, id: string): Promise<Entity | undefined> {
    const raw = await this.kv.get(recordKey(kind, id));
    return raw === undefined ? undefined : (JSON.parse(raw) as Entity);
  }

  async getMany(kind: string, ids: string[]): Promise<(Entity | undefined)[]> {
    const raws = await this.kv.getMany(ids.map((id) => recordKey(kind, id)));
    return raws.map((raw) => (raw === undefined ? undefined : (JSON.parse(raw) as Entity)));
  }

  /** The entity holding a unique field value. */
  async findUnique(kind: string, field: string, value: unknown): Promise<Entity | undefined> {
    const id = await this.kv.get(uniqueKey(kind, field, value));
    return id === undefined ? undefined : this.get(kind, id);
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
  async distinctValues(kind: string, field: string): Promise<string[]> {
    const values: string[] = [];
    let last: string | undefined;
    for await (const key of this.kv.keys(indexRange(kind, field))) {
      const encoded = valueFromIndexKey(key, kind, field);
      if (encoded === last) continue;
      last = encoded;
      const value = decodeStringValue(encoded);
      if (value !== undefined) values.push(value);
    }
    return values;
  }

  count(kind: string): number {
    return this.counts.get(kind) ?? 0;
  }
}
