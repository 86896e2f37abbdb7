// Point-in-time views (openSnapshot) over every store: a view keeps seeing the state of the
// moment it was opened, while the store itself moves on; views are read-only.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CachedKv } from '../../../src/store/cached-kv.js';
import type { KvStore } from '../../../src/store/kv.js';
import { entryChunks, openSnapshot } from '../../../src/store/kv-snapshot.js';
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
        await assert.rejects(view.batch([{ type: 'put', key: 'x', value: 'y' }]));
        assert.deepEqual(await collect(kv.entries({})), [['b', '2'], ['c', '3']]);
        await view.close();
      } finally {
        await kv.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  for (const [name, make] of stores) {
    it(`${name} - bulk reads of a view give its entries in order, writes made after it unseen`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'weft-kv-chunks-'));
      const kv = await make(dir);
      try {
        await kv.open();
        if (kv instanceof CachedKv) await kv.whenWarm();
        const key = (i: number) => `r\u0000k${String(i).padStart(3, '0')}`;
        await kv.batch(Array.from({ length: 100 }, (_, i) => ({ type: 'put' as const, key: key(i * 2), value: `v${i * 2}` })), { sync: true });
        // Written just before the view is opened: a cached store may still hold these in memory.
        await kv.batch([
          { type: 'put', key: key(1), value: 'odd' }, { type: 'put', key: key(100), value: 'replaced' },
          { type: 'del', key: key(50) }, { type: 'put', key: 'z', value: 'last' },
        ]);
        const view = openSnapshot(kv);
        await kv.batch([{ type: 'put', key: key(3), value: 'later' }]);
        const chunks = await collect(entryChunks(view, 7));
        assert.ok(chunks.length > 1 && chunks.every((c) => c.length > 0 && c.length <= 8));
        const expected = await collect(view.entries({}));
        assert.equal(expected.length, 101);
        assert.deepEqual(chunks.flat(), expected);
        assert.equal(chunks.flat().find(([k]) => k === key(3)), undefined);
        await view.close();
      } finally {
        await kv.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
