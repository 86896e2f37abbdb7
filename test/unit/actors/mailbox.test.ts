// The bounded mailbox: one message at a time in arrival order, results and errors handed back
// to each caller, immediate 429 SERVER_TOO_MANY_REQUESTS when full, accepting again once drained.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Mailbox } from '../../../src/actors/mailbox.js';
import { ApiError } from '../../../src/errors.js';

/** A promise with its resolve exposed, to hold a message "running" until the test lets go. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function isTooMany(err: unknown): boolean {
  assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
  assert.equal(err.code, 'SERVER_TOO_MANY_REQUESTS');
  assert.equal(err.status, 429);
  return true;
}

describe('Mailbox', () => {
  it('runs messages one at a time in arrival order', async () => {
    const box = new Mailbox(10);
    const events: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const work = (name: string, pauses: number) => async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      events.push(`start ${name}`);
      for (let i = 0; i < pauses; i++) await tick();
      events.push(`end ${name}`);
      running--;
      return name;
    };
    const results = await Promise.all([box.submit(work('a', 3)), box.submit(work('b', 0)), box.submit(work('c', 2)), box.submit(work('d', 1))]);
    assert.deepEqual(results, ['a', 'b', 'c', 'd']);
    assert.equal(maxRunning, 1);
    assert.deepEqual(events, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c', 'start d', 'end d']);
    assert.equal(box.depth, 0);
  });

  it('hands a failure to its caller and carries on with the next message', async () => {
    const box = new Mailbox(4);
    const failing = box.submit(async () => {
      throw new ApiError('NOT_FOUND');
    });
    const next = box.submit(async () => 'after');
    await assert.rejects(failing, (err: unknown) => err instanceof ApiError && err.code === 'NOT_FOUND');
    assert.equal(await next, 'after');
  });

  it('counts the running message and the waiting ones in depth', async () => {
    const box = new Mailbox(5);
    const hold = gate();
    const first = box.submit(() => hold.promise);
    const second = box.submit(async () => undefined);
    assert.equal(box.depth, 2);
    hold.open();
    await Promise.all([first, second]);
    assert.equal(box.depth, 0);
  });

  it('refuses at once with 429 SERVER_TOO_MANY_REQUESTS when full, without running the work', async () => {
    const box = new Mailbox(2);
    const hold = gate();
    const first = box.submit(() => hold.promise);
    const second = box.submit(async () => 'second');
    let ran = false;
    const refused = box.submit(async () => {
      ran = true;
    });
    // Settles before the running message is released: the refusal does not wait.
    await assert.rejects(refused, isTooMany);
    assert.equal(ran, false);
    assert.equal(box.depth, 2);
    hold.open();
    await first;
    assert.equal(await second, 'second');
    assert.equal(ran, false);
  });

  it('accepts messages again once the mailbox has drained', async () => {
    const box = new Mailbox(1);
    const hold = gate();
    const first = box.submit(() => hold.promise);
    await assert.rejects(box.submit(async () => 'no'), isTooMany);
    hold.open();
    await first;
    assert.equal(await box.submit(async () => 'yes'), 'yes');
    assert.equal(await box.submit(async () => 'again'), 'again');
  });

  it('frees a slot as soon as the running message finishes', async () => {
    const box = new Mailbox(2);
    const holds = [gate(), gate()];
    const first = box.submit(() => holds[0].promise);
    const second = box.submit(() => holds[1].promise);
    await assert.rejects(box.submit(async () => undefined), isTooMany);
    holds[0].open();
    await first;
    const third = box.submit(async () => 'third');
    holds[1].open();
    await second;
    assert.equal(await third, 'third');
  });

  it('rejects the caller of work that throws synchronously and keeps serving', async () => {
    const box = new Mailbox(4);
    const sync = (): Promise<string> => {
      throw new ApiError('NOT_FOUND');
    };
    const failing = box.submit(sync);
    const timeout = new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 200).unref());
    const outcome = await Promise.race([failing.then(() => 'resolved', (err: ApiError) => err.code), timeout]);
    assert.equal(outcome, 'NOT_FOUND');
    const next = await Promise.race([box.submit(async () => 'next'), timeout]);
    assert.equal(next, 'next');
    assert.equal(box.depth, 0);
  });

  it('drops a message still waiting at its start-by time, unrun, with its refusal; one that started in time runs to its end', async () => {
    const box = new Mailbox(10);
    const held = gate();
    const ran: string[] = [];
    const first = box.submit(async () => {
      ran.push('first');
      await held.promise;
      return 'first';
    }, { at: Date.now(), refusal: () => new ApiError('SERVICE_UNAVAILABLE') });
    const late = box.submit(async () => {
      ran.push('late');
      return 'late';
    }, { at: Date.now(), refusal: () => new ApiError('SERVICE_UNAVAILABLE', { code: 'NOT_STORED' }) });
    await assert.rejects(late, (err: unknown) => err instanceof ApiError && err.status === 503);
    assert.equal(box.depth, 1, 'the dropped message left the queue');
    const next = box.submit(async () => 'next');
    held.open();
    assert.equal(await first, 'first');
    assert.equal(await next, 'next');
    assert.deepEqual(ran, ['first'], 'the dropped message never ran');
  });
});
