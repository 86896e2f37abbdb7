// Runs the KvStore contract against CachedKv (LevelDB + in-memory mirror), plus what the
// mirror must guarantee: it is rebuilt from disk at open and never runs ahead of the disk.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CachedKv } from '../../src/store/cached-kv.js';
import { runKvContract } from './kv-contract.js';

runKvContract('cached-kv', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  return { kv: new CachedKv({ path: join(dir, 'db') }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

test('cached-kv - reopening loads everything written before from disk', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  try {
    const first = new CachedKv({ path: join(dir, 'db') });
    await first.open();
    const ops = Array.from({ length: 25_000 }, (_, i) => ({ type: 'put' as const, key: `k${String(i).padStart(6, '0')}`, value: `v${i}` }));
    await first.batch(ops, { sync: true });
    await first.batch([{ type: 'del', key: 'k000007' }]);
    await first.close();
    const second = new CachedKv({ path: join(dir, 'db') });
    await second.open();
    assert.equal(await second.get('k024999'), 'v24999');
    assert.equal(await second.get('k000007'), undefined);
    let count = 0;
    for await (const _ of second.keys({})) count++;
    assert.equal(count, 24_999);
    await second.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('cached-kv - a refused batch changes neither disk nor mirror', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  try {
    const kv = new CachedKv({ path: join(dir, 'db') });
    await kv.open();
    await assert.rejects(kv.batch([{ type: 'put', key: 'good', value: '1' }, { type: 'put', key: 'bad\ud800', value: '2' }]));
    assert.equal(await kv.get('good'), undefined);
    await kv.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('cached-kv - a warm batch of 300,000 ops is written behind whole, with the batches around it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cached-kv-'));
  try {
    const first = new CachedKv({ path: join(dir, 'db') });
    await first.open();
    await first.whenWarm();
    const big = Array.from({ length: 300_000 }, (_, i) => ({ type: 'put' as const, key: `k${String(i).padStart(6, '0')}`, value: '' }));
    await first.batch([{ type: 'put', key: 'a', value: 'before' }]);
    await first.batch(big);
    await first.batch([{ type: 'put', key: 'z', value: 'after' }]);
    await first.flush();
    await first.close();
    const second = new CachedKv({ path: join(dir, 'db') });
    await second.open();
    assert.equal(await second.get('a'), 'before');
    assert.equal(await second.get('k299999'), '');
    assert.equal(await second.get('z'), 'after');
    await second.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
