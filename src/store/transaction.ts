// A write set over the KV store that sees its own writes: apply builds one per command and
// commits it as a single atomic batch (or drops it when the command is rejected). Its writes
// are also kept in an ordered overlay so range reads cost log(n) however large the command is.

import { compareUtf8 } from './compare-utf8.js';
import type { KvOp, KvStore } from './kv.js';
import { MemoryKv } from './memory-kv.js';

/** How a deletion is kept in the ordered overlay (values there are never this string). */
const TOMBSTONE = '\u0000\u0000deleted';

export class Transaction {
  /** Written keys → value (null = deleted). */
  private readonly writes = new Map<string, string | null>();
  /** The same writes in key order, for range reads; filled lazily from `pending`. */
  private overlay = new MemoryKv();
  private pending: string[] = [];
  private opened = false;

  constructor(private readonly kv: KvStore) {}

  async get(key: string): Promise<string | undefined> {
    if (this.writes.has(key)) return this.writes.get(key) ?? undefined;
    return this.kv.get(key);
  }

  /** Several reads in one round trip to the store. */
  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    const missing = keys.filter((key) => !this.writes.has(key));
    const stored = missing.length > 0 ? await this.kv.getMany(missing) : [];
    const found = new Map(missing.map((key, i) => [key, stored[i]]));
    return keys.map((key) => (this.writes.has(key) ? (this.writes.get(key) ?? undefined) : found.get(key)));
  }

  put(key: string, value: string): void {
    this.writes.set(key, value);
    this.pending.push(key);
  }

  del(key: string): void {
    this.writes.set(key, null);
    this.pending.push(key);
  }

  /** The transaction's own writes strictly inside (gt, lt), in key order. */
  private async written(range: { gt: string; lt: string }): Promise<[string, string | null][]> {
    if (this.writes.size === 0) return [];
    if (!this.opened) {
      await this.overlay.open();
      this.opened = true;
    }
    if (this.pending.length > 0) {
      const ops = this.pending.map((key) => ({ type: 'put' as const, key, value: this.writes.get(key) ?? TOMBSTONE }));
      this.pending = [];
      await this.overlay.batch(ops);
    }
    const out: [string, string | null][] = [];
    for await (const [key, value] of this.overlay.entries(range)) out.push([key, value === TOMBSTONE ? null : value]);
    return out;
  }

  /** Keys in (gt, lt) as the transaction sees them. Meant for modest ranges (one entity's links,
   * one attribute's members), since the range is gathered before it is returned. */
  async keysIn(range: { gt: string; lt: string }): Promise<string[]> {
    const own = await this.written(range);
    const stored: string[] = [];
    for await (const key of this.kv.keys(range)) stored.push(key);
    if (own.length === 0) return stored;
    const keys = new Set(stored);
    for (const [key, value] of own) {
      if (value === null) keys.delete(key);
      else keys.add(key);
    }
    return [...keys].sort(compareUtf8);
  }

  /** True when some key in the range exists as the transaction sees it. */
  async anyIn(range: { gt: string; lt: string }): Promise<boolean> {
    for (const [, value] of await this.written(range)) if (value !== null) return true;
    for await (const key of this.kv.keys(range)) {
      if (this.writes.get(key) !== null) return true;
    }
    return false;
  }

  clear(): void {
    this.writes.clear();
    this.pending = [];
    this.overlay = new MemoryKv();
    this.opened = false;
  }

  ops(): KvOp[] {
    return [...this.writes].map(([key, value]) =>
      value === null ? { type: 'del' as const, key } : { type: 'put' as const, key, value },
    );
  }
}
