// Point-in-time views (openSnapshot) over every store: a view keeps seeing the state of the
// moment it was opened, while the store itself moves on; views are read-only.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CachedKv } from '../../../src/store/cached-kv.js';
import { entryChunks, type KvStore } from '../../../src/store/kv.js';
import { openSnapshot } from '../../../src/store/kv-snapshot.js';
import { LevelKv } from '../../../src/store/level-kv.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of it) out.push(item);
  return out;
}

const stores: [string, (dir: string) => Promise<KvStore>][] = [
  ['memory-kv', async () => new MemoryKv()],
  ['level-kv', async (dir) => new LevelKv({ path: dir })],
  ['cached-kv (warm)', async (dir) => new CachedKv({ path: dir })],
];

describe('openSnapshot', () => {
  for (const [name, make] of stores) {
    it(`${name} - a view sees the state of its moment, the store moves on`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'weft-kv-snapshot-'));
      const kv = await make(dir);
      try {
        await kv.open();
        if (kv instanceof CachedKv) await kv.whenWarm();
        await kv.batch([{ type: 'put', key: 'a', value: '1' }, { type: 'put', key: 'c', value: '3' }]);
        const view = openSnapshot(kv);
        await kv.batch([{ type: 'put', key: 'b', value: '2' }, { type: 'del', key: 'a' }]);
        assert.equal(await view.get('a'), '1');
        assert.equal(await view.get('b'), undefined);
        assert.deepEqual(await view.getMany(['a', 'b', 'c']), ['1', undefined, '3']);
        assert.deepEqual(await collect(view.entries({})), [['a', '1'], ['c', '3']]);
        assert.deepEqual(await collect(view.keys({ gt: 'a' })), ['c']);
        assert.deepEqual((await collect(entryChunks(view, {}))).flat(), [['a', '1'], ['c', '3']]);
        await assert.rejects(view.batch([{ type: 'put', key: 'x', value: 'y' }]));
        assert.deepEqual(await collect(kv.entries({})), [['b', '2'], ['c', '3']]);
        await view.close();
      } finally {
        await kv.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  it('cached-kv - ranges of a view over writes not yet on disk: bounds, reverse and limit as the state of its moment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-kv-snapshot-'));
    const kv = new CachedKv({ path: dir });
    try {
      await kv.open();
      await kv.whenWarm();
      const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');
      await kv.batch(letters.filter((_, i) => i % 2 === 0).map((k) => ({ type: 'put' as const, key: k, value: `disk-${k}` })), { sync: true });
      // Unsynced: laid over the disk in the view (puts between, a replacement, deletes).
      await kv.batch([
        ...letters.filter((_, i) => i % 2 === 1).map((k) => ({ type: 'put' as const, key: k, value: `over-${k}` })),
        { type: 'put', key: 'c', value: 'over-c' },
        { type: 'del', key: 'e' },
        { type: 'del', key: 'f' },
      ]);
      const model = new Map(letters.map((k, i) => [k, i % 2 === 1 ? `over-${k}` : `disk-${k}`]));
      model.set('c', 'over-c');
      model.delete('e');
      model.delete('f');
      const view = openSnapshot(kv);
      await kv.batch([{ type: 'put', key: 'b', value: 'later' }, { type: 'del', key: 'c' }], { sync: true });
      const ranges = [{}, { gt: 'c' }, { gte: 'c' }, { gt: 'c', lt: 'k' }, { gte: 'd', lte: 'k' }, { lt: 'b' }, { gt: 'z' }, { gte: 'e', lte: 'f' }, { gt: 'b', lte: 'h', reverse: true }, { gte: 'a', limit: 3 }, { lt: 'x', reverse: true, limit: 4 }];
      for (const range of ranges) {
        const within = [...model].filter(([k]) => (range.gte === undefined || k >= range.gte) && (range.gt === undefined || k > range.gt) && (range.lte === undefined || k <= range.lte) && (range.lt === undefined || k < range.lt));
        if (range.reverse) within.reverse();
        const expected = range.limit === undefined ? within : within.slice(0, range.limit);
        assert.deepEqual(await collect(view.entries(range)), expected, JSON.stringify(range));
      }
      await view.close();
    } finally {
      await kv.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
