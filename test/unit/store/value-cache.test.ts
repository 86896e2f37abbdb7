// The raw-value cache of CachedKv (ByteLru): two generations within a byte limit, keys known to
// be absent kept as null, and every write carried into it so that a kept value or a kept
// absence is never stale.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ByteLru, CachedKv } from '../../../src/store/cached-kv.js';

const MIB = 1024 * 1024;

describe('ByteLru', () => {
  it('keeps values and absent keys (null), apart from keys it knows nothing of', () => {
    const lru = new ByteLru(64 * 1024);
    lru.set('a', 'one');
    lru.set('b', null);
    assert.equal(lru.get('a'), 'one');
    assert.equal(lru.get('b'), null);
    assert.equal(lru.get('c'), undefined);
    lru.set('a', 'two');
    lru.set('b', 'now here');
    assert.equal(lru.get('a'), 'two');
    assert.equal(lru.get('b'), 'now here');
    assert.equal(lru.count, 2);
  });

  it('stays within its limit however many keys pass through, and counts what it keeps', () => {
    const limit = 32 * 1024;
    const lru = new ByteLru(limit);
    for (let i = 0; i < 20_000; i++) {
      lru.set(`key-${i}`, i % 3 === 0 ? null : 'v'.repeat(i % 50));
      if (i % 7 === 0) lru.get(`key-${i >> 1}`);
      assert.ok(lru.size <= limit, `${lru.size} bytes kept after ${i + 1} keys (limit ${limit})`);
    }
    assert.ok(lru.count > 0 && lru.count < 20_000);
    lru.clear();
    assert.equal(lru.size, 0);
    assert.equal(lru.count, 0);
  });

  it('drops what was not read for a generation first; a key read meanwhile survives', () => {
    const lru = new ByteLru(100 * 200);
    const keys = Array.from({ length: 400 }, (_, i) => `k-${String(i).padStart(4, '0')}`);
    lru.set('hot', 'h');
    for (const key of keys) {
      lru.set(key, 'x'.repeat(100));
      assert.equal(lru.get('hot'), 'h', `the key read all along is kept (after ${key})`);
    }
    assert.equal(lru.get(keys[0]), undefined, 'the first key, never read again, was dropped');
    assert.equal(lru.get(keys[keys.length - 1])?.length, 100, 'the last key is kept');
  });

  it('a value too large for the cache is not kept, and does not leave the older one behind', () => {
    const lru = new ByteLru(16 * 1024);
    lru.set('big', 'small');
    lru.set('big', 'x'.repeat(2 * 1024));
    assert.equal(lru.get('big'), undefined);
    assert.equal(lru.size, 0);
  });

  it('forget marks a kept key absent and leaves an unknown key unknown', () => {
    const lru = new ByteLru(64 * 1024);
    lru.set('kept', 'value');
    lru.forget('kept');
    lru.forget('unknown');
    assert.equal(lru.get('kept'), null);
    assert.equal(lru.get('unknown'), undefined);
  });
});

describe('CachedKv value cache', () => {
  it('answers a missing key again without a stale absence once it is written, deleted, written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-values-'));
    try {
      const kv = new CachedKv({ path: join(dir, 'db'), cacheBytes: 4 * MIB });
      await kv.open();
      const key = 'e\x00identities\x00id-1\x00service-policies';
      assert.equal(await kv.get(key), undefined);
      const kept = kv.valueCacheBytes;
      assert.ok(kept > 0, 'the absence is kept');
      assert.equal(await kv.get(key), undefined);
      assert.deepEqual(await kv.getMany([key, 'e\x00identities\x00id-2\x00service-policies']), [undefined, undefined]);

      await kv.batch([{ type: 'put', key, value: 'sp-1' }]);
      assert.equal(await kv.get(key), 'sp-1', 'read from the overlay');
      await kv.flush();
      assert.equal(await kv.get(key), 'sp-1', 'read from the cache once on disk');
      assert.deepEqual(await kv.getMany([key]), ['sp-1']);

      await kv.batch([{ type: 'del', key }], { sync: true });
      assert.equal(await kv.get(key), undefined);
      await kv.batch([{ type: 'put', key, value: 'sp-2' }], { sync: true });
      assert.equal(await kv.get(key), 'sp-2');
      await kv.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('does not keep an absence read while a write of the key was under way', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-values-race-'));
    try {
      const kv = new CachedKv({ path: join(dir, 'db'), cacheBytes: 4 * MIB });
      await kv.open();
      const key = 'e\x00services\x00svc-1\x00service-policies';
      const other = 'e\x00services\x00svc-2\x00service-policies';
      // Both reads go to disk and find nothing; the write lands before either answer arrives.
      const reading = kv.get(key);
      const readingMany = kv.getMany([other]);
      await kv.batch([
        { type: 'put', key, value: 'sp-9' },
        { type: 'put', key: other, value: 'sp-8' },
      ]);
      assert.equal(await reading, undefined);
      assert.deepEqual(await readingMany, [undefined]);
      await kv.flush();
      assert.equal(await kv.get(key), 'sp-9');
      assert.deepEqual(await kv.getMany([other]), ['sp-8']);
      await kv.close();

      // And from disk alone, after a restart.
      const again = new CachedKv({ path: join(dir, 'db'), cacheBytes: 4 * MIB });
      await again.open();
      assert.deepEqual(await again.getMany([key, other]), ['sp-9', 'sp-8']);
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps absent keys within the values share', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-values-share-'));
    try {
      const kv = new CachedKv({ path: join(dir, 'db'), cacheBytes: 4 * MIB });
      await kv.open();
      for (let i = 0; i < 5_000; i++) {
        const keys = Array.from({ length: 10 }, (_, j) => `e\x00identities\x00id-${i * 10 + j}\x00service-policies`);
        assert.deepEqual(await kv.getMany(keys), keys.map(() => undefined));
      }
      assert.ok(kv.valueCacheBytes > 0);
      assert.ok(kv.valueCacheBytes <= kv.shares.values, `${kv.valueCacheBytes} > ${kv.shares.values}`);
      await kv.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
