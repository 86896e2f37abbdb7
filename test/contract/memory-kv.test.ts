// Runs the KvStore contract against MemoryKv, plus a 200k-key scale check of the B+tree.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryKv } from '../../src/store/memory-kv.js';
import { runKvContract } from './kv-contract.js';

runKvContract('memory-kv', async () => ({ kv: new MemoryKv(), cleanup: async () => {} }));

test('memory-kv - 200k keys: put, get, ranged scans, deletes', async (t) => {
  const kv = new MemoryKv();
  await kv.open();
  const key = (i: number): string => `res\x00${String((i * 7919) % 200_000).padStart(7, '0')}`;
  const started = performance.now();
  for (let i = 0; i < 200_000; i += 500) {
    await kv.batch(Array.from({ length: 500 }, (_, j) => ({ type: 'put' as const, key: key(i + j), value: String(i + j) })));
  }
  const loaded = performance.now();
  assert.equal(kv.size, 200_000);
  for (let i = 0; i < 200_000; i += 97) assert.equal(await kv.get(key(i)), String(i));
  let n = 0;
  for await (const k of kv.keys({ gte: 'res\x000100000', limit: 1000 })) assert.equal(k, `res\x00${String(100_000 + n++).padStart(7, '0')}`);
  assert.equal(n, 1000);
  for (let i = 0; i < 200_000; i += 500) {
    await kv.batch(Array.from({ length: 250 }, (_, j) => ({ type: 'del' as const, key: key(i + j) })));
  }
  assert.equal(kv.size, 100_000);
  let prev = '';
  n = 0;
  for await (const k of kv.keys({})) {
    assert.ok(k > prev);
    prev = k;
    n++;
  }
  assert.equal(n, 100_000);
  t.diagnostic(`200k puts ${(loaded - started).toFixed(0)} ms; total ${(performance.now() - started).toFixed(0)} ms`);
  await kv.close();
});

test('memory-kv - random puts/dels match a reference model, snapshots included', async () => {
  const kv = new MemoryKv();
  await kv.open();
  const model = new Map<string, string>();
  const sorted = (): [string, string][] => [...model].sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
  const alphabet = ['a', 'b', '\x00', 'é', '😀', '\uffff', 'z'];
  const randomKey = (): string => Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
  for (let round = 0; round < 40; round++) {
    const growing = round % 4 !== 3;
    const ops = Array.from({ length: 250 }, () => {
      const key = randomKey();
      return growing && Math.random() < 0.7 ? { type: 'put' as const, key, value: String(round) } : { type: 'del' as const, key };
    });
    const frozen = sorted();
    const snapshot = kv.entries({})[Symbol.asyncIterator]();
    const first = await snapshot.next();
    await kv.batch(ops);
    for (const op of ops) {
      if (op.type === 'put') model.set(op.key, op.value);
      else model.delete(op.key);
    }
    const rest: [string, string][] = first.done ? [] : [first.value];
    for (let r = await snapshot.next(); !r.done; r = await snapshot.next()) rest.push(r.value);
    assert.deepEqual(rest, frozen);
    const all = sorted();
    assert.equal(kv.size, all.length);
    const got: [string, string][] = [];
    for await (const e of kv.entries({})) got.push(e);
    assert.deepEqual(got, all);
    const lo = randomKey();
    const hi = randomKey();
    const expected = all.filter(([k]) => Buffer.compare(Buffer.from(k), Buffer.from(lo)) > 0 && Buffer.compare(Buffer.from(k), Buffer.from(hi)) <= 0);
    const ranged: string[] = [];
    for await (const k of kv.keys({ gt: lo, lte: hi, reverse: true })) ranged.push(k);
    assert.deepEqual(ranged, expected.map(([k]) => k).reverse());
  }
  await kv.close();
});
