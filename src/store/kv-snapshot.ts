// Point-in-time read views of a KvStore, for readers that scan many ranges and must see one
// state (the integrity check, database snapshots). Never writes.

import type { KvOp, KvRange, KvStore } from './kv.js';

/**
 * A read-only KvStore fixed at one instant: every read sees the store as it was when the view
 * was opened. `batch` rejects; `close` releases the view (the store itself stays open).
 */
export type KvSnapshot = KvStore;

interface Snapshottable {
  snapshot(): KvSnapshot;
}

function isSnapshottable(kv: KvStore): kv is KvStore & Snapshottable {
  return typeof (kv as Partial<Snapshottable>).snapshot === 'function';
}

/**
 * A consistent view of kv: LevelKv gives an explicit LevelDB snapshot. A store without explicit
 * snapshots (MemoryKv) is read live: each of its iterations is a snapshot on its own, which is
 * enough for tests and for single-iterator readers such as the snapshot writer.
 */
export function openSnapshot(kv: KvStore): KvSnapshot {
  return isSnapshottable(kv) ? kv.snapshot() : liveView(kv);
}

function liveView(kv: KvStore): KvSnapshot {
  return {
    open: async () => undefined,
    close: async () => undefined,
    get: (key: string) => kv.get(key),
    getMany: (keys: string[]) => kv.getMany(keys),
    batch: (_ops: KvOp[]) => Promise.reject(new Error('a snapshot view is read-only')),
    entries: (range: KvRange) => kv.entries(range),
    keys: (range: KvRange) => kv.keys(range),
  };
}
