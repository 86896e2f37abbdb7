// The apply transaction over a store: it sees its own writes in point and range reads (in key
// order, whatever bucket they fall in), a savepoint's writes roll back exactly, and ranges are
// read from the store once and shared through the range cache until a commit drops them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KvRange, KvStore } from '../../../src/store/kv.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import { RangeCache } from '../../../src/store/range-cache.js';
import { Transaction } from '../../../src/store/transaction.js';
import { delegatingKv } from '../../support/delegating-kv.js';

const S = '\x00';
const k = (...parts: string[]) => parts.join(S);
const range = (...parts: string[]) => ({ gt: `${k(...parts)}${S}`, lt: `${k(...parts)}${S}\xff` });

/** A MemoryKv that counts its range reads. */
async function store(keys: string[]): Promise<{ kv: KvStore; scans: () => number }> {
  const kv = new MemoryKv();
  await kv.open();
  await kv.batch(keys.map((key) => ({ type: 'put', key, value: 'stored' })));
  let scans = 0;
  const counted = delegatingKv(kv, {
    keys: (r: KvRange) => {
      scans++;
      return kv.keys(r);
    },
  });
  return { kv: counted, scans: () => scans };
}

describe('transaction', () => {
  it('point and range reads see its own puts and deletes, in key order', async () => {
    const { kv } = await store([k('i', 'ids', 'f', 'a', '1'), k('i', 'ids', 'f', 'a', '3'), k('i', 'ids', 'f', 'b', '1')]);
    const tx = new Transaction(kv);
    tx.put(k('i', 'ids', 'f', 'a', '2'), '');
    tx.del(k('i', 'ids', 'f', 'a', '3'));
    tx.put(k('i', 'other', 'f', 'a', '9'), '');
    assert.deepEqual(await tx.keysIn(range('i', 'ids', 'f', 'a')), [k('i', 'ids', 'f', 'a', '1'), k('i', 'ids', 'f', 'a', '2')]);
    assert.equal(await tx.get(k('i', 'ids', 'f', 'a', '3')), undefined);
    assert.deepEqual(await tx.getMany([k('i', 'ids', 'f', 'a', '1'), k('i', 'ids', 'f', 'a', '2'), k('i', 'ids', 'f', 'a', '3')]), ['stored', '', undefined]);
    assert.equal(await tx.anyIn(range('i', 'ids', 'f', 'b')), true);
    // A range over a whole family crosses buckets: it sees the writes of every kind.
    assert.deepEqual(await tx.keysIn({ gt: `i${S}`, lt: `i${S}\xff` }), [
      k('i', 'ids', 'f', 'a', '1'),
      k('i', 'ids', 'f', 'a', '2'),
      k('i', 'ids', 'f', 'b', '1'),
      k('i', 'other', 'f', 'a', '9'),
    ]);
    assert.deepEqual(tx.ops().map((op) => [op.type, op.key]), [
      ['put', k('i', 'ids', 'f', 'a', '2')],
      ['del', k('i', 'ids', 'f', 'a', '3')],
      ['put', k('i', 'other', 'f', 'a', '9')],
    ]);
  });

  it('rollback undoes every write since the savepoint, release keeps them', async () => {
    const { kv } = await store([k('r', 'ids', '1')]);
    const tx = new Transaction(kv);
    tx.put(k('r', 'ids', '2'), 'kept');
    tx.savepoint();
    tx.put(k('r', 'ids', '2'), 'changed');
    tx.del(k('r', 'ids', '1'));
    tx.put(k('r', 'ids', '3'), 'new');
    tx.put(k('r', 'ids', '3'), 'newer');
    assert.deepEqual(await tx.keysIn(range('r', 'ids')), [k('r', 'ids', '2'), k('r', 'ids', '3')]);
    tx.rollback();
    assert.deepEqual(await tx.getMany([k('r', 'ids', '1'), k('r', 'ids', '2'), k('r', 'ids', '3')]), ['stored', 'kept', undefined]);
    assert.deepEqual(await tx.keysIn(range('r', 'ids')), [k('r', 'ids', '1'), k('r', 'ids', '2')]);
    assert.deepEqual(tx.ops(), [{ type: 'put', key: k('r', 'ids', '2'), value: 'kept' }]);
    tx.savepoint();
    tx.put(k('r', 'ids', '3'), 'again');
    tx.release();
    assert.deepEqual(await tx.keysIn(range('r', 'ids')), [k('r', 'ids', '1'), k('r', 'ids', '2'), k('r', 'ids', '3')]);
  });

  it('reads a range of the store once, and shares it through the range cache until it is dropped', async () => {
    const { kv, scans } = await store([k('i', 'pol', 'roles', '#a', 'p1')]);
    const ranges = new RangeCache();
    const first = new Transaction(kv, { ranges });
    const wanted = range('i', 'pol', 'roles', '#a');
    assert.deepEqual(await first.keysIn(wanted), [k('i', 'pol', 'roles', '#a', 'p1')]);
    (await first.keysIn(wanted)).push('changed by a caller');
    assert.deepEqual(await first.keysIn(wanted), [k('i', 'pol', 'roles', '#a', 'p1')]);
    const second = new Transaction(kv, { ranges });
    assert.deepEqual(await second.keysIn(wanted), [k('i', 'pol', 'roles', '#a', 'p1')]);
    assert.equal(scans(), 1);
    // A commit that writes the bucket drops it (the replica does this before writing).
    second.put(k('i', 'pol', 'roles', '#a', 'p2'), '');
    ranges.forget(second.writtenBuckets());
    await kv.batch(second.ops());
    assert.deepEqual(await new Transaction(kv, { ranges }).keysIn(wanted), [k('i', 'pol', 'roles', '#a', 'p1'), k('i', 'pol', 'roles', '#a', 'p2')]);
    assert.equal(scans(), 2);
  });

  it('the range cache keeps only small ranges, and drops the oldest when full', () => {
    const ranges = new RangeCache();
    ranges.set('b', 'big', Array.from({ length: 2000 }, (_, i) => String(i)));
    assert.equal(ranges.get('b', 'big'), undefined);
    for (let i = 0; i < 4096; i++) ranges.set(`b${i % 7}`, `r${i}`, [String(i)]);
    assert.deepEqual(ranges.get('b0', 'r0'), ['0']);
    ranges.set('b0', 'one more', ['x']);
    assert.equal(ranges.get('b0', 'r0'), undefined, 'the oldest went first');
    assert.deepEqual(ranges.get(`b${4095 % 7}`, 'r4095'), ['4095']);
    assert.deepEqual(ranges.get('b0', 'one more'), ['x']);
  });
});
