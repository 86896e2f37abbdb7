// Checkpoints of a LevelDB that is open and being written: the copy opens, and holds one
// instant of the store (every batch whole or absent), while the source carries on.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkpointLevelDb, dbFiles } from '../../../src/store/level-checkpoint.js';
import { LevelKv } from '../../../src/store/level-kv.js';

describe('checkpointLevelDb', () => {
  it('copies a store under concurrent writes as one instant: each batch whole or absent', async () => {
    const root = await mkdtemp(join(tmpdir(), 'weft-checkpoint-'));
    const source = new LevelKv({ path: join(root, 'source') });
    await source.open();
    let writing = true;
    let batches = 0;
    try {
      // Each batch writes 200 keys of one generation and the generation counter: a copy that
      // mixed two instants would hold a counter that disagrees with the keys.
      const writer = (async () => {
        while (writing) {
          batches++;
          const ops = Array.from({ length: 200 }, (_, i) => ({ type: 'put' as const, key: `k${String(i).padStart(3, '0')}`, value: `${batches}:${'x'.repeat(400)}` }));
          await source.batch([...ops, { type: 'put', key: 'gen', value: String(batches) }]);
        }
      })();
      const seen: number[] = [];
      for (let round = 0; round < 5; round++) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        const target = join(root, `copy-${round}`);
        const gen = Number(await checkpointLevelDb(source.path, target, 'gen'));
        assert.ok((await dbFiles(target)).includes('CURRENT'));
        const copy = new LevelKv({ path: target });
        await copy.open();
        const values = new Set<string>();
        for await (const [key, value] of copy.entries({ gte: 'k', lt: 'k~' })) {
          assert.match(key, /^k\d{3}$/);
          values.add(value.split(':')[0]);
        }
        assert.deepEqual([...values], [String(gen)], `round ${round}: every key from generation ${gen}`);
        assert.equal(await copy.get('gen'), String(gen));
        await copy.close();
        seen.push(gen);
      }
      writing = false;
      await writer;
      assert.ok(seen[seen.length - 1] > seen[0], `the source moved on between copies (${seen.join(', ')})`);
      assert.equal(await source.get('gen'), String(batches), 'the source is untouched by the copies');
    } finally {
      writing = false;
      await source.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
