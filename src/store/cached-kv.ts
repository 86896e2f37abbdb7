// CachedKv: LevelDB for durability, an in-memory ordered mirror for every read. The mirror is
// built in the background after open (the node serves from LevelDB meanwhile). Once it is
// warm, an unsynced batch (the replica's applies, whose durable truth is the log) lands in the
// mirror at once and is written behind, several batches coalesced into one LevelDB write.

import type { KvSnapshot } from './kv-snapshot.js';
import { LevelKv } from './level-kv.js';
import type { KvOp, KvRange, KvStore } from './kv.js';
import { MemoryKv } from './memory-kv.js';

const LOAD_CHUNK = 10_000;

export class CachedKv implements KvStore {
  private readonly disk: LevelKv;
  private mirror = new MemoryKv();
  /** True once the mirror holds everything: reads and writes switch to it. */
  private warm = false;
  /** Writes made while the mirror is being built, replayed into it before it is used. */
  private journal: KvOp[][] | undefined;
  private warming: Promise<void> | undefined;
  /** Batches applied to the mirror and not yet handed to the disk. */
  private pending: KvOp[][] = [];
  private flushing: Promise<void> | undefined;
  private failure: Error | undefined;

  constructor(opts: { path: string }) {
    this.disk = new LevelKv(opts);
  }

  /** Opens LevelDB and starts building the mirror; reads are served from disk until it is warm. */
  async open(): Promise<void> {
    await this.disk.open();
    this.warm = false;
    this.mirror = new MemoryKv();
    await this.mirror.open();
    this.journal = [];
    this.warming = this.build().catch((err) => {
      this.failure = err instanceof Error ? err : new Error(String(err));
    });
  }

  /** Resolves when reads are served from memory (tests and benchmarks wait for it). */
  async whenWarm(): Promise<void> {
    await this.warming;
    if (this.failure) throw this.failure;
  }

  private async build(): Promise<void> {
    const entries: [string, string][] = [];
    for await (const chunk of this.disk.chunks({}, LOAD_CHUNK)) {
      for (const entry of chunk) entries.push(entry);
    }
    this.mirror.bulkLoad(entries);
    for (const ops of this.journal ?? []) await this.mirror.batch(ops);
    this.journal = undefined;
    this.warm = true;
  }

  async close(): Promise<void> {
    await this.warming;
    await this.flush();
    await this.mirror.close();
    await this.disk.close();
  }

  get(key: string): Promise<string | undefined> {
    return this.warm ? this.mirror.get(key) : this.disk.get(key);
  }

  getMany(keys: string[]): Promise<(string | undefined)[]> {
    return this.warm ? this.mirror.getMany(keys) : this.disk.getMany(keys);
  }

  /** While warming, or synced: disk first, then the mirror (or its journal). Warm and
   * unsynced: the mirror now (it validates the ops), the disk soon after. */
  async batch(ops: KvOp[], opts?: { sync?: boolean }): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.warm || opts?.sync) {
      await this.flush();
      await this.disk.batch(ops, opts);
      if (this.journal) this.journal.push(ops);
      else await this.mirror.batch(ops);
      return;
    }
    await this.mirror.batch(ops);
    if (ops.length === 0) return;
    this.pending.push(ops);
    this.flushing ??= this.writeBehind();
  }

  /** Resolves once everything batched so far is on disk (LevelDB's own write, not synced). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.failure) throw this.failure;
  }

  private async writeBehind(): Promise<void> {
    // Yield first, so that `flushing` is set before this run can clear it.
    await Promise.resolve();
    try {
      while (this.pending.length > 0) {
        const batches = this.pending;
        this.pending = [];
        await this.disk.batch(batches.length === 1 ? batches[0] : joined(batches));
      }
    } catch (err) {
      // The disk refused a write the mirror accepted: stop taking writes rather than diverge.
      this.failure = err instanceof Error ? err : new Error(String(err));
    } finally {
      this.flushing = undefined;
    }
  }

  entries(range: KvRange): AsyncIterable<[string, string]> {
    return this.warm ? this.mirror.entries(range) : this.disk.entries(range);
  }

  keys(range: KvRange): AsyncIterable<string> {
    return this.warm ? this.mirror.keys(range) : this.disk.keys(range);
  }

  async countKeys(range: KvRange): Promise<number> {
    if (this.warm) return this.mirror.countKeys(range);
    let count = 0;
    for await (const _ of this.disk.keys(range)) count++;
    return count;
  }

  /** A consistent point-in-time view of everything applied so far: the mirror's snapshot once
   * warm (the disk may be a few batches behind it), else an explicit LevelDB snapshot (while
   * warming, every batch is on disk before it returns). */
  snapshot(): KvSnapshot {
    return this.warm ? this.mirror.snapshot() : this.disk.snapshot();
  }
}

/** Several batches as one list of ops, in order (a loop: spreading a batch of a few hundred
 * thousand ops into push() overflows the stack). */
function joined(batches: KvOp[][]): KvOp[] {
  const out: KvOp[] = [];
  for (const ops of batches) for (const op of ops) out.push(op);
  return out;
}
