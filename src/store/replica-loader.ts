// ReplicaLoader: fills a new LevelDB directory from snapshot chunks (snapshot-content.ts) with
// large batches of the records' raw bytes: nothing is decoded to strings, and one batch is
// written while the next chunk is split. Only ever writes a directory no store has open.

import { chmod, mkdir } from 'node:fs/promises';
import { ClassicLevel } from 'classic-level';
import { forEachRecord } from './snapshot-content.js';

/** LevelDB's write buffer while loading (bytes): fewer, larger level-0 tables than the default 4 MiB. */
const WRITE_BUFFER_BYTES = 64 * 1024 * 1024;

type RawDb = ClassicLevel<Buffer, Buffer>;

export class ReplicaLoader {
  private readonly db: RawDb;
  /** The batch being written, awaited before the next one is written (LevelDB writes one at a time). */
  private writing: Promise<void> = Promise.resolve();
  private readonly watchKey: Buffer;
  /** Keys loaded so far. */
  keys = 0;
  /** The value of `watchKey` when a record carried it. */
  watched: Buffer | undefined;

  /** `watchKey`: a key whose value the caller wants back (the applied sequence). */
  private constructor(readonly path: string, watchKey: string) {
    this.db = new ClassicLevel<Buffer, Buffer>(path, { keyEncoding: 'buffer', valueEncoding: 'buffer', writeBufferSize: WRITE_BUFFER_BYTES });
    this.watchKey = Buffer.from(watchKey, 'utf8');
  }

  /** Creates and opens a new database at `path` (owner-only; fails if one exists there). */
  static async create(path: string, watchKey: string): Promise<ReplicaLoader> {
    await mkdir(path, { recursive: true, mode: 0o700 });
    await chmod(path, 0o700);
    const loader = new ReplicaLoader(path, watchKey);
    await loader.db.open({ createIfMissing: true, errorIfExists: true });
    return loader;
  }

  /** Queues the records of one chunk (throws SnapshotContentError on malformed content). */
  async load(chunk: Buffer): Promise<void> {
    const batch = this.db.batch();
    try {
      this.keys += forEachRecord(chunk, (key, value) => {
        if (key.equals(this.watchKey)) this.watched = Buffer.from(value);
        batch.put(key, value);
      });
      await this.writing;
    } catch (err) {
      await batch.close();
      throw err;
    }
    this.writing = batch.write();
  }

  /** Waits for every queued write and makes them durable (one synced write of `key`). */
  async finish(key: string, value: string): Promise<void> {
    await this.writing;
    await this.db.put(Buffer.from(key, 'utf8'), Buffer.from(value, 'utf8'), { sync: true });
  }

  async close(): Promise<void> {
    await this.writing.catch(() => undefined);
    await this.db.close();
  }
}
