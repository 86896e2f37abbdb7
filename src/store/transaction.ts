// A write set over the KV store that sees its own writes: apply builds one per command and
// commits it as a single atomic batch (or drops it when the command is rejected).

import type { KvOp, KvStore } from './kv.js';

export class Transaction {
  private readonly writes = new Map<string, string | null>();

  constructor(private readonly kv: KvStore) {}

  async get(key: string): Promise<string | undefined> {
    if (this.writes.has(key)) return this.writes.get(key) ?? undefined;
    return this.kv.get(key);
  }

  put(key: string, value: string): void {
    this.writes.set(key, value);
  }

  del(key: string): void {
    this.writes.set(key, null);
  }

  /** Keys in [gt, lt) as the transaction sees them. Meant for small ranges (one entity's links). */
  async keysIn(range: { gt: string; lt: string }): Promise<string[]> {
    const keys = new Set<string>();
    for await (const key of this.kv.keys(range)) keys.add(key);
    for (const [key, value] of this.writes) {
      if (key <= range.gt || key >= range.lt) continue;
      if (value === null) keys.delete(key);
      else keys.add(key);
    }
    return [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }

  /** Entries in [gt, lt) as the transaction sees them, in key order. Meant for modest ranges
   * (the policies of one kind), since the range is gathered before it is returned. */
  async entriesIn(range: { gt: string; lt: string }): Promise<[string, string][]> {
    const entries = new Map<string, string>();
    for await (const [key, value] of this.kv.entries(range)) entries.set(key, value);
    for (const [key, value] of this.writes) {
      if (key <= range.gt || key >= range.lt) continue;
      if (value === null) entries.delete(key);
      else entries.set(key, value);
    }
    return [...entries].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }

  /** True when some key in the range exists as the transaction sees it. */
  async anyIn(range: { gt: string; lt: string }): Promise<boolean> {
    for (const [key, value] of this.writes) {
      if (key > range.gt && key < range.lt && value !== null) return true;
    }
    for await (const key of this.kv.keys(range)) {
      if (this.writes.get(key) !== null) return true;
    }
    return false;
  }

  clear(): void {
    this.writes.clear();
  }

  ops(): KvOp[] {
    return [...this.writes].map(([key, value]) =>
      value === null ? { type: 'del' as const, key } : { type: 'put' as const, key, value },
    );
  }
}
