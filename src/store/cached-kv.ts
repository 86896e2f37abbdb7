// CachedKv: LevelDB for durability, an in-memory ordered mirror for every read. The mirror is
// loaded at open. A synced batch goes to disk first; an unsynced one (the replica's applies,
// whose durable truth is the log) lands in the mirror at once and is written behind, several
// batches coalesced into one LevelDB write, always in order.

import type { KvSnapshot } from './kv-snapshot.js';
import { LevelKv } from './level-kv.js';
import type { KvOp, KvRange, KvStore } from './kv.js';
import { MemoryKv } from './memory-kv.js';

const LOAD_CHUNK = 10_000;

export class CachedKv implements KvStore {
  private readonly disk: LevelKv;
  private mirror = new MemoryKv();
  private pending: KvOp[] = [];
  private flushing: Promise<void> | undefined;
  private failure: Error | undefined;

  constructor(opts: { path: string }) {
    this.disk = new LevelKv(opts);
  }

  /** Opens LevelDB and copies it into memory, streaming in chunks. */
  async open(): Promise<void> {
    await this.disk.open();
    this.mirror = new MemoryKv();
    await this.mirror.open();
    let chunk: KvOp[] = [];
    for await (const [key, value] of this.disk.entries({})) {
      chunk.push({ type: 'put', key, value });
      if (chunk.length >= LOAD_CHUNK) {
        await this.mirror.batch(chunk);
        chunk = [];
      }
    }
    await this.mirror.batch(chunk);
  }

  async close(): Promise<void> {
    await this.flush();
    await this.mirror.close();
    await this.disk.close();
  }

  get(key: string): Promise<string | undefined> {
    return this.mirror.get(key);
  }

  getMany(keys: string[]): Promise<(string | undefined)[]> {
    return this.mirror.getMany(keys);
  }

  /** Synced: disk first (after everything written behind), then the mirror. Unsynced: the
   * mirror now (it validates the ops), the disk soon after. */
  async batch(ops: KvOp[], opts?: { sync?: boolean }): Promise<void> {
    if (this.failure) throw this.failure;
    if (opts?.sync) {
      await this.flush();
      await this.disk.batch(ops, opts);
      await this.mirror.batch(ops);
      return;
    }
    await this.mirror.batch(ops);
    if (ops.length === 0) return;
    this.pending.push(...ops);
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
        const ops = this.pending;
        this.pending = [];
        await this.disk.batch(ops);
      }
    } catch (err) {
      // The disk refused a write the mirror accepted: stop taking writes rather than diverge.
      this.failure = err instanceof Error ? err : new Error(String(err));
    } finally {
      this.flushing = undefined;
    }
  }

  entries(range: KvRange): AsyncIterable<[string, string]> {
    return this.mirror.entries(range);
  }

  keys(range: KvRange): AsyncIterable<string> {
    return this.mirror.keys(range);
  }

  /** A consistent point-in-time view: an explicit LevelDB snapshot of the disk, which always
   * holds a prefix of the batches (whole applies with their appliedSeq), perhaps a few behind. */
  snapshot(): KvSnapshot {
    return this.disk.snapshot();
  }
}
