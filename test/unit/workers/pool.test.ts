// Tests for the worker pool: Argon2id hash/verify through real worker threads, salt and
// length properties, off-main-thread execution, and load shedding when the queue is full.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { threadId } from 'node:worker_threads';
import { WorkerPool } from '../../../src/workers/pool.js';
import { ownThreadScheduling, schedulingReport, type ThreadScheduling, type WorkerPriority } from '../../../src/workers/thread-priority.js';
import { ApiError } from '../../../src/errors.js';

describe('WorkerPool', () => {
  let pool: WorkerPool;

  before(() => {
    pool = WorkerPool.create({ threads: 2 });
  });

  after(async () => {
    await pool.close();
  });

  it('hashes then verifies the same password', async () => {
    const { hash, salt } = await pool.hashPassword('correct horse battery staple');
    assert.equal(await pool.verifyPassword('correct horse battery staple', hash, salt), true);
  });

  it('rejects a wrong password', async () => {
    const { hash, salt } = await pool.hashPassword('s3cret');
    assert.equal(await pool.verifyPassword('s3cret!', hash, salt), false);
  });

  it('treats malformed stored values as a failed verification', async () => {
    const { hash, salt } = await pool.hashPassword('pw');
    assert.equal(await pool.verifyPassword('pw', hash.slice(0, 8), salt), false);
    assert.equal(await pool.verifyPassword('pw', hash, ''), false);
  });

  it('verifies a hash made by the Argon2id reference implementation (OpenZiti parameters)', async () => {
    // argon2id, t=1, m=3072 KiB, p=4, 32 bytes, salt 01..0a: computed with the C reference
    // (the argon2 package), i.e. what a stored hash of an existing data directory holds.
    const salt = 'AQIDBAUGBwgJCg==';
    const hash = 'hQekn1aUySA+wvapS9TY/VUDGtvuJxzuNePoc4LVOak=';
    assert.equal(await pool.verifyPassword('correct horse battery staple', hash, salt), true);
    assert.equal(await pool.verifyPassword('correct horse battery stapl', hash, salt), false);
  });

  it('salts: two hashes of the same password differ', async () => {
    const [a, b] = await Promise.all([pool.hashPassword('same'), pool.hashPassword('same')]);
    assert.notEqual(a.salt, b.salt);
    assert.notEqual(a.hash, b.hash);
  });

  it('produces a 32-byte hash and a 10-byte salt', async () => {
    const { hash, salt } = await pool.hashPassword('lengths');
    assert.equal(Buffer.from(hash, 'base64').length, 32);
    assert.equal(Buffer.from(salt, 'base64').length, 10);
  });

  it('runs tasks off the main thread', async () => {
    const workerThreadId = await pool.run<number>({ task: 'threadId' });
    assert.equal(typeof workerThreadId, 'number');
    assert.notEqual(workerThreadId, threadId);
  });

  it('reports stats', async () => {
    await pool.hashPassword('stats');
    const stats = pool.stats();
    assert.equal(stats.threads, 2);
    assert.equal(stats.queueSize, 0);
    assert.ok(stats.completed >= 1);
  });
});

describe('WorkerPool queue limit', () => {
  it('rejects with SERVER_TOO_MANY_REQUESTS when the queue is full', async () => {
    const pool = WorkerPool.create({ threads: 1, maxQueue: 1 });
    try {
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => pool.hashPassword('flood')));
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      assert.ok(rejected.length > 0, 'expected some tasks to be shed');
      for (const r of rejected) {
        assert.ok(r.reason instanceof ApiError);
        assert.equal(r.reason.code, 'SERVER_TOO_MANY_REQUESTS');
        assert.equal(r.reason.status, 429);
      }
      assert.ok(results.some((r) => r.status === 'fulfilled'), 'expected queued tasks to complete');
    } finally {
      await pool.close();
    }
  });
});

describe('WorkerPool priority', () => {
  async function schedulingOf(priority: WorkerPriority | undefined): Promise<ThreadScheduling[]> {
    const pool = WorkerPool.create({ threads: 2, ...(priority ? { priority } : {}) });
    try {
      // Two tasks at once: Piscina hands them to both idle threads.
      return await Promise.all([0, 1].map(() => pool.threadScheduling()));
    } finally {
      await pool.close();
    }
  }

  it('background: the threads run under SCHED_IDLE, and the calling thread is unchanged', async () => {
    const mine = ownThreadScheduling();
    assert.deepEqual(mine, { idle: false, nice: mine?.nice });
    for (const s of await schedulingOf('background')) assert.equal(s?.idle, true);
    assert.deepEqual(ownThreadScheduling(), mine);
  });

  it('low: the threads take a nice value of 10 (or keep a higher one) under the normal policy', async () => {
    const mine = ownThreadScheduling()!;
    for (const s of await schedulingOf('low')) assert.deepEqual(s, { idle: false, nice: Math.max(10, mine.nice) });
    assert.deepEqual(ownThreadScheduling(), mine);
  });

  it('normal, the default: the threads keep the process priority', async () => {
    const mine = ownThreadScheduling()!;
    for (const s of await schedulingOf(undefined)) assert.deepEqual(s, mine);
    for (const s of await schedulingOf('normal')) assert.deepEqual(s, mine);
  });

  it('reports at start-up what the threads got, warning when it is less than asked', () => {
    assert.deepEqual(schedulingReport('background', { idle: true, nice: 0 }), { level: 'info', msg: 'worker pool' });
    assert.deepEqual(schedulingReport('background', { idle: false, nice: 19 }), { level: 'warn', msg: 'worker pool: SCHED_IDLE not available (chrt missing or refused); running at nice 19' });
    assert.deepEqual(schedulingReport('low', { idle: false, nice: 10 }), { level: 'info', msg: 'worker pool' });
    assert.deepEqual(schedulingReport('normal', { idle: false, nice: 0 }), { level: 'info', msg: 'worker pool' });
    assert.deepEqual(schedulingReport('normal', null), { level: 'info', msg: 'worker pool' });
    for (const wanted of ['background', 'low'] as const) {
      assert.deepEqual(schedulingReport(wanted, null), { level: 'warn', msg: 'worker pool: thread priorities cannot be set on this system; the pool runs at normal priority' });
    }
  });
});
