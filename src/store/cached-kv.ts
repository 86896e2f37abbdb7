// CachedKv: LevelDB is the truth for every key; memory holds, within a budget, what pays for
// itself. The index families (`i` secondary indexes, `u` unique keys, `n` counts, `m` meta) are
// mirrored whole in a counted B+tree with packed leaves (front-coded, decoded on use: about 10
// bytes of heap an index key), so indexed range reads and O(log n) range counts never touch the disk; records, policy links and policy lists (`r`, `l`, `e`: most of the bytes) are read
// from LevelDB, through its block cache and a byte-bounded LRU of values (and of keys known absent). The tree is built in the
// background after open (reads are served from LevelDB meanwhile); if it would outgrow its share
// of the budget it is dropped and the node carries on from LevelDB: slower, never out of memory.
// An unsynced batch (the replica's applies, whose durable truth is the log) lands in memory at
// once and is written behind, several batches coalesced into one LevelDB write; until then its
// keys are read from an overlay of pending writes.

import { assertValidOps, compareUtf8 } from './compare-utf8.js';
import type { KvSnapshot } from './kv-snapshot.js';
import { LevelKv } from './level-kv.js';
import type { KvOp, KvRange, KvStore } from './kv.js';
import { MemoryKv } from './memory-kv.js';
import { LeafRing } from './packed-leaf.js';

const MIB = 1024 * 1024;
/** The default memory budget (`--cache-mb`). */
export const DEFAULT_CACHE_MB = 512;
// Entries loaded between two turns of the event loop (about 10 ms of work: requests wait no longer).
const LOAD_CHUNK = 4_000;
/** The key families mirrored in the counted tree (a key `c␀…` with c in this set). */
const TREE_FAMILIES = new Set(['i', 'm', 'n', 'u']);
/** Heap bytes a tree entry is taken to cost before the tree is measured (it is, once loaded). */
const ENTRY_OVERHEAD = 72;
/** Heap bytes an LRU entry costs beyond its characters (two strings, the map entry). */
const LRU_OVERHEAD = 96;

/** Options for {@link CachedKv}. */
export interface CachedKvOptions {
  path: string;
  /** The memory budget in bytes (default DEFAULT_CACHE_MB MiB), shared as budgetShares() says. */
  cacheBytes?: number;
  /** Build the index tree only when startWarming() is called (a node starts it once it serves,
   * so the build does not take the CPU start-up needs); by default open() starts it. */
  deferWarming?: boolean;
}

/** How the one memory budget (`--cache-mb`) is shared by everything the replica keeps:
 * LevelDB's block cache a quarter, the packed index tree half, the leaves of the tree decoded
 * for use a sixteenth, the raw values read from disk a sixteenth, and the replica's decoded
 * records an eighth. The shares add up to the budget. */
export interface BudgetShares {
  blockCache: number;
  tree: number;
  decodedLeaves: number;
  values: number;
  records: number;
}

export function budgetShares(cacheBytes: number): BudgetShares {
  const part = (n: number, d: number) => Math.floor((cacheBytes * n) / d);
  return { blockCache: part(1, 4), tree: part(1, 2), decodedLeaves: part(1, 16), values: part(1, 16), records: part(1, 8) };
}

/** True for a key the tree mirrors. */
function inTree(key: string): boolean {
  return key.length > 1 && key.charCodeAt(1) === 0 && TREE_FAMILIES.has(key[0]);
}

/** True for a key whose raw value the LRU keeps: not the tree's (they are in the tree), nor a
 * record's (`r`): the replica keeps records decoded within its own share, and keeping the raw
 * text as well would hold, and count, each hot record twice. */
function keepsRaw(key: string): boolean {
  return !inTree(key) && !(key.length > 1 && key.charCodeAt(1) === 0 && key[0] === 'r');
}

/** A pending write: its value (null = deleted) and the number of the batch that made it. */
interface Pending {
  value: string | null;
  gen: number;
}

export class CachedKv implements KvStore {
  private readonly disk: LevelKv;
  /** The budget's shares (the replica sizes its record cache from `records`). */
  readonly shares: BudgetShares;
  /** Bounds the tree's decoded leaves to their share. */
  readonly leafRing: LeafRing;
  /** The index tree; undefined when it was dropped (over budget) or is not built yet. */
  private tree: MemoryKv | undefined;
  /** True once the tree holds every key of its families: its ranges are read from it. */
  private warm = false;
  /** Heap bytes one tree entry costs on average (measured at build), for the budget check. */
  private entryBytes = ENTRY_OVERHEAD;
  /** Tree writes made while the tree is being built, replayed into it before it is used. */
  private journal: KvOp[][] | undefined;
  private warming: Promise<void> | undefined;
  private readonly deferWarming: boolean;
  private readonly values: ByteLru;
  /** Every write not yet on disk, by key (the latest of each): reads see it first. */
  private overlay = new Map<string, Pending>();
  /** Batches not yet handed to the disk. */
  private pending: KvOp[][] = [];
  /** Number of the last batch made (overlay entries at or below `written` are on disk). */
  private gen = 0;
  /** Every batch up to this number is on disk. */
  private written = 0;
  private flushing: Promise<void> | undefined;
  /** Woken after each write-behind (and when it stops). */
  private flushWaiters: (() => void)[] = [];
  private failure: Error | undefined;
  private isOpen = false;

  constructor(opts: CachedKvOptions) {
    this.shares = budgetShares(opts.cacheBytes ?? DEFAULT_CACHE_MB * MIB);
    this.disk = new LevelKv({ path: opts.path, cacheSize: Math.max(8 * MIB, this.shares.blockCache) });
    this.values = new ByteLru(this.shares.values);
    this.leafRing = LeafRing.forBytes(this.shares.decodedLeaves);
    this.deferWarming = opts.deferWarming === true;
  }

  /** Opens LevelDB and starts building the index tree; until it is warm every read is served
   * from LevelDB. */
  async open(): Promise<void> {
    await this.disk.open();
    this.isOpen = true;
    this.warm = false;
    this.tree = new MemoryKv({ packed: true, ring: this.leafRing });
    await this.tree.open();
    this.journal = [];
    this.warming = undefined;
    if (!this.deferWarming) this.startWarming();
  }

  /** Starts building the index tree in the background (once; open() does it unless deferred). */
  startWarming(): void {
    this.assertOpen();
    this.warming ??= this.build().catch((err) => {
      this.failure = err instanceof Error ? err : new Error(String(err));
    });
  }

  /** Resolves when the index tree is built (or dropped as over budget): tests and benchmarks
   * wait for it. Starts the build if it was deferred and not started yet. */
  async whenWarm(): Promise<void> {
    if (this.isOpen) this.startWarming();
    await this.warming;
    if (this.failure) throw this.failure;
  }

  /** Estimated heap bytes of the raw values kept (within shares.values). */
  get valueCacheBytes(): number {
    return this.values.size;
  }

  /** True while the index tree serves index reads (false before it is built or once dropped). */
  get indexInMemory(): boolean {
    return this.warm && this.tree !== undefined;
  }

  /** Reads every key of the tree's families from disk (values too: small ones) and loads them;
   * gives up, dropping the tree, as soon as they exceed the tree's share of the budget. */
  private async build(): Promise<void> {
    const tree = this.tree;
    if (!tree) return;
    // Leaves are packed as they fill: the load holds nothing but the tree being built.
    const loader = tree.bulkLoader();
    let count = 0;
    for (const family of [...TREE_FAMILIES].sort()) {
      for await (const chunk of this.disk.chunks({ gte: `${family}\x00`, lt: `${family}\x01` }, LOAD_CHUNK)) {
        for (const [key, value] of chunk) loader.add(key, value);
        count += chunk.length;
        if (loader.bytes > this.shares.tree) return this.dropTree();
        if (this.tree !== tree) return;
        // Let requests run between chunks: the load is background work.
        await new Promise((resume) => setImmediate(resume));
      }
    }
    if (this.tree !== tree) return;
    this.entryBytes = count === 0 ? ENTRY_OVERHEAD : Math.max(8, loader.bytes / count);
    loader.finish();
    for (const ops of this.journal ?? []) await this.tree.batch(ops);
    this.journal = undefined;
    this.warm = true;
    this.checkTreeBudget();
  }

  /** Gives up the tree: index reads are served from LevelDB from now on. */
  private dropTree(): void {
    this.tree = undefined;
    this.leafRing.releaseAll();
    this.journal = undefined;
    this.warm = false;
  }

  private checkTreeBudget(): void {
    if (this.tree && this.tree.size * this.entryBytes > this.shares.tree) this.dropTree();
  }

  async close(): Promise<void> {
    await this.warming;
    await this.flush();
    await this.tree?.close();
    this.values.clear();
    this.isOpen = false;
    await this.disk.close();
  }

  async get(key: string): Promise<string | undefined> {
    this.assertOpen();
    const pending = this.overlay.get(key);
    if (pending) return pending.value ?? undefined;
    if (this.warm && this.tree && inTree(key)) return this.tree.get(key);
    const kept = this.values.get(key);
    if (kept !== undefined) return kept ?? undefined;
    const gen = this.gen;
    const value = await this.disk.get(key);
    if (gen === this.gen && keepsRaw(key)) this.values.set(key, value ?? null);
    return value;
  }

  /** See KvStore.getAbsent: as get(), with LevelDB read on this thread. */
  getAbsent(key: string): string | undefined {
    this.assertOpen();
    const pending = this.overlay.get(key);
    if (pending) return pending.value ?? undefined;
    if (this.warm && this.tree && inTree(key)) return this.tree.getAbsent(key);
    const kept = this.values.get(key);
    if (kept !== undefined) return kept ?? undefined;
    return this.disk.getAbsent(key);
  }

  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    this.assertOpen();
    const out: (string | undefined)[] = new Array(keys.length);
    const missing: number[] = [];
    const treeServes = this.warm && this.tree !== undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const pending = this.overlay.get(key);
      if (pending) out[i] = pending.value ?? undefined;
      else if (treeServes && inTree(key)) out[i] = await this.tree!.get(key);
      else {
        const kept = this.values.get(key);
        if (kept === undefined) missing.push(i);
        else out[i] = kept ?? undefined;
      }
    }
    if (missing.length === 0) return out;
    const gen = this.gen;
    const found = await this.disk.getMany(missing.map((i) => keys[i]));
    missing.forEach((at, n) => {
      const value = found[n];
      out[at] = value;
      if (gen === this.gen && keepsRaw(keys[at])) this.values.set(keys[at], value ?? null);
    });
    return out;
  }

  /** Applies the batch to memory at once (the tree, the overlay, the value cache) and writes it
   * behind; synced, it is on disk first. */
  async batch(ops: KvOp[], opts?: { sync?: boolean }): Promise<void> {
    this.assertOpen();
    if (this.failure) throw this.failure;
    assertValidOps(ops);
    if (opts?.sync) {
      await this.flush();
      await this.disk.batch(ops, opts);
      this.gen++;
      this.remember(ops);
      return;
    }
    if (ops.length === 0) return;
    const gen = ++this.gen;
    for (const op of ops) this.overlay.set(op.key, { value: op.type === 'put' ? op.value : null, gen });
    this.remember(ops);
    this.pending.push(ops);
    this.flushing ??= this.writeBehind();
  }

  /** Carries a batch into the tree (or its journal) and the value cache. */
  private remember(ops: KvOp[]): void {
    const treeOps = ops.filter((op) => inTree(op.key));
    for (const op of ops) {
      if (!keepsRaw(op.key)) continue;
      if (op.type === 'put') this.values.set(op.key, op.value);
      else this.values.forget(op.key);
    }
    if (treeOps.length === 0 || !this.tree) return;
    if (this.journal) {
      this.journal.push(treeOps);
      return;
    }
    // MemoryKv applies a validated batch synchronously, before its promise settles.
    void this.tree.batch(treeOps);
    this.checkTreeBudget();
  }

  /** Resolves once everything batched so far is on disk (LevelDB's own write, not synced);
   * batches made meanwhile are not waited for, so a steady flow of writes never starves it. */
  async flush(): Promise<void> {
    const target = this.gen;
    while (this.flushing && this.written < target) await new Promise<void>((wake) => this.flushWaiters.push(wake));
    if (this.failure) throw this.failure;
  }

  private wakeFlushWaiters(): void {
    const waiters = this.flushWaiters;
    this.flushWaiters = [];
    for (const wake of waiters) wake();
  }

  private async writeBehind(): Promise<void> {
    // Yield first, so that `flushing` is set before this run can clear it.
    await Promise.resolve();
    try {
      while (this.pending.length > 0) {
        const batches = this.pending;
        const upTo = this.gen;
        this.pending = [];
        await this.disk.batch(batches.length === 1 ? batches[0] : joined(batches));
        for (const ops of batches) {
          for (const op of ops) {
            const pending = this.overlay.get(op.key);
            if (pending && pending.gen <= upTo) this.overlay.delete(op.key);
          }
        }
        this.written = upTo;
        this.wakeFlushWaiters();
      }
    } catch (err) {
      // The disk refused a write memory accepted: stop taking writes rather than diverge.
      this.failure = err instanceof Error ? err : new Error(String(err));
    } finally {
      this.flushing = undefined;
      this.wakeFlushWaiters();
    }
  }

  /** True when the range lies within one tree family and the tree is warm. */
  private treeServes(range: KvRange): boolean {
    if (!this.warm || !this.tree) return false;
    const lower = range.gte ?? range.gt;
    const upper = range.lte ?? range.lt;
    if (lower === undefined || upper === undefined || !inTree(lower)) return false;
    const family = lower[0];
    return upper[0] === family && (upper.charCodeAt(1) === 0 || (upper.length === 2 && upper.charCodeAt(1) === 1 && range.lte === undefined));
  }

  /** From the tree for a range within an index family; otherwise from disk, once the writes
   * batched before the first read are there. */
  async *entries(range: KvRange): AsyncIterable<[string, string]> {
    this.assertOpen();
    if (this.treeServes(range)) {
      yield* this.tree!.entries(range);
      return;
    }
    await this.flush();
    yield* this.disk.entries(range);
  }

  async *keys(range: KvRange): AsyncIterable<string> {
    this.assertOpen();
    if (this.treeServes(range)) {
      yield* this.tree!.keys(range);
      return;
    }
    await this.flush();
    yield* this.disk.keys(range);
  }

  /** O(log n) from the tree for an index range; otherwise the range's keys counted on disk. */
  async countKeys(range: KvRange): Promise<number> {
    if (this.treeServes(range)) return this.tree!.countKeys(range);
    let count = 0;
    for await (const _ of this.keys(range)) count++;
    return count;
  }

  /** A consistent point-in-time view of everything applied so far: an explicit LevelDB
   * snapshot, with the writes not yet on disk laid over it. */
  snapshot(): KvSnapshot {
    this.assertOpen();
    const base = this.disk.snapshot();
    const over = new Map<string, string | null>();
    for (const [key, pending] of this.overlay) over.set(key, pending.value);
    if (over.size === 0) return base;
    const sorted = [...over.keys()].sort(compareUtf8);
    return {
      open: async () => undefined,
      close: () => base.close(),
      get: async (key) => (over.has(key) ? (over.get(key) ?? undefined) : base.get(key)),
      getMany: async (keys) => {
        const found = await base.getMany(keys);
        return keys.map((key, i) => (over.has(key) ? (over.get(key) ?? undefined) : found[i]));
      },
      batch: () => Promise.reject(new Error('a snapshot view is read-only')),
      entries: (range) => overlaid(base.entries({ ...range, limit: -1 }), sorted, over, range),
      keys: (range) => mapAsync(overlaid(base.entries({ ...range, limit: -1 }), sorted, over, range), ([key]) => key),
    };
  }

  private assertOpen(): void {
    if (!this.isOpen) throw new Error(`CachedKv is not open (${this.disk.path})`);
  }
}

/** A range of `base` with the overlay's writes laid over it (puts added or replacing, deletes
 * hiding), in the range's order and up to its limit. */
async function* overlaid(base: AsyncIterable<[string, string]>, sortedKeys: string[], over: Map<string, string | null>, range: KvRange): AsyncIterable<[string, string]> {
  const reverse = range.reverse === true;
  const mine = sortedKeys.slice(...boundsOf(sortedKeys, range));
  if (reverse) mine.reverse();
  const limit = Number.isInteger(range.limit) && (range.limit as number) >= 0 ? (range.limit as number) : Infinity;
  /** a comes no later than b in the range's order. */
  const upTo = (a: string, b: string) => (reverse ? compareUtf8(a, b) >= 0 : compareUtf8(a, b) <= 0);
  let n = 0;
  let next = 0;
  const emitOwn = function* (bound: string | undefined): Generator<[string, string]> {
    while (next < mine.length && (bound === undefined || upTo(mine[next], bound))) {
      const value = over.get(mine[next++]);
      if (value !== null && value !== undefined) yield [mine[next - 1], value];
    }
  };
  if (limit === 0) return;
  for await (const [key, value] of base) {
    for (const entry of emitOwn(key)) {
      yield entry;
      if (++n >= limit) return;
    }
    if (over.has(key)) continue;
    yield [key, value];
    if (++n >= limit) return;
  }
  for (const entry of emitOwn(undefined)) {
    yield entry;
    if (++n >= limit) return;
  }
}

/** The index interval of the sorted keys within the range, by binary search: a range read costs
 * O(log n) in the overlay, not O(n) (the integrity check reads many small ranges of one view). */
function boundsOf(sorted: string[], range: KvRange): [number, number] {
  const below = (key: string) =>
    range.gte !== undefined ? compareUtf8(key, range.gte) < 0 : range.gt !== undefined && compareUtf8(key, range.gt) <= 0;
  const above = (key: string) =>
    range.lte !== undefined ? compareUtf8(key, range.lte) > 0 : range.lt !== undefined && compareUtf8(key, range.lt) >= 0;
  const lo = firstWhere(sorted, (key) => !below(key));
  const hi = firstWhere(sorted, above);
  return [lo, Math.max(lo, hi)];
}

/** The first index whose key satisfies `test` (false up to some index, true from there on). */
function firstWhere(sorted: string[], test: (key: string) => boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (test(sorted[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

async function* mapAsync<T, U>(source: AsyncIterable<T>, fn: (item: T) => U): AsyncIterable<U> {
  for await (const item of source) yield fn(item);
}

/**
 * Values by key within a byte limit, in two generations: reads and writes land in the young
 * one; when it reaches half the limit it becomes the old one and the previous old one is
 * dropped whole, so what was not used for a generation goes first. A hit in the young
 * generation changes nothing, a hit in the old one moves the entry to the young one: no key is
 * ever deleted from a map and added to it again. (A V8 Map keeps a deleted entry in its hash
 * chain until the map is rehashed, and a map of n entries is rehashed every ~n changes: a
 * least-recently-used order kept by deleting and re-adding each hit made a hot key's lookup
 * walk thousands of dead entries once the cache held a few hundred thousand values, 30 µs a
 * read against 0.4 µs with a thousand.)
 * A key known to be absent is kept as null: LevelDB answers a missing key only after looking
 * in every level that may hold it, a cost that grows with the data (the admin's policy list,
 * which does not exist, is asked for once per service of every services page it reads).
 */
export class ByteLru {
  private young = new Map<string, string | null>();
  private old = new Map<string, string | null>();
  private youngBytes = 0;
  private oldBytes = 0;

  constructor(private readonly limit: number) {}

  /** The value kept, null when the key is known absent, undefined when nothing is known. */
  get(key: string): string | null | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged === undefined) return undefined;
    this.old.delete(key);
    this.oldBytes -= lruCost(key, aged);
    this.addYoung(key, aged);
    return aged;
  }

  /** Keeps a value (null: the key is absent); one too large for the cache is dropped instead. */
  set(key: string, value: string | null): void {
    const cost = lruCost(key, value);
    if (cost > this.limit / 16) return this.delete(key);
    const current = this.young.get(key);
    if (current !== undefined && this.youngBytes + cost - lruCost(key, current) <= this.limit / 2) {
      // Replaced where it is (a Map keeps the entry).
      this.young.set(key, value);
      this.youngBytes += cost - lruCost(key, current);
      return;
    }
    // New, aged, or too large for its generation now: out of both, into the young one (addYoung
    // ages the young generation when it is full).
    this.delete(key);
    this.addYoung(key, value);
  }

  /** Marks a key kept as absent (it was deleted); a key not kept stays unknown. */
  forget(key: string): void {
    if (this.young.has(key) || this.old.has(key)) this.set(key, null);
  }

  /** Estimated heap bytes kept. */
  get size(): number {
    return this.youngBytes + this.oldBytes;
  }

  /** Keys kept, values and absent keys alike. */
  get count(): number {
    return this.young.size + this.old.size;
  }

  delete(key: string): void {
    const value = this.young.get(key);
    if (value !== undefined) {
      this.young.delete(key);
      this.youngBytes -= lruCost(key, value);
    }
    const aged = this.old.get(key);
    if (aged !== undefined) {
      this.old.delete(key);
      this.oldBytes -= lruCost(key, aged);
    }
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
    this.youngBytes = 0;
    this.oldBytes = 0;
  }

  /** Adds a key to the young generation (not in either), ageing it first if it is full. */
  private addYoung(key: string, value: string | null): void {
    const cost = lruCost(key, value);
    if (this.youngBytes + cost > this.limit / 2) {
      this.old = this.young;
      this.oldBytes = this.youngBytes;
      this.young = new Map();
      this.youngBytes = 0;
    }
    this.young.set(key, value);
    this.youngBytes += cost;
  }
}

/** Estimated heap bytes of an LRU entry (an absent key's costs its key and the entry). */
function lruCost(key: string, value: string | null): number {
  return key.length + (value?.length ?? 0) + LRU_OVERHEAD;
}

/** Several batches as one list of ops, in order (a loop: spreading a batch of a few hundred
 * thousand ops into push() overflows the stack). */
function joined(batches: KvOp[][]): KvOp[] {
  const out: KvOp[] = [];
  for (const ops of batches) for (const op of ops) out.push(op);
  return out;
}
