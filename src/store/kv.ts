// The ordered key-value contract the replica is built on. Implementations: MemoryKv (tests,
// ephemeral nodes) and LevelKv (classic-level on disk). Keys and values are strings.

export type KvOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

/** A key range; bounds are optional and compared byte-wise (UTF-8 order). */
export interface KvRange {
  gt?: string;
  gte?: string;
  lt?: string;
  lte?: string;
  reverse?: boolean;
  /** Stop after this many entries; -1 or absent = no limit. */
  limit?: number;
}

export interface KvStore {
  open(): Promise<void>;
  close(): Promise<void>;
  get(key: string): Promise<string | undefined>;
  getMany(keys: string[]): Promise<(string | undefined)[]>;
  /** Applies all ops atomically; with sync the write is on disk when the promise resolves. */
  batch(ops: KvOp[], opts?: { sync?: boolean }): Promise<void>;
  /** Streams entries in key order (or reverse) without loading the range into memory. */
  entries(range: KvRange): AsyncIterable<[string, string]>;
  keys(range: KvRange): AsyncIterable<string>;
}
