// Runs the KvStore contract against MemoryKv, plus a 200k-key scale check of the B+tree, and
// model checks of its O(log n) range counts, snapshot isolation and surrogate-aware ordering.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareUtf8, nativeOrderExact } from '../../src/store/compare-utf8.js';
import type { KvRange } from '../../src/store/kv.js';
import type { KvSnapshot } from '../../src/store/kv-snapshot.js';
import { MemoryKv } from '../../src/store/memory-kv.js';
import { releaseDecodedLeaves } from '../../src/store/packed-leaf.js';
import { runKvContract } from './kv-contract.js';

runKvContract('memory-kv', async () => ({ kv: new MemoryKv(), cleanup: async () => {} }));
runKvContract('memory-kv packed', async () => ({ kv: new MemoryKv({ packed: true }), cleanup: async () => {} }));

// Every check below runs on both leaf forms: plain arrays, and packed leaves decoded on use.
for (const [variant, options] of [['memory-kv', {}], ['memory-kv packed', { packed: true }]] as const) {

test(`${variant} - 200k keys: put, get, ranged scans, deletes`, async (t) => {
  const kv = new MemoryKv(options);
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

test(`${variant} - random puts/dels match a reference model, snapshots included`, async () => {
  const kv = new MemoryKv(options);
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
    // Packed leaves: drop every decoded one, so the next reads decode what the writes packed.
    if (round % 2 === 1) releaseDecodedLeaves();
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

/** A small seeded PRNG (mulberry32), so a failing sequence can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A key's UTF-8 bytes as a latin1 string: one char per byte, so `<` on these is byte order. */
const utf8Bytes = (key: string): string => Buffer.from(key).toString('latin1');

/** The model the store is checked against: keys in byte order, each with its bytes. */
interface Sorted {
  keys: string[];
  bytes: string[];
}

function byteSorted(keys: Iterable<string>): Sorted {
  const pairs = [...keys].map((key): [string, string] => [utf8Bytes(key), key]).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return { keys: pairs.map(([, key]) => key), bytes: pairs.map(([bytes]) => bytes) };
}

/** The oracle: the model's keys a range holds, limit aside, found by testing every key. */
function bruteFilter(sorted: Sorted, range: KvRange): string[] {
  const [gt, gte, lt, lte] = [range.gt, range.gte, range.lt, range.lte].map((bound) => (bound === undefined ? undefined : utf8Bytes(bound)));
  return sorted.keys.filter((_, i) => {
    const k = sorted.bytes[i];
    if (gte !== undefined ? k < gte : gt !== undefined && k <= gt) return false;
    return lte !== undefined ? k <= lte : lt === undefined || k < lt;
  });
}

function bruteCount(sorted: Sorted, range: KvRange): number {
  const count = bruteFilter(sorted, range).length;
  return range.limit !== undefined && range.limit >= 0 ? Math.min(count, range.limit) : count;
}

/** Random ranges over keys like `present`: bounds that are stored keys, absent keys, prefixes or
 * extremes, every gt/gte/lt/lte combination (both of a side too), reverse and limits. */
function randomRange(random: () => number, present: string[], randomKey: () => string): KvRange {
  const pick = (): string => {
    const r = random();
    if (r < 0.4 && present.length > 0) return present[Math.floor(random() * present.length)];
    if (r < 0.8) return randomKey();
    return ['', 'p', 'p\x00', 'q', '\uffff', '😀', '\u{10ffff}'][Math.floor(random() * 7)];
  };
  const range: KvRange = {};
  const low = Math.floor(random() * 4);
  if (low & 1) range.gt = pick();
  if (low & 2) range.gte = pick();
  const high = Math.floor(random() * 4);
  if (high & 1) range.lt = random() < 0.1 && range.gt !== undefined ? range.gt : pick();
  if (high & 2) range.lte = pick();
  if (random() < 0.3) range.reverse = true;
  if (random() < 0.2) range.limit = [-1, 0, 1, 7, 1000][Math.floor(random() * 5)];
  return range;
}

async function readAll(view: KvSnapshot | MemoryKv, range: KvRange = {}): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const entry of view.entries(range)) out.push(entry);
  return out;
}

test(`${variant} - countKeys matches a brute-force count through splits, merges and snapshots`, async () => {
  const seed = 0x5eed;
  const random = prng(seed);
  const kv = new MemoryKv(options);
  await kv.open();
  const alphabet = ['a', 'b', 'c', '\x00', 'é', '中', '\ue000', '\uffff', '😀', '𝄞'];
  const randomKey = (): string => {
    const prefix = ['p\x00idx\x00roleAttributes\x00', 'p\x00idx\x00name\x00', 'q'][Math.floor(random() * 3)];
    let tail = '';
    for (let n = 1 + Math.floor(random() * 5); n > 0; n--) tail += alphabet[Math.floor(random() * alphabet.length)];
    return prefix + tail;
  };
  const model = new Map<string, string>();
  const snapshots: { view: KvSnapshot; sorted: Sorted; frozen: [string, string][] }[] = [];
  let peak = 0;
  for (let step = 0; step < 120; step++) {
    const present = [...model.keys()];
    // Grow to several thousand keys (a three-level tree), then shrink to a few hundred (merges,
    // root shrinks); every tenth step writes nothing, so two snapshots see the same tree.
    const putShare = step < 70 ? 0.85 : 0.05;
    const size = step % 10 === 9 ? 0 : 100 + Math.floor(random() * 300);
    const ops = Array.from({ length: size }, () => {
      if (random() < putShare || present.length === 0) return { type: 'put' as const, key: randomKey(), value: `s${step}` };
      const key = random() < 0.9 ? present[Math.floor(random() * present.length)] : randomKey();
      return { type: 'del' as const, key };
    });
    await kv.batch(ops);
    for (const op of ops) {
      if (op.type === 'put') model.set(op.key, op.value);
      else model.delete(op.key);
    }
    peak = Math.max(peak, model.size);
    const sorted = byteSorted(model.keys());
    const where = `seed ${seed} step ${step}`;
    assert.equal(kv.size, sorted.keys.length, where);
    assert.equal(await kv.countKeys({}), sorted.keys.length, where);
    for (let r = 0; r < 25; r++) {
      const range = randomRange(random, sorted.keys, randomKey);
      assert.equal(await kv.countKeys(range), bruteCount(sorted, range), `${where} ${JSON.stringify(range)}`);
    }
    const range = randomRange(random, sorted.keys, randomKey);
    assert.equal((await readAll(kv, range)).length, await kv.countKeys(range), `${where} scan ${JSON.stringify(range)}`);

    // Every kept snapshot still reads its frozen contents: one in full per step (reading all
    // of them every step would dominate the test), the others from a random key on.
    for (const [i, { view, sorted: then, frozen }] of snapshots.entries()) {
      if (i === step % snapshots.length) {
        assert.deepEqual(await readAll(view), frozen, where);
        continue;
      }
      const lower = randomKey();
      const from = frozen.length - bruteFilter(then, { gte: lower }).length;
      assert.deepEqual(await readAll(view, { gte: lower, limit: 50 }), frozen.slice(from, from + 50), where);
    }
    const frozen = sorted.keys.map((k): [string, string] => [k, model.get(k) as string]);
    snapshots.push({ view: kv.snapshot(), sorted, frozen });
    if (snapshots.length > 5) snapshots.splice(Math.floor(random() * 4), 1);
  }
  for (const { view, frozen } of snapshots) assert.deepEqual(await readAll(view), frozen, `seed ${seed} at the end`);
  // Over 64 full leaves' worth of keys means branches split too; the shrink merges them back.
  assert.ok(peak > 64 * 64 && model.size < peak / 10, `grew to ${peak} keys, then shrank to ${model.size}`);
  await kv.close();
});

test(`${variant} - countKeys is right straight after bulkLoad and after writes on top of it`, async () => {
  const random = prng(0xb01c);
  for (const n of [1, 47, 48, 49, 2_304, 2_305, 20_000]) {
    const kv = new MemoryKv(options);
    await kv.open();
    const key = (i: number): string => `i\x00identities\x00name\x00${String(i).padStart(6, '0')}`;
    const loaded = Array.from({ length: n }, (_, i) => key(i * 3));
    kv.bulkLoad(loaded.map((k) => [k, 'v']));
    const randomKey = (): string => key(Math.floor(random() * n * 3));
    const check = async (sorted: Sorted): Promise<void> => {
      assert.equal(await kv.countKeys({}), sorted.keys.length);
      for (let r = 0; r < 40; r++) {
        const range = randomRange(random, sorted.keys, randomKey);
        assert.equal(await kv.countKeys(range), bruteCount(sorted, range), `n ${n} ${JSON.stringify(range)}`);
      }
    };
    await check(byteSorted(loaded));
    const view = kv.snapshot();
    const ops = Array.from({ length: Math.min(n, 500) }, (_, i) =>
      i % 2 === 0 ? { type: 'put' as const, key: randomKey(), value: 'w' } : { type: 'del' as const, key: loaded[Math.floor(random() * n)] });
    await kv.batch(ops);
    const model = new Set(loaded);
    for (const op of ops) {
      if (op.type === 'put') model.add(op.key);
      else model.delete(op.key);
    }
    await check(byteSorted(model));
    assert.deepEqual((await readAll(view)).map(([k]) => k), loaded);
    await kv.close();
  }
});

test(`${variant} - snapshots with no write between them still freeze their contents`, async () => {
  const kv = new MemoryKv(options);
  await kv.open();
  const empty = kv.snapshot();
  await kv.batch([{ type: 'put', key: 'a', value: '1' }]);
  assert.deepEqual(await readAll(empty), []);
  const first = kv.snapshot();
  assert.equal(await kv.countKeys({}), 1);
  const second = kv.snapshot();
  const iterator = kv.entries({})[Symbol.asyncIterator]();
  assert.deepEqual((await iterator.next()).value, ['a', '1']);
  await kv.batch([{ type: 'put', key: 'a', value: '2' }, { type: 'put', key: 'b', value: '2' }]);
  assert.equal((await iterator.next()).done, true);
  for (const view of [first, second]) assert.deepEqual(await readAll(view), [['a', '1']]);
  await kv.batch([{ type: 'del', key: 'missing' }]);
  const third = kv.snapshot();
  await kv.batch([{ type: 'del', key: 'a' }]);
  const fourth = kv.snapshot();
  await kv.batch([{ type: 'del', key: 'b' }]);
  assert.deepEqual(await readAll(third), [['a', '2'], ['b', '2']]);
  assert.deepEqual(await readAll(fourth), [['b', '2']]);
  assert.deepEqual(await readAll(kv), []);
  // An emptied store takes a bulkLoad; a snapshot of the loaded tree is frozen like any other.
  const beforeLoad = kv.snapshot();
  kv.bulkLoad([['x', '1'], ['y', '1']]);
  const loaded = kv.snapshot();
  await kv.batch([{ type: 'put', key: 'x', value: '2' }, { type: 'del', key: 'y' }]);
  assert.deepEqual(await readAll(beforeLoad), []);
  assert.deepEqual(await readAll(loaded), [['x', '1'], ['y', '1']]);
  assert.deepEqual(await readAll(kv), [['x', '2']]);
  await kv.close();
});

test(`${variant} - keys around the surrogates order, seek and count by UTF-8 bytes on both search paths`, async () => {
  // Bounds without units >= 0xD800 are compared with `<`; bounds with them fall back to
  // compareUtf8. Both must agree with byte order, including astral vs U+E000..U+FFFF.
  const units = ['a', '\x7f', '\u07ff', '\ud7ff', '\ue000', '\uf8ff', '\ufffd', '\uffff', '😀', '\u{10000}', '\u{10ffff}'];
  const strings = [''];
  for (const x of units) {
    strings.push(x);
    for (const y of units) strings.push(x + y);
  }
  for (const a of strings) {
    for (const b of strings) {
      const [x, y] = [utf8Bytes(a), utf8Bytes(b)];
      const expected = x < y ? -1 : x === y ? 0 : 1;
      assert.equal(Math.sign(compareUtf8(a, b)), expected, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      if (nativeOrderExact(b)) assert.equal(a < b ? -1 : a === b ? 0 : 1, expected, `native ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    }
  }
  assert.deepEqual(units.map(nativeOrderExact), [true, true, true, true, false, false, false, false, false, false, false]);
  const kv = new MemoryKv(options);
  await kv.open();
  // Enough keys for a multi-level tree, so branch searches take both paths as well.
  const keys = [...new Set(strings.flatMap((s) => [s, `${s}\x00`, `${s}z`]))];
  await kv.batch(keys.map((key) => ({ type: 'put' as const, key, value: key })));
  const sorted = byteSorted(keys);
  assert.deepEqual((await readAll(kv)).map(([k]) => k), sorted.keys);
  for (const bound of strings) {
    assert.equal(await kv.get(bound), bound);
    for (const range of [{ gt: bound }, { gte: bound }, { lt: bound }, { lte: bound }, { gt: bound, lt: `${bound}\u{10ffff}` }]) {
      const expected = bruteFilter(sorted, range);
      assert.deepEqual((await readAll(kv, range)).map(([k]) => k), expected, JSON.stringify(range));
      assert.deepEqual((await readAll(kv, { ...range, reverse: true })).map(([k]) => k), expected.slice().reverse(), JSON.stringify(range));
      assert.equal(await kv.countKeys(range), expected.length, JSON.stringify(range));
    }
  }
  await kv.close();
});
}
