import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { ReadBarrier } from '../../../src/cluster/read-barrier.js';

/** A stream whose last-seq queries are answered by hand, in order. */
function manualSource() {
  const queries: Array<(seq: number) => void> = [];
  const waited: number[] = [];
  return {
    queries,
    waited,
    source: {
      lastSeq: () => new Promise<number>((resolve) => queries.push(resolve)),
      waitApplied: async (seq: number) => {
        waited.push(seq);
      },
    },
  };
}

describe('ReadBarrier', () => {
  it('waits until the replica applied the last sequence read after the call', async () => {
    const m = manualSource();
    const barrier = new ReadBarrier(m.source);
    const done = barrier.sync();
    assert.equal(m.queries.length, 1);
    m.queries[0]!(42);
    await done;
    assert.deepEqual(m.waited, [42]);
  });

  it('lets callers that arrive during a query share the next one, never the running one', async () => {
    const m = manualSource();
    const barrier = new ReadBarrier(m.source);
    const first = barrier.sync();
    const second = barrier.sync();
    const third = barrier.sync();
    assert.equal(m.queries.length, 1, 'one query at a time');
    m.queries[0]!(10);
    await first;
    await new Promise((r) => setImmediate(r));
    assert.equal(m.queries.length, 2, 'the late callers share one new query');
    m.queries[1]!(12);
    await Promise.all([second, third]);
    assert.deepEqual(m.waited, [10, 12, 12]);
  });

  it('starts queries at most once per gap, and callers arriving meanwhile share the next one', async () => {
    const m = manualSource();
    let now = 1_000;
    const sleeps: Array<{ ms: number; wake: () => void }> = [];
    const barrier = new ReadBarrier(m.source, {
      minGapMs: 40,
      now: () => now,
      sleep: (ms) => new Promise<void>((wake) => sleeps.push({ ms, wake })),
    });
    const first = barrier.sync();
    assert.equal(m.queries.length, 1, 'the first query starts at once');
    now += 10;
    m.queries[0]!(10);
    await first;
    const second = barrier.sync();
    const third = barrier.sync();
    await new Promise((r) => setImmediate(r));
    assert.equal(m.queries.length, 1, 'no query within the gap');
    assert.deepEqual(sleeps.map((s) => s.ms), [30], 'one wait, for the rest of the gap');
    now += 30;
    sleeps[0]!.wake();
    await new Promise((r) => setImmediate(r));
    assert.equal(m.queries.length, 2, 'the waiting callers share one query');
    const late = barrier.sync();
    m.queries[1]!(12);
    await Promise.all([second, third]);
    assert.deepEqual(m.waited, [10, 12, 12]);
    await new Promise((r) => setImmediate(r));
    assert.equal(m.queries.length, 2, 'a caller that arrived while that query ran waits for the next gap');
    now += 40;
    sleeps[1]!.wake();
    await new Promise((r) => setImmediate(r));
    assert.equal(m.queries.length, 3);
    m.queries[2]!(13);
    await late;
    assert.deepEqual(m.waited, [10, 12, 12, 13]);
  });

  it('asks at once when the last query started a gap ago or more', async () => {
    const m = manualSource();
    let now = 0;
    const barrier = new ReadBarrier(m.source, { minGapMs: 40, now: () => now, sleep: () => assert.fail('no wait expected') });
    const first = barrier.sync();
    m.queries[0]!(1);
    await first;
    now += 40;
    const second = barrier.sync();
    assert.equal(m.queries.length, 2);
    m.queries[1]!(2);
    await second;
    assert.deepEqual(m.waited, [1, 2]);
  });

  it('passes a failed query on to its callers, and the next call asks again', async () => {
    let fail = true;
    const barrier = new ReadBarrier({
      lastSeq: async () => {
        if (fail) throw new Error('no NATS');
        return 5;
      },
      waitApplied: async () => undefined,
    });
    await assert.rejects(barrier.sync(), /no NATS/);
    fail = false;
    await barrier.sync();
  });
});
