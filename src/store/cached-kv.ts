// CachedKv: LevelDB for durability, an in-memory ordered mirror for every read. The mirror is
// loaded at open and updated after each batch is written, so reads never wait on LevelDB's
// thread pool; writes cost the same as before plus an in-memory insert.

import type { KvSnapshot } from './kv-snapshot.js';
import { LevelKv } from './level-kv.js';
import type { KvOp, KvRange, KvStore } from './kv.js';
import { MemoryKv } from './memory-kv.js';

const LOAD_CHUNK = 10_000;

export class CachedKv implements KvStore {
  private readonly disk: LevelKv;
  private mirror = new MemoryKv();

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
    await this.mirror.close();
    await this.disk.close();
  }

  get(key: string): Promise<string | undefined> {
    return this.mirror.get(key);
  }

  getMany(keys: string[]): Promise<(string | undefined)[]> {
    return this.mirror.getMany(keys);
  }

  /** Written to disk first; the mirror changes only once the disk write succeeded. */
  async batch(ops: KvOp[], opts?: { sync?: boolean }): Promise<void> {
    await this.disk.batch(ops, opts);
    await this.mirror.batch(ops);
  }

  entries(range: KvRange): AsyncIterable<[string, string]> {
    return this.mirror.entries(range);
  }

  keys(range: KvRange): AsyncIterable<string> {
    return this.mirror.keys(range);
  }

  /** A consistent point-in-time view: an explicit LevelDB snapshot of the durable store. */
  snapshot(): KvSnapshot {
    return this.disk.snapshot();
  }
}
