// Throughput of one kind of worker task: `count` tasks through a one-thread pool, `inFlight` at
// a time, after one warm-up task (the thread's start and first-use costs are not counted).

import { WorkerPool } from '../../src/workers/pool.js';

/** Tasks per second; `task(pool, i)` runs the i-th task. */
export async function poolTaskRate(count: number, inFlight: number, task: (pool: WorkerPool, i: number) => Promise<unknown>): Promise<number> {
  const pool = WorkerPool.create({ threads: 1 });
  try {
    await task(pool, 0);
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next < count) await task(pool, next++);
    }));
    return count / ((performance.now() - t0) / 1000);
  } finally {
    await pool.close();
  }
}
