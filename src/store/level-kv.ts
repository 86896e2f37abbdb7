// LevelKv: the on-disk KvStore over classic-level (LevelDB). Owns the data directory's
// owner-only permissions, synced atomic batches and streaming (never buffered) iteration.

import { chmod, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { assertValidOps, isValidKey } from './compare-utf8.js';
import type { KvOp, KvRange, KvStore } from './kv.js';
import type { KvSnapshot } from './kv-snapshot.js';

/** Directory mode: owner-only. The directory is the access barrier for everything inside. */
const DIR_MODE = 0o700;
/** File mode applied to LevelDB's files after open and close. */
const FILE_MODE = 0o600;

/** Options for {@link LevelKv}. */
export interface LevelKvOptions {
  /** The data directory; created (with parents) if missing, and forced to mode 0o700. */
  path: string;
  /** LevelDB's block cache in bytes (classic-level's default, 8 MiB, when absent). */
  cacheSize?: number;
}

type Db = ClassicLevel<string, string>;
type LevelRange = { gt?: string; gte?: string; lt?: string; lte?: string; reverse: boolean; limit: number };

/**
 * The LevelDB-backed KvStore. Permissions: the directory is chmod'ed 0o700 on every open, and
 * the files in it 0o600 after open and after close. LevelDB itself creates files (new tables
 * after compaction, logs, MANIFEST) with 0o666 & ~umask; we do not touch the process-wide umask,
 * so such files may briefly be group/world-readable by mode — but they sit in a 0o700 directory
 * that no other user can traverse, and the next open/close (or restrictPermissions()) tightens them.
 */
export class LevelKv implements KvStore {
  /** The data directory. */
  readonly path: string;
  readonly #cacheSize: number | undefined;
  #db: Db | null = null;

  constructor(opts: LevelKvOptions) {
    this.path = opts.path;
    this.#cacheSize = opts.cacheSize;
  }

  async open(): Promise<void> {
    if (this.#db !== null) return;
    await mkdir(this.path, { recursive: true, mode: DIR_MODE });
    await chmod(this.path, DIR_MODE); // mkdir's mode is filtered by the umask, and skipped if it exists
    const db: Db = new ClassicLevel<string, string>(this.path, {
      keyEncoding: 'utf8',
      valueEncoding: 'utf8',
      ...(this.#cacheSize === undefined ? {} : { cacheSize: this.#cacheSize }),
    });
    await db.open();
    this.#db = db;
    await this.restrictPermissions();
  }

  async close(): Promise<void> {
    const db = this.#db;
    if (db === null) return;
    this.#db = null;
    await db.close();
    await this.restrictPermissions();
  }

  /** Sets the directory to 0o700 and every file in it to 0o600 (safe to call at any time). */
  async restrictPermissions(): Promise<void> {
    await chmod(this.path, DIR_MODE);
    for (const entry of await readdir(this.path, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      await chmod(join(this.path, entry.name), FILE_MODE).catch(ignoreVanished);
    }
  }

  async get(key: string): Promise<string | undefined> {
    const db = this.#open();
    return isValidKey(key) ? db.get(key) : undefined;
  }

  /** See KvStore.getAbsent (classic-level's getSync). */
  getAbsent(key: string): string | undefined {
    const db = this.#open();
    return isValidKey(key) ? db.getSync(key) : undefined;
  }

  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    const db = this.#open();
    if (keys.every(isValidKey)) return db.getMany(keys);
    const found = await db.getMany(keys.filter(isValidKey));
    let next = 0;
    return keys.map((key) => (isValidKey(key) ? found[next++] : undefined));
  }

  /** One LevelDB WriteBatch (atomic). With `sync: true` LevelDB fsyncs before resolving.
   * Written through classic-level's chained batch: its array form copies, re-validates and
   * re-encodes every op object, which costs about twice as much per op on the event loop. */
  async batch(ops: KvOp[], opts?: { sync?: boolean }): Promise<void> {
    const db = this.#open();
    assertValidOps(ops);
    if (ops.length === 0) return;
    const batch = db.batch();
    try {
      for (const op of ops) {
        if (op.type === 'put') batch.put(op.key, op.value);
        else batch.del(op.key);
      }
    } catch (err) {
      await batch.close();
      throw err;
    }
    await batch.write({ sync: opts?.sync === true });
  }

  entries(range: KvRange): AsyncIterable<[string, string]> {
    return iterate(this.#open().iterator(levelRange(range)), entryOf);
  }

  /** Entries in chunks of up to `size` (one native call per chunk): the fast way to read a
   * whole store. The iterator reads the snapshot taken when it was created. */
  async *chunks(range: KvRange, size: number): AsyncIterable<[string, string][]> {
    const iterator = this.#open().iterator(levelRange(range));
    try {
      for (;;) {
        const chunk = await iterator.nextv(size);
        if (chunk.length === 0) return;
        yield chunk;
      }
    } finally {
      await iterator.close();
    }
  }

  keys(range: KvRange): AsyncIterable<string> {
    return iterate(this.#open().iterator({ ...levelRange(range), values: false }), keyOf);
  }

  /** See KvStore.entryChunks: each chunk is one native read (up to READ_AHEAD entries). */
  entryChunks(range: KvRange): AsyncIterable<[string, string][]> {
    return chunks(this.#open().iterator(levelRange(range)));
  }

  /** A read-only view of the store as it is now (an explicit LevelDB snapshot): every read
   * of the view sees that instant. Close the view when done. */
  snapshot(): KvSnapshot {
    const db = this.#open();
    const snapshot = db.snapshot();
    const options = { snapshot };
    return {
      open: async () => undefined,
      close: () => snapshot.close(),
      get: async (key) => (isValidKey(key) ? db.get(key, options) : undefined),
      getMany: async (keys) => {
        const valid = keys.filter(isValidKey);
        const found = await db.getMany(valid, options);
        let next = 0;
        return keys.map((key) => (isValidKey(key) ? found[next++] : undefined));
      },
      batch: () => Promise.reject(new Error('a snapshot view is read-only')),
      entries: (range) => iterate(db.iterator({ ...levelRange(range), snapshot }), entryOf),
      keys: (range) => iterate(db.iterator({ ...levelRange(range), snapshot, values: false }), keyOf),
      entryChunks: (range) => chunks(db.iterator({ ...levelRange(range), snapshot })),
    };
  }

  #open(): Db {
    if (this.#db === null) throw new Error(`LevelKv is not open (${this.path})`);
    return this.#db;
  }
}

/** Only defined bounds are passed: classic-level treats a present-but-undefined bound as a key. */
function levelRange(range: KvRange): LevelRange {
  const limit = Number.isInteger(range.limit) && (range.limit as number) >= 0 ? (range.limit as number) : -1;
  const out: LevelRange = { reverse: range.reverse === true, limit };
  if (range.gt !== undefined) out.gt = range.gt;
  if (range.gte !== undefined) out.gte = range.gte;
  if (range.lt !== undefined) out.lt = range.lt;
  if (range.lte !== undefined) out.lte = range.lte;
  return out;
}

/** What iterate() uses of a classic-level iterator over string keys and values. */
type LevelIterator = { nextv(size: number): Promise<[string, string][]>; close(): Promise<void> };

const entryOf = (entry: [string, string]): [string, string] => entry;
const keyOf = (entry: [string, string]): string => entry[0];

/** Entries a native read returns at most (classic-level's own `next()` reads 1,000 ahead too;
 * the binding also stops at its byte high-water mark). */
const READ_AHEAD = 1_000;

/**
 * Streams a classic-level iterator through its `nextv` and always closes it. Reading the native
 * chunks directly, rather than with `for await` over the iterator, spares every item the
 * iterator's own async `next()` and async generator (two promises and a result object each)
 * and, for keys, classic-level's key-iterator wrapper, which reads through a second iterator:
 * an integrity check over 100,000 identities allocated about half its 8.8 GB there, and its
 * young-generation collections came that much more often.
 */
async function* iterate<T>(iterator: LevelIterator, pick: (entry: [string, string]) => T): AsyncIterable<T> {
  for await (const chunk of chunks(iterator)) for (const entry of chunk) yield pick(entry);
}

/** The iterator's native reads as they come, then closes it. The first read asks for one entry,
 * as classic-level does: many ranges are read for their first key only. */
async function* chunks(iterator: LevelIterator): AsyncIterable<[string, string][]> {
  try {
    for (let size = 1; ; size = READ_AHEAD) {
      const chunk = await iterator.nextv(size);
      if (chunk.length === 0) return;
      yield chunk;
    }
  } finally {
    await iterator.close();
  }
}

/** Compaction may delete a file between readdir and chmod. */
function ignoreVanished(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}
