// The KvStore contract suite: every implementation (MemoryKv, LevelKv) runs these same tests,
// so both agree on semantics — byte order, ranges, atomic batches, streaming iteration.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { entryChunks, type KvOp, type KvRange, type KvStore } from '../../src/store/kv.js';

/** Builds a fresh, empty, not yet opened store; cleanup() removes whatever it left behind. */
export type KvFactory = () => Promise<{ kv: KvStore; cleanup(): Promise<void> }>;

async function withKv(factory: KvFactory, body: (kv: KvStore) => Promise<void>): Promise<void> {
  const { kv, cleanup } = await factory();
  await kv.open();
  try {
    await body(kv);
  } finally {
    await kv.close();
    await cleanup();
  }
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of it) out.push(item);
  return out;
}

const put = (key: string, value = `v:${key}`): KvOp => ({ type: 'put', key, value });
const keysOf = (kv: KvStore, range: KvRange): Promise<string[]> => collect(kv.keys(range));
const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
const pad = (i: number): string => `k${String(i).padStart(6, '0')}`;

/** Registers the contract tests, each named `${name} - ...`. */
export function runKvContract(name: string, factory: KvFactory): void {
  const it = (title: string, body: (kv: KvStore) => Promise<void>): void => {
    test(`${name} - ${title}`, () => withKv(factory, body));
  };

  it('get of a missing key is undefined', async (kv) => {
    assert.equal(await kv.get('nope'), undefined);
  });

  it('operations reject while closed; data is kept across close and open', async (kv) => {
    await kv.batch([put('a')], { sync: true });
    await kv.close();
    await assert.rejects(kv.get('a'), /not open/);
    await assert.rejects(kv.batch([put('b')]), /not open/);
    await kv.open();
    assert.deepEqual(await collect(kv.entries({})), [['a', 'v:a']]);
  });

  it('put then get, overwrite', async (kv) => {
    await kv.batch([put('a', '1')]);
    assert.equal(await kv.get('a'), '1');
    await kv.batch([put('a', '2')]);
    assert.equal(await kv.get('a'), '2');
    assert.equal(await kv.get(''), undefined);
  });

  it('getAbsent (where offered) answers as get does: missing, written, overwritten, deleted', async (kv) => {
    if (!kv.getAbsent) return;
    assert.equal(kv.getAbsent('a'), undefined);
    await kv.batch([put('a', '1')]);
    assert.equal(kv.getAbsent('a'), '1');
    await kv.batch([put('a', '2')], { sync: true });
    assert.equal(kv.getAbsent('a'), '2');
    await kv.batch([{ type: 'del', key: 'a' }]);
    assert.equal(kv.getAbsent('a'), undefined);
    assert.equal(kv.getAbsent(''), undefined);
  });

  it('del removes; del of a missing key is a no-op', async (kv) => {
    await kv.batch([put('a'), put('b')]);
    await kv.batch([{ type: 'del', key: 'a' }, { type: 'del', key: 'zzz' }]);
    assert.equal(await kv.get('a'), undefined);
    assert.equal(await kv.get('b'), 'v:b');
    assert.deepEqual(await keysOf(kv, {}), ['b']);
  });

  it('batch applies puts and dels in order, with sync', async (kv) => {
    await kv.batch([put('x', '1'), put('y', '1'), { type: 'del', key: 'x' }, put('y', '2'), put('x', '3')], { sync: true });
    assert.deepEqual(await collect(kv.entries({})), [['x', '3'], ['y', '2']]);
    await kv.batch([]);
  });

  it('a batch with an invalid op applies nothing', async (kv) => {
    await kv.batch([put('keep')]);
    const bad = [put('a'), { type: 'del', key: 'keep' }, put('\ud800')] as KvOp[];
    await assert.rejects(kv.batch(bad), TypeError);
    const badValue = [put('a'), { type: 'put', key: 'b', value: 42 }] as unknown as KvOp[];
    await assert.rejects(kv.batch(badValue), TypeError);
    assert.deepEqual(await keysOf(kv, {}), ['keep']);
  });

  it('getMany returns values in request order with undefined for missing keys', async (kv) => {
    await kv.batch([put('a'), put('c'), put('e')]);
    assert.deepEqual(await kv.getMany(['e', 'b', 'a', 'e', 'zz', 'c']), ['v:e', undefined, 'v:a', 'v:e', undefined, 'v:c']);
    assert.deepEqual(await kv.getMany([]), []);
  });

  it('ranges: gt, gte, lt, lte and combinations', async (kv) => {
    await kv.batch(['a', 'b', 'c', 'd', 'e'].map((k) => put(k)));
    assert.deepEqual(await keysOf(kv, { gt: 'b' }), ['c', 'd', 'e']);
    assert.deepEqual(await keysOf(kv, { gte: 'b' }), ['b', 'c', 'd', 'e']);
    assert.deepEqual(await keysOf(kv, { lt: 'd' }), ['a', 'b', 'c']);
    assert.deepEqual(await keysOf(kv, { lte: 'd' }), ['a', 'b', 'c', 'd']);
    assert.deepEqual(await keysOf(kv, { gt: 'a', lt: 'e' }), ['b', 'c', 'd']);
    assert.deepEqual(await keysOf(kv, { gte: 'bb', lte: 'dd' }), ['c', 'd']);
    assert.deepEqual(await keysOf(kv, { gt: 'c', lt: 'c' }), []);
    assert.deepEqual(await keysOf(kv, { gte: 'x' }), []);
    assert.deepEqual(await keysOf(kv, { lt: 'a' }), []);
    assert.deepEqual(await keysOf(kv, { gt: '' }), ['a', 'b', 'c', 'd', 'e']);
  });

  it('reverse iteration honours bounds', async (kv) => {
    await kv.batch(['a', 'b', 'c', 'd', 'e'].map((k) => put(k)));
    assert.deepEqual(await keysOf(kv, { reverse: true }), ['e', 'd', 'c', 'b', 'a']);
    assert.deepEqual(await keysOf(kv, { reverse: true, lt: 'd', gte: 'b' }), ['c', 'b']);
    assert.deepEqual(await keysOf(kv, { reverse: true, lte: 'd', gt: 'b' }), ['d', 'c']);
    assert.deepEqual(await keysOf(kv, { reverse: true, lte: 'cc' }), ['c', 'b', 'a']);
    assert.deepEqual(await keysOf(kv, { reverse: true, gt: 'e' }), []);
  });

  it('limit caps results; 0 yields nothing; -1 means no limit', async (kv) => {
    await kv.batch(['a', 'b', 'c', 'd', 'e'].map((k) => put(k)));
    assert.deepEqual(await keysOf(kv, { limit: 2 }), ['a', 'b']);
    assert.deepEqual(await keysOf(kv, { limit: 2, reverse: true }), ['e', 'd']);
    assert.deepEqual(await keysOf(kv, { limit: 2, gt: 'b' }), ['c', 'd']);
    assert.deepEqual(await keysOf(kv, { limit: 0 }), []);
    assert.deepEqual(await keysOf(kv, { limit: -1 }), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(await keysOf(kv, { limit: 10 }), ['a', 'b', 'c', 'd', 'e']);
  });

  it('entries() and keys() agree; breaking out early is fine', async (kv) => {
    await kv.batch(['b', 'a', 'c'].map((k) => put(k)));
    assert.deepEqual(await collect(kv.entries({})), [['a', 'v:a'], ['b', 'v:b'], ['c', 'v:c']]);
    assert.deepEqual(await keysOf(kv, {}), ['a', 'b', 'c']);
    for await (const key of kv.keys({})) {
      assert.equal(key, 'a');
      break;
    }
    assert.equal(await kv.get('c'), 'v:c');
  });

  it('entryChunks (a store\'s own, or one entry each) gives exactly what entries() gives, in non-empty chunks', async (kv) => {
    await kv.batch(Array.from({ length: 2_500 }, (_, i) => put(pad(i))));
    const ranges: KvRange[] = [{}, { gt: pad(10), lte: pad(2_100) }, { gte: pad(5), lt: pad(6) }, { reverse: true, lt: pad(1_500) }, { limit: 1_234 }, { gt: pad(3_000) }];
    for (const range of ranges) {
      const chunks = await collect(entryChunks(kv, range));
      assert.ok(chunks.every((chunk) => chunk.length > 0));
      assert.deepEqual(chunks.flat(), await collect(kv.entries(range)));
    }
    for await (const chunk of entryChunks(kv, {})) {
      assert.deepEqual(chunk[0], [pad(0), `v:${pad(0)}`]);
      break;
    }
    assert.equal(await kv.get(pad(2_499)), `v:${pad(2_499)}`);
  });

  it('orders keys by UTF-8 bytes: \\x00 separators, non-ASCII, astral characters', async (kv) => {
    const keys = ['user', 'user\x00', 'user\x00a', 'user\x00\x00', 'user\x01', 'usera', 'ä', 'é', 'z', '中', '\ue000',
      '\uffff', '😀', '😀\x00x', '𝄞', 'ﬀ', 'A', '~', '\x7f', '\x00'];
    await kv.batch(keys.map((k) => put(k)));
    const expected = [...keys].sort(byteOrder);
    assert.deepEqual(await keysOf(kv, {}), expected);
    assert.deepEqual(await keysOf(kv, { reverse: true }), [...expected].reverse());
    assert.deepEqual(await keysOf(kv, { gte: 'user\x00', lt: 'user\x01' }), ['user\x00', 'user\x00\x00', 'user\x00a']);
    assert.deepEqual(await keysOf(kv, { gt: '\uffff' }), ['𝄞', '😀', '😀\x00x']);
    assert.deepEqual(await keysOf(kv, { gt: '\ue000', lt: '😀' }), ['ﬀ', '\uffff', '𝄞']);
    assert.equal(await kv.get('😀\x00x'), 'v:😀\x00x');
  });

  it('writing while iterating does not crash; the iterator reads a snapshot', async (kv) => {
    await kv.batch(Array.from({ length: 1000 }, (_, i) => put(pad(i * 2))));
    const seen: [string, string][] = [];
    for await (const entry of kv.entries({})) {
      seen.push(entry);
      const i = seen.length;
      await kv.batch([put(pad(i * 2 + 1)), put(pad(i * 2 + 2), 'changed'), put(`a${i}`), { type: 'del', key: pad(i * 2 + 4) }]);
    }
    assert.deepEqual(seen, Array.from({ length: 1000 }, (_, i) => [pad(i * 2), `v:${pad(i * 2)}`]));
    assert.equal(await kv.get(pad(4)), 'changed');
    assert.equal(await kv.get(pad(3)), `v:${pad(3)}`);
  });

  it('a short range read while writing sees the store as it was when the read began', async (kv) => {
    await kv.batch(Array.from({ length: 100 }, (_, i) => put(pad(i * 2))));
    const seen: string[] = [];
    for await (const key of kv.keys({ gte: pad(20), lt: pad(60) })) {
      seen.push(key);
      await kv.batch([put(pad(seen.length * 2 + 21)), { type: 'del', key: pad(seen.length * 2 + 22) }]);
    }
    assert.deepEqual(seen, Array.from({ length: 20 }, (_, i) => pad(20 + i * 2)));
    assert.deepEqual(await keysOf(kv, { gte: pad(20), lt: pad(26) }), [pad(20), pad(22), pad(23), pad(25)]);
  });

  it('several open iterators keep their own snapshots across writes', async (kv) => {
    await kv.batch(Array.from({ length: 300 }, (_, i) => put(pad(i))));
    const a = kv.keys({})[Symbol.asyncIterator]();
    const b = kv.keys({ reverse: true })[Symbol.asyncIterator]();
    assert.equal((await a.next()).value, pad(0));
    assert.equal((await b.next()).value, pad(299));
    await kv.batch([{ type: 'del', key: pad(1) }, { type: 'del', key: pad(298) }, put(pad(500))]);
    const restA: string[] = [];
    for (let r = await a.next(); !r.done; r = await a.next()) restA.push(r.value);
    const restB: string[] = [];
    for (let r = await b.next(); !r.done; r = await b.next()) restB.push(r.value);
    assert.deepEqual(restA, Array.from({ length: 299 }, (_, i) => pad(i + 1)));
    assert.deepEqual(restB, Array.from({ length: 299 }, (_, i) => pad(298 - i)));
    assert.equal((await keysOf(kv, {})).length, 299);
  });

  it('20k keys iterate in order, forwards and backwards, in random insert order', async (kv) => {
    const n = 20_000;
    const order = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (let i = 0; i < n; i += 1000) await kv.batch(order.slice(i, i + 1000).map((k) => put(pad(k))));
    let expect = 0;
    for await (const [key, value] of kv.entries({})) {
      assert.equal(key, pad(expect));
      assert.equal(value, `v:${pad(expect++)}`);
    }
    assert.equal(expect, n);
    for await (const key of kv.keys({ reverse: true })) assert.equal(key, pad(--expect));
    assert.equal(expect, 0);
    await kv.batch(order.slice(0, n / 2).map((k): KvOp => ({ type: 'del', key: pad(k) })));
    const left = await keysOf(kv, {});
    assert.deepEqual(left, order.slice(n / 2).sort((x, y) => x - y).map(pad));
    assert.deepEqual(await keysOf(kv, { gte: pad(5000), limit: 3 }), left.filter((k) => k >= pad(5000)).slice(0, 3));
  });
}
