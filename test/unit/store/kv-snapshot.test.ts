// Point-in-time views (openSnapshot) over every store: a view keeps seeing the state of the
// moment it was opened, while the store itself moves on; views are read-only.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CachedKv } from '../../../src/store/cached-kv.js';
import type { KvStore } from '../../../src/store/kv.js';
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
        await assert.rejects(view.batch([{ type: 'put', key: 'x', value: 'y' }]));
        assert.deepEqual(await collect(kv.entries({})), [['b', '2'], ['c', '3']]);
        await view.close();
      } finally {
        await kv.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
