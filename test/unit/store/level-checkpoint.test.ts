// Checkpoints of a LevelDB that is open and being written: the copy opens, and holds one
// instant of the store (every batch whole or absent), while the source carries on.

import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkpointLevelDb, dbFiles } from '../../../src/store/level-checkpoint.js';
import { LevelKv } from '../../../src/store/level-kv.js';
import { ManifestError, readManifest } from '../../../src/store/leveldb-manifest.js';

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

describe('checkpointLevelDb and table files the MANIFEST does not name yet', () => {
  it('links only live tables, so the copy never writes into a file it shares with the source', async () => {
    const root = await mkdtemp(join(tmpdir(), 'weft-checkpoint-'));
    try {
      const sourcePath = join(root, 'source');
      const source = new LevelKv({ path: sourcePath });
      await source.open();
      for (let i = 0; i < 50; i++) await source.batch([{ type: 'put', key: `k${i}`, value: 'v'.repeat(1000) }]);
      await source.close();
      // A compaction writing its output takes the next file numbers before the MANIFEST names
      // them: stand-ins with those numbers must come through the checkpoint untouched.
      const version = readManifest(await readFile(join(sourcePath, (await readFile(join(sourcePath, 'CURRENT'), 'utf8')).trim())));
      const strays = [0, 1, 2, 3].map((i) => join(sourcePath, `${String(version.nextFileNumber + i).padStart(6, '0')}.ldb`));
      for (const stray of strays) await writeFile(stray, 'a compaction output being written');
      assert.equal(await checkpointLevelDb(sourcePath, join(root, 'copy'), 'k7'), 'v'.repeat(1000));
      for (const stray of strays) assert.equal(await readFile(stray, 'utf8'), 'a compaction output being written', `${stray} untouched`);
      const linked = (await readdir(join(root, 'copy'))).filter((name) => name.endsWith('.ldb'));
      for (const stray of strays) {
        const name = stray.slice(stray.lastIndexOf('/') + 1);
        if (linked.includes(name)) assert.notEqual((await stat(join(root, 'copy', name))).ino, (await stat(stray)).ino, `${name} is not shared`);
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('reads the live tables and logs of a MANIFEST', async () => {
    const root = await mkdtemp(join(tmpdir(), 'weft-manifest-'));
    try {
      const kv = new LevelKv({ path: root });
      await kv.open();
      for (let i = 0; i < 3000; i++) await kv.batch([{ type: 'put', key: `k${i % 500}`, value: `${i}:${'x'.repeat(2000)}` }]);
      await kv.close();
      const reopened = new LevelKv({ path: root }); // recovery writes what the log held into a table
      await reopened.open();
      await reopened.close();
      const names = await readdir(root);
      const version = readManifest(await readFile(join(root, (await readFile(join(root, 'CURRENT'), 'utf8')).trim())));
      const onDisk = names.filter((n) => /^\d+\.(ldb|sst)$/.test(n)).map((n) => Number(n.split('.')[0])).sort((a, b) => a - b);
      assert.ok(onDisk.length > 0, 'the writes made tables');
      assert.deepEqual([...version.tables].sort((a, b) => a - b), onDisk);
      const logs = names.filter((n) => n.endsWith('.log')).map((n) => Number(n.split('.')[0]));
      assert.ok(logs.every((n) => n >= version.logNumber), `every log on disk (${logs}) is at or after the log number ${version.logNumber}`);
      assert.ok(version.nextFileNumber > Math.max(...onDisk, ...logs));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('refuses bytes that are not a MANIFEST', () => {
    const record = Buffer.alloc(7 + 2);
    record.writeUInt16LE(2, 4);
    record[6] = 1;
    record[7] = 8; // no such version edit tag
    record[8] = 0;
    assert.throws(() => readManifest(record), ManifestError);
  });
});
