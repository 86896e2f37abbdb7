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
