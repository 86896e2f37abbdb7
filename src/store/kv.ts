// The ordered key-value contract the replica is built on. Implementations: MemoryKv (tests,
// ephemeral nodes) and LevelKv (classic-level on disk). Keys and values are strings.

/** One write in a batch. Keys must be well-formed strings (no lone surrogates): both stores
 * reject a batch containing one, since UTF-8 cannot represent it. */
export type KvOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

/** A key range; bounds are optional and compared byte-wise (UTF-8 order, as LevelDB; use
 * compareUtf8 from compare-utf8.ts, not `<`). If both are given, gte wins over gt and lte over lt. */
export interface KvRange {
  gt?: string;
  gte?: string;
  lt?: string;
  lte?: string;
  reverse?: boolean;
  /** Stop after this many entries; 0 yields nothing; -1 or absent = no limit. */
  limit?: number;
}

/** An ordered string store (implementations: MemoryKv, LevelKv; shared suite in
 * test/contract/kv-contract.ts). Operations reject when the store is not open. */
export interface KvStore {
  open(): Promise<void>;
  close(): Promise<void>;
  get(key: string): Promise<string | undefined>;
  getMany(keys: string[]): Promise<(string | undefined)[]>;
  /** Applies all ops atomically; with sync the write is on disk when the promise resolves. */
  batch(ops: KvOp[], opts?: { sync?: boolean }): Promise<void>;
  /** Streams entries in key order (or reverse) without loading the range into memory. The
   * iteration reads a snapshot taken at its first next(): writes made meanwhile are not seen. */
  entries(range: KvRange): AsyncIterable<[string, string]>;
  keys(range: KvRange): AsyncIterable<string>;
  /** Optional fast count of the keys in a range (in-memory stores), without yielding them. */
  countKeys?(range: KvRange): Promise<number>;
  /** Optional read on the calling thread, for a key that is expected not to be stored (a new
   * record's id): LevelDB answers such a key from its memtable and Bloom filters, with no data
   * block read and no hand-over to a worker thread, which an async get costs. */
  getAbsent?(key: string): string | undefined;
  /** Optional: `entries` in the chunks the store reads them in (LevelKv: one native read each),
   * for scans of millions of keys, which so spare a promise and a result object per entry. */
  entryChunks?(range: KvRange): AsyncIterable<[string, string][]>;
}

/** A range's entries in chunks: the store's own (KvStore.entryChunks) or one entry each. */
export async function* entryChunks(kv: KvStore, range: KvRange): AsyncIterable<[string, string][]> {
  if (kv.entryChunks) {
    yield* kv.entryChunks(range);
    return;
  }
  for await (const entry of kv.entries(range)) yield [entry];
}
