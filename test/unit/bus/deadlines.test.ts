// Unit tests of request deadlines and in-flight counting: timeouts fire in order without a timer
// per request, answered requests leave no trace, and idle() waits for the last piece of work.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { Deadlines } from '../../../src/bus/deadlines.js';
import { InFlight } from '../../../src/bus/in-flight.js';
import { ApiError } from '../../../src/errors.js';

const never = () => new Promise<never>(() => undefined);
const isTimeout = (err: unknown) => err instanceof ApiError && err.code === 'TIMEOUT';

describe('Deadlines', () => {
  it('passes answers and errors through untouched', async () => {
    const deadlines = new Deadlines();
    assert.equal(await deadlines.within(Promise.resolve(42), 1_000), 42);
    await assert.rejects(deadlines.within(Promise.reject(new ApiError('NOT_FOUND')), 1_000), { code: 'NOT_FOUND' });
  });

  it('rejects with TIMEOUT once the timeout passes, and not before', async () => {
    const deadlines = new Deadlines();
    const started = performance.now();
    await assert.rejects(deadlines.within(never(), 60), isTimeout);
    assert.ok(performance.now() - started >= 59, 'not before its deadline');
  });

  it('expires each request at its own deadline across timeout values, in deadline order', async () => {
    const deadlines = new Deadlines();
    const order: string[] = [];
    const watch = (name: string, timeoutMs: number) =>
      deadlines.within(never(), timeoutMs).catch((err: unknown) => {
        assert.ok(isTimeout(err));
        order.push(name);
      });
    const long = watch('long', 150);
    const short = watch('short', 30);
    await sleep(10);
    const middle = watch('middle', 60);
    await Promise.all([long, short, middle]);
    assert.deepEqual(order, ['short', 'middle', 'long']);
  });

  it('does not expire a request answered in time while an earlier one waits', async () => {
    const deadlines = new Deadlines();
    const first = deadlines.within(never(), 80);
    const second = deadlines.within(sleep(20).then(() => 'answered'), 80);
    assert.equal(await second, 'answered');
    await assert.rejects(first, isTimeout);
  });

  it('keeps no answered request once everything sent before it is answered', async () => {
    const deadlines = new Deadlines();
    const slow = deadlines.within(sleep(30).then(() => 'slow'), 10_000);
    await Promise.all(Array.from({ length: 2_000 }, (_, i) => deadlines.within(Promise.resolve(i), 10_000)));
    const queued = () => [...(deadlines as unknown as { queues: Map<number, { items: unknown[]; head: number }> }).queues.values()]
      .reduce((n, q) => n + q.items.length - q.head, 0);
    assert.equal(queued(), 2_001, 'the slow request holds the ones after it');
    await slow;
    assert.equal(queued(), 0);
  });
});

describe('InFlight', () => {
  it('idle resolves at once when nothing is under way', async () => {
    await new InFlight().idle();
  });

  it('idle waits for every tracked piece of work, failed ones included', async () => {
    const inFlight = new InFlight();
    let finished = 0;
    inFlight.track(sleep(30).then(() => finished++));
    inFlight.track(sleep(10).then(() => Promise.reject(new Error('handler failed')))).catch(() => finished++);
    await inFlight.idle();
    assert.equal(finished, 2);
  });

  it('track returns the work itself, so its caller still sees the answer', async () => {
    const inFlight = new InFlight();
    assert.equal(await inFlight.track(Promise.resolve('answer')), 'answer');
  });
});
