// Runs the KvStore contract against LevelKv in temp directories, plus what only a disk store
// has: persistence across close/reopen and owner-only permissions.

import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LevelKv } from '../../src/store/level-kv.js';
import { runKvContract } from './kv-contract.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'weft-level-kv-'));
}

runKvContract('level-kv', async () => {
  const dir = await tempDir();
  return { kv: new LevelKv({ path: join(dir, 'db') }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

test('level-kv - data persists across close and reopen', async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, 'db');
    const first = new LevelKv({ path });
    await first.open();
    await first.batch([{ type: 'put', key: 'a\x00😀', value: 'one' }, { type: 'put', key: 'b', value: 'two' }], { sync: true });
    await first.close();
    await assert.rejects(first.get('b'), /not open/);
    const second = new LevelKv({ path });
    await second.open();
    assert.deepEqual(await second.getMany(['a\x00😀', 'b', 'c']), ['one', 'two', undefined]);
    await second.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('level-kv - data dir is 0o700 and its files 0o600', async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, 'nested', 'db');
    const kv = new LevelKv({ path });
    await kv.open();
    await kv.batch([{ type: 'put', key: 'k', value: 'v' }], { sync: true });
    assert.equal((await stat(path)).mode & 0o777, 0o700);
    for (const name of await readdir(path)) assert.equal((await stat(join(path, name))).mode & 0o777, 0o600, name);
    await kv.close();
    for (const name of await readdir(path)) assert.equal((await stat(join(path, name))).mode & 0o777, 0o600, name);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
