// Test support: a KvStore that passes every call to another, with some calls replaced (to count
// or record them). Optional methods (countKeys) are not passed on unless replaced.

import type { KvStore } from '../../src/store/kv.js';

export function delegatingKv(inner: KvStore, replaced: Partial<KvStore> = {}): KvStore {
  return {
    open: () => inner.open(),
    close: () => inner.close(),
    get: (key) => inner.get(key),
    getMany: (keys) => inner.getMany(keys),
    batch: (ops, opts) => inner.batch(ops, opts),
    entries: (range) => inner.entries(range),
    keys: (range) => inner.keys(range),
    ...replaced,
  };
}
