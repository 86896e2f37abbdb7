// Runs the Log contract against LocalLog in temp directories, plus what only the durable log
// has: recovery after reopen (entries, lastSeq, trim point), group commit, permissions.

import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LocalLog, LogTrimmedError } from '../../src/log/local-log.js';
import type { LogEntry } from '../../src/log/log.js';
import type { KvOp } from '../../src/store/kv.js';
import { LevelKv } from '../../src/store/level-kv.js';
import { runLogContract, waitFor } from './log-contract.js';
import { delegatingKv } from '../support/delegating-kv.js';

runLogContract('local-log', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-local-log-'));
  return { log: new LocalLog({ path: join(dir, 'log') }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

async function inTempDir(body: (path: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-local-log-'));
  try {
    await body(join(dir, 'log'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function readAll(log: LocalLog, afterSeq = 0): Promise<LogEntry[]> {
  const last = await log.lastSeq();
  const seen: LogEntry[] = [];
  const sub = log.follow(afterSeq, async (entry) => void seen.push(entry));
  await waitFor(() => seen.length === last - afterSeq, 'replay');
  await sub.close();
  return seen;
}

test('local-log - entries, lastSeq and the trim point survive reopen', async () => {
  await inTempDir(async (path) => {
    const first = new LocalLog({ path });
    await first.open();
    await Promise.all(Array.from({ length: 40 }, (_, i) => first.append({ i: i + 1, text: `é😀\x00${i + 1}` })));
    await first.close();
    const second = new LocalLog({ path });
    await second.open();
    assert.equal(await second.lastSeq(), 40);
    const all = await readAll(second);
    assert.deepEqual(all.map((e) => e.command), Array.from({ length: 40 }, (_, i) => ({ i: i + 1, text: `é😀\x00${i + 1}` })));
    await second.trimBefore(41);
    await second.close();
    const third = new LocalLog({ path });
    await third.open();
    assert.equal(await third.lastSeq(), 40);
    assert.equal(third.firstSeq(), 41);
    assert.throws(() => third.follow(10, async () => {}), LogTrimmedError);
    assert.equal(await third.append({ i: 41 }), 41);
    assert.deepEqual(await readAll(third, 40), [{ seq: 41, command: { i: 41 } }]);
    await third.close();
  });
});

test('local-log - followBatches streams entries no longer in memory in runs, after reopen', async () => {
  await inTempDir(async (path) => {
    const first = new LocalLog({ path });
    await first.open();
    await Promise.all(Array.from({ length: 40 }, (_, i) => first.append({ i: i + 1 })));
    await first.close();
    const second = new LocalLog({ path });
    await second.open();
    const runs: LogEntry[][] = [];
    const sub = second.followBatches(5, async (run) => void runs.push(run), 16);
    await second.append({ i: 41 });
    await waitFor(() => runs.flat().length === 36, 'entries 6..41');
    await sub.close();
    assert.deepEqual(runs.flat().map((e) => [e.seq, (e.command as { i: number }).i]), Array.from({ length: 36 }, (_, k) => [k + 6, k + 6]));
    assert.ok(runs.every((run) => run.length <= 16));
    assert.ok(runs.length < 36, 'stored entries come in runs');
    await second.close();
  });
});

test('local-log - group commit: concurrent appends share synced batches', async () => {
  await inTempDir(async (path) => {
    const level = new LevelKv({ path });
    const batches: { size: number; sync: boolean }[] = [];
    const counting = delegatingKv(level, {
      batch: (ops: KvOp[], opts?: { sync?: boolean }) => {
        batches.push({ size: ops.length, sync: opts?.sync === true });
        return level.batch(ops, opts);
      },
    });
    const log = new LocalLog({ kv: counting });
    await log.open();
    const seqs = await Promise.all(Array.from({ length: 500 }, (_, i) => log.append({ i })));
    assert.deepEqual(seqs, Array.from({ length: 500 }, (_, i) => i + 1));
    assert.ok(batches.length <= 10, `${batches.length} batches`);
    assert.ok(batches.every((b) => b.sync));
    assert.equal(batches.reduce((n, b) => n + b.size, 0), 500);
    await log.close();
  });
});

test('local-log - the log directory is owner-only', async () => {
  await inTempDir(async (path) => {
    const log = new LocalLog({ path });
    await log.open();
    await log.append({ secret: true });
    assert.equal((await stat(path)).mode & 0o777, 0o700);
    await log.close();
  });
});

test('local-log - throughput of 1000 concurrent appends (diagnostic)', async (t) => {
  await inTempDir(async (path) => {
    const log = new LocalLog({ path });
    await log.open();
    const started = performance.now();
    await Promise.all(Array.from({ length: 1000 }, (_, i) => log.append({ op: 'put', id: `id-${i}`, data: 'x'.repeat(100) })));
    const ms = performance.now() - started;
    t.diagnostic(`1000 concurrent appends: ${ms.toFixed(1)} ms (${Math.round(1000 / (ms / 1000))} appends/s)`);
    let serial = performance.now();
    for (let i = 0; i < 100; i++) await log.append({ i });
    serial = performance.now() - serial;
    t.diagnostic(`100 sequential appends: ${serial.toFixed(1)} ms (${(serial / 100).toFixed(2)} ms per synced write)`);
    await log.close();
  });
});
