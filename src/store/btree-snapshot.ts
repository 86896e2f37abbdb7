// Reads of a MemoryKv tree: a key's lookup, the asynchronous scan of a frozen root that lets
// the event loop run, and the read-only KvSnapshot view over such a root. Never writes.

import { childIndex, lowerBound, scanRange, type BTreeNode } from './btree-cursor.js';
import { nativeOrderExact } from './compare-utf8.js';
import type { KvRange } from './kv.js';
import type { KvSnapshot } from './kv-snapshot.js';

/** Entries this many apart let the event loop run: an in-memory scan only ever resolves
 * microtasks, so a long one (an integrity check, an unindexed filter over a large kind) would
 * otherwise hold every socket until it ends. */
const YIELD_EVERY = 4_096;

/** The entries of a range of a frozen tree, in key order. */
export async function* scanAsync(root: BTreeNode, range: KvRange): AsyncIterable<[string, string]> {
  let n = 0;
  for (const entry of scanRange(root, range)) {
    if (++n % YIELD_EVERY === 0) await new Promise((resume) => setImmediate(resume));
    yield entry;
  }
}

/** A read-only view of a frozen tree; it costs nothing to keep and close() is a no-op. */
export function snapshotView(root: BTreeNode): KvSnapshot {
  const find = (key: string) => findIn(root, key);
  return {
    open: async () => undefined,
    close: async () => undefined,
    get: async (key) => find(key),
    getMany: async (keys) => keys.map(find),
    batch: () => Promise.reject(new Error('a snapshot view is read-only')),
    entries: (range) => scanAsync(root, range),
    keys: (range) => mapAsync(scanAsync(root, range), ([key]) => key),
  };
}

async function* mapAsync<T, U>(source: AsyncIterable<T>, fn: (item: T) => U): AsyncIterable<U> {
  for await (const item of source) yield fn(item);
}

/** The value of a key under a tree's root (undefined when absent). */
export function findIn(root: BTreeNode, key: string, native = nativeOrderExact(key)): string | undefined {
  let node = root;
  while (node.kids !== null) node = node.kids[childIndex(node.keys, key, native)];
  const i = lowerBound(node.keys, key, native);
  return node.keys[i] === key ? node.vals[i] : undefined;
}
