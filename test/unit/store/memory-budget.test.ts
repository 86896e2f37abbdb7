// One memory budget (`--cache-mb`) for everything the replica keeps in memory: LevelDB's block
// cache, the packed index tree, its decoded leaves, the raw values read from disk and the
// replica's decoded records. Each stays within its share, and the shares add up to the budget.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { budgetShares, CachedKv } from '../../../src/store/cached-kv.js';
import { indexKey, recordKey } from '../../../src/store/keys.js';
import { DECODED_LEAF_BYTES } from '../../../src/store/packed-leaf.js';
import { Replica } from '../../../src/store/replica.js';

const MIB = 1024 * 1024;

describe('memory budget', () => {
  it('shares the budget without exceeding it, each share non-empty', () => {
    for (const mb of [4, 64, 512, 3000]) {
      const shares = budgetShares(mb * MIB);
      const total = Object.values(shares).reduce((a, b) => a + b, 0);
      assert.ok(total <= mb * MIB, `${mb} MiB: shares add up to ${total}`);
      assert.ok(total > mb * MIB - 8, `${mb} MiB: ${mb * MIB - total} bytes unshared`);
      for (const [name, bytes] of Object.entries(shares)) assert.ok(bytes > 0, `${name} empty at ${mb} MiB`);
    }
  });

  it('keeps the decoded records, the raw values and the decoded leaves within their shares over data many times larger', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-budget-'));
    const ids = Array.from({ length: 20_000 }, (_, i) => `id-${String(i).padStart(6, '0')}`);
    const record = (id: string) => JSON.stringify({ id, name: `identity-${id}`, roleAttributes: ['team1', 'team7'], padding: 'x'.repeat(300) });
    try {
      const seed = new CachedKv({ path: join(dir, 'db') });
      await seed.open();
      for (let i = 0; i < ids.length; i += 1_000) {
        const ops = ids.slice(i, i + 1_000).flatMap((id) => [
          { type: 'put' as const, key: recordKey('identities', id), value: record(id) },
          { type: 'put' as const, key: indexKey('identities', 'name', `identity-${id}`, id), value: '' },
        ]);
        await seed.batch(ops, { sync: true });
      }
      await seed.close();

      // 4 MiB against ~7 MiB of records (and ~28 MiB once decoded).
      const kv = new CachedKv({ path: join(dir, 'db'), cacheBytes: 4 * MIB });
      await kv.open();
      await kv.whenWarm();
      const shares = kv.shares;
      const replica = new Replica(kv, { recordCacheBytes: shares.records });
      await replica.open();
      assert.equal(kv.indexInMemory, true);
      assert.ok(kv.leafRing.capacity * DECODED_LEAF_BYTES <= shares.decodedLeaves, 'the ring is sized from its share');

      let found = 0;
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < ids.length; i += 500) {
          const got = await replica.getMany('identities', ids.slice(i, i + 500));
          for (const [n, entity] of got.entries()) {
            assert.equal(entity?.id, ids[i + n]);
            found++;
          }
          assert.ok(replica.recordCacheBytes <= shares.records, `records ${replica.recordCacheBytes} > ${shares.records}`);
          assert.ok(kv.valueCacheBytes <= shares.values, `values ${kv.valueCacheBytes} > ${shares.values}`);
        }
        let keys = 0;
        for await (const _ of kv.keys({ gte: 'i\x00', lt: 'i\x01' })) keys++;
        assert.equal(keys, ids.length);
        assert.ok(kv.leafRing.decoded <= kv.leafRing.capacity);
      }
      assert.equal(found, 2 * ids.length);
      // Every share was used, not bypassed.
      assert.ok(replica.recordCacheBytes > shares.records / 2, `records cache ${replica.recordCacheBytes} barely used`);
      assert.ok(kv.leafRing.decoded > 0);
      await kv.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('holds a record once: decoded by the replica, not also as raw text; other values raw', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-budget-once-'));
    try {
      const kv = new CachedKv({ path: join(dir, 'db'), cacheBytes: 4 * MIB });
      await kv.open();
      const record = JSON.stringify({ id: 'id-1', name: 'one', padding: 'x'.repeat(300) });
      const link = 'l\x00service-policies\x00sp-1\x00identities\x00id-1';
      await kv.batch([{ type: 'put', key: recordKey('identities', 'id-1'), value: record }, { type: 'put', key: link, value: '' }], { sync: true });
      await kv.close();

      const again = new CachedKv({ path: join(dir, 'db'), cacheBytes: 4 * MIB });
      await again.open();
      const replica = new Replica(again, { recordCacheBytes: again.shares.records });
      await replica.open();
      assert.equal((await replica.get('identities', 'id-1'))?.name, 'one');
      assert.ok(replica.recordCacheBytes > 0, 'the decoded record is kept');
      assert.equal(again.valueCacheBytes, 0, 'the raw record is not kept as well');
      assert.equal(await again.get(link), '');
      assert.ok(again.valueCacheBytes > 0, 'a link value is kept raw');
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
