// Runs the KvStore contract against CachedKv (LevelDB + in-memory mirror), plus what the
// mirror must guarantee: it is rebuilt from disk at open and never runs ahead of the disk.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CachedKv } from '../../src/store/cached-kv.js';
import type { KvOp, KvRange, KvStore } from '../../src/store/kv.js';
import { runKvContract } from './kv-contract.js';

runKvContract('cached-kv', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  return { kv: new CachedKv({ path: join(dir, 'db') }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

// The same contract over keys of an index family (`i␀…`), which the in-memory tree serves once
// built; and again with a budget too small for the tree, which is then dropped.
runKvContract('cached-kv (index family, tree)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  return { kv: new IndexFamily(new CachedKv({ path: join(dir, 'db') })), cleanup: () => rm(dir, { recursive: true, force: true }) };
});
runKvContract('cached-kv (index family, over budget)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  return { kv: new IndexFamily(new CachedKv({ path: join(dir, 'db'), cacheBytes: 4096 })), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

/** A CachedKv seen through the prefix `i␀`: every key the contract writes lands in the index
 * family. open() waits for the tree (built, or dropped as over budget). */
class IndexFamily implements KvStore {
  constructor(readonly inner: CachedKv) {}
  async open(): Promise<void> {
    await this.inner.open();
    await this.inner.whenWarm();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  get(key: string): Promise<string | undefined> {
    return this.inner.get(PREFIX + key);
  }
  getMany(keys: string[]): Promise<(string | undefined)[]> {
    return this.inner.getMany(keys.map((key) => PREFIX + key));
  }
  batch(ops: KvOp[], opts?: { sync?: boolean }): Promise<void> {
    return this.inner.batch(ops.map((op) => ({ ...op, key: PREFIX + op.key })), opts);
  }
  async *entries(range: KvRange): AsyncIterable<[string, string]> {
    for await (const [key, value] of this.inner.entries(prefixed(range))) yield [key.slice(PREFIX.length), value];
  }
  async *keys(range: KvRange): AsyncIterable<string> {
    for await (const key of this.inner.keys(prefixed(range))) yield key.slice(PREFIX.length);
  }
}

const PREFIX = 'i\x00';

function prefixed(range: KvRange): KvRange {
  const out: KvRange = { reverse: range.reverse, limit: range.limit };
  if (range.gte !== undefined) out.gte = PREFIX + range.gte;
  else if (range.gt !== undefined) out.gt = PREFIX + range.gt;
  else out.gte = PREFIX;
  if (range.lte !== undefined) out.lte = PREFIX + range.lte;
  else if (range.lt !== undefined) out.lt = PREFIX + range.lt;
  else out.lt = 'i\x01';
  return out;
}

test('cached-kv - reopening loads everything written before from disk', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  try {
    const first = new CachedKv({ path: join(dir, 'db') });
    await first.open();
    const ops = Array.from({ length: 25_000 }, (_, i) => ({ type: 'put' as const, key: `k${String(i).padStart(6, '0')}`, value: `v${i}` }));
    await first.batch(ops, { sync: true });
    await first.batch([{ type: 'del', key: 'k000007' }]);
    await first.close();
    const second = new CachedKv({ path: join(dir, 'db') });
    await second.open();
    assert.equal(await second.get('k024999'), 'v24999');
    assert.equal(await second.get('k000007'), undefined);
    let count = 0;
    for await (const _ of second.keys({})) count++;
    assert.equal(count, 24_999);
    await second.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('cached-kv - the index tree is kept within its budget and dropped beyond it; reads agree either way', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  try {
    const first = new CachedKv({ path: join(dir, 'db') });
    await first.open();
    const ops = Array.from({ length: 20_000 }, (_, i) => ({ type: 'put' as const, key: `i\x00k\x00${String(i).padStart(5, '0')}`, value: '' }));
    await first.batch([...ops, { type: 'put', key: 'r\x00k\x00x', value: 'record' }], { sync: true });
    await first.close();
    const range = { gte: 'i\x00k\x0000500', lt: 'i\x00k\x0001500' };
    for (const [cacheBytes, inMemory] of [[64 * 1024 * 1024, true], [64 * 1024, false]] as const) {
      const kv = new CachedKv({ path: join(dir, 'db'), cacheBytes });
      await kv.open();
      await kv.whenWarm();
      assert.equal(kv.indexInMemory, inMemory);
      assert.equal(await kv.countKeys(range), 1_000);
      await kv.batch([{ type: 'del', key: 'i\x00k\x0000700' }, { type: 'put', key: 'i\x00k\x0000700x', value: 'v' }]);
      assert.equal(await kv.countKeys(range), 1_000);
      assert.equal(await kv.get('i\x00k\x0000700x'), 'v');
      assert.equal(await kv.get('r\x00k\x00x'), 'record');
      let n = 0;
      for await (const _ of kv.keys({ ...range, reverse: true, limit: 10 })) n++;
      assert.equal(n, 10);
      await kv.batch([{ type: 'put', key: 'i\x00k\x0000700', value: '' }, { type: 'del', key: 'i\x00k\x0000700x' }]);
      await kv.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('cached-kv - a refused batch changes neither disk nor mirror', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  try {
    const kv = new CachedKv({ path: join(dir, 'db') });
    await kv.open();
    await assert.rejects(kv.batch([{ type: 'put', key: 'good', value: '1' }, { type: 'put', key: 'bad\ud800', value: '2' }]));
    assert.equal(await kv.get('good'), undefined);
    await kv.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('cached-kv - a warm batch of 300,000 ops is written behind whole, with the batches around it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  try {
    const first = new CachedKv({ path: join(dir, 'db') });
    await first.open();
    await first.whenWarm();
    const big = Array.from({ length: 300_000 }, (_, i) => ({ type: 'put' as const, key: `k${String(i).padStart(6, '0')}`, value: '' }));
    await first.batch([{ type: 'put', key: 'a', value: 'before' }]);
    await first.batch(big);
    await first.batch([{ type: 'put', key: 'z', value: 'after' }]);
    await first.flush();
    await first.close();
    const second = new CachedKv({ path: join(dir, 'db') });
    await second.open();
    assert.equal(await second.get('a'), 'before');
    assert.equal(await second.get('k299999'), '');
    assert.equal(await second.get('z'), 'after');
    await second.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('cached-kv - a deferred tree is built only when asked; writes made before it are in it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  try {
    const first = new CachedKv({ path: join(dir, 'db') });
    await first.open();
    await first.batch(Array.from({ length: 5_000 }, (_, i) => ({ type: 'put' as const, key: `i\x00k\x00${String(i).padStart(5, '0')}`, value: '' })), { sync: true });
    await first.close();
    const kv = new CachedKv({ path: join(dir, 'db'), deferWarming: true });
    await kv.open();
    // Served from LevelDB until the build is started, writes included.
    await kv.batch([{ type: 'del', key: 'i\x00k\x0000010' }, { type: 'put', key: 'i\x00k\x0000010x', value: 'v' }]);
    await new Promise((resume) => setImmediate(resume));
    assert.equal(kv.indexInMemory, false);
    const range = { gte: 'i\x00k\x00', lt: 'i\x00k\x01' };
    assert.equal(await kv.countKeys(range), 5_000);
    kv.startWarming();
    await kv.whenWarm();
    assert.equal(kv.indexInMemory, true);
    assert.equal(await kv.countKeys(range), 5_000);
    assert.equal(await kv.get('i\x00k\x0000010'), undefined);
    assert.equal(await kv.get('i\x00k\x0000010x'), 'v');
    await kv.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
