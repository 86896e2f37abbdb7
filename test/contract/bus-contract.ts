// The Bus contract suite: every Bus implementation must pass it. `a` and `b` are two connections
// to the same bus (for MemoryBus, the same instance twice).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonText, type Bus } from '../../src/bus/bus.js';
import { ApiError } from '../../src/errors.js';

/** Two connections to one bus, and how to release them. */
export interface BusPair {
  a: Bus;
  b: Bus;
  cleanup(): Promise<void>;
}

/** Registers the contract tests, each named `<name> - <behaviour>`, with a fresh pair per test. */
export function runBusContract(name: string, factory: () => Promise<BusPair>): void {
  const it = (title: string, body: (a: Bus, b: Bus) => Promise<void>) =>
    test(`${name} - ${title}`, async () => {
      const pair = await factory();
      try {
        await body(pair.a, pair.b);
      } finally {
        await pair.cleanup();
      }
    });

  it('request/reply round trip carries JSON data and the subject', async (a, b) => {
    const data = {
      s: 'héllo ✓',
      n: 42.5,
      t: true,
      z: null,
      list: [1, 'two', { three: 3 }],
      nested: { deep: { x: [] } },
    };
    await b.serve('rt.echo', async (msg, subject) => ({ msg, subject }));
    assert.deepEqual(await a.request('rt.echo', data), { msg: data, subject: 'rt.echo' });
    assert.deepEqual(await a.request('rt.echo', 'text'), { msg: 'text', subject: 'rt.echo' });
    assert.deepEqual(await a.request('rt.echo', null), { msg: null, subject: 'rt.echo' });
    await b.serve('rt.void', async () => undefined);
    assert.equal(await a.request('rt.void', {}), undefined);
  });

  it('raw requests get the answer as JSON text; JsonText answers arrive parsed or untouched', async (a, b) => {
    const text = '{"id":"x1","name":"caf\u00e9 ✓","list":[1,{"n":null}]}';
    await b.serve('raw.text', async () => new JsonText(text));
    await b.serve('raw.value', async (msg) => ({ echo: msg }));
    await b.serve('raw.fail', async () => {
      throw new ApiError('NOT_FOUND');
    });
    assert.equal(await a.request('raw.text', {}, { raw: true }), text);
    assert.deepEqual(await a.request('raw.text', {}), { id: 'x1', name: 'café ✓', list: [1, { n: null }] });
    assert.deepEqual(JSON.parse(String(await a.request('raw.value', 'é', { raw: true }))), { echo: 'é' });
    await assert.rejects(a.request('raw.fail', {}, { raw: true }), (err) => err instanceof ApiError && err.code === 'NOT_FOUND');
  });

  it('ApiError code, status, message and cause cross the bus intact', async (a, b) => {
    const cause = { field: 'name', value: 'x.y', reason: 'must be unique' };
    await b.serve('err.api', async (msg) => {
      if (msg === 'conflict') {
        throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', { code: 'NOT_FOUND', message: 'ref' });
      }
      if (msg === 'custom') throw new ApiError('NOT_FOUND', undefined, 'no such thing');
      throw new ApiError('COULD_NOT_VALIDATE', cause);
    });
    await assert.rejects(a.request('err.api', 'field'), (err) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 'COULD_NOT_VALIDATE');
      assert.equal(err.status, 400);
      assert.equal(err.message, new ApiError('COULD_NOT_VALIDATE').message);
      assert.deepEqual(err.apiCause, cause);
      return true;
    });
    await assert.rejects(a.request('err.api', 'conflict'), (err) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 409);
      assert.deepEqual(err.apiCause, { code: 'NOT_FOUND', message: 'ref' });
      return true;
    });
    await assert.rejects(a.request('err.api', 'custom'), { code: 'NOT_FOUND', status: 404, message: 'no such thing' });
  });

  it('a non-ApiError thrown by a handler arrives as UNHANDLED', async (a, b) => {
    await b.serve('err.plain', async (msg) => {
      if (msg === 'string') throw 'just a string';
      throw new TypeError('boom');
    });
    await assert.rejects(a.request('err.plain', 'type'), (err) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 'UNHANDLED');
      assert.equal(err.status, 500);
      assert.deepEqual(err.apiCause, { code: 'UNHANDLED', message: 'boom' });
      return true;
    });
    await assert.rejects(a.request('err.plain', 'string'), {
      code: 'UNHANDLED',
      apiCause: { code: 'UNHANDLED', message: 'just a string' },
    });
  });

  it('request with no responders fails with SERVICE_UNAVAILABLE', async (a) => {
    const started = Date.now();
    await assert.rejects(a.request('nobody.home', {}, { timeoutMs: 5_000 }), (err) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 'SERVICE_UNAVAILABLE');
      assert.equal(err.status, 503);
      return true;
    });
    assert.ok(Date.now() - started < 4_000, 'fails fast, without waiting for the timeout');
  });

  it('request times out when nobody answers', async (a, b) => {
    await b.serve('slow.op', () => new Promise((resolve) => setTimeout(() => resolve('late'), 400)));
    const started = Date.now();
    await assert.rejects(a.request('slow.op', {}, { timeoutMs: 100 }), (err) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 'TIMEOUT');
      assert.equal(err.status, 504);
      return true;
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 90 && elapsed < 380, `timed out after ${elapsed}ms`);
  });

  it('wildcard * matches exactly one token', async (a, b) => {
    await b.serve('wc.*.op', async (_msg, subject) => subject);
    assert.equal(await a.request('wc.alpha.op', {}), 'wc.alpha.op');
    assert.equal(await a.request('wc.beta.op', {}), 'wc.beta.op');
    await assert.rejects(a.request('wc.alpha.beta.op', {}, { timeoutMs: 2_000 }), { code: 'SERVICE_UNAVAILABLE' });
    await assert.rejects(a.request('wc.op', {}, { timeoutMs: 2_000 }), { code: 'SERVICE_UNAVAILABLE' });
  });

  it('wildcard > matches one or more trailing tokens', async (a, b) => {
    await b.serve('gt.>', async (_msg, subject) => subject);
    assert.equal(await a.request('gt.one', {}), 'gt.one');
    assert.equal(await a.request('gt.one.two.three', {}), 'gt.one.two.three');
    await assert.rejects(a.request('gt', {}, { timeoutMs: 2_000 }), { code: 'SERVICE_UNAVAILABLE' });
    const seen: string[] = [];
    await b.subscribe('ev.gt.>', (_msg, subject) => void seen.push(subject));
    await a.publish('ev.gt.x.y', 1);
    await waitFor(() => seen.length === 1);
    assert.deepEqual(seen, ['ev.gt.x.y']);
  });

  it('queue group delivers each request to exactly one member', async (a, b) => {
    const counts = [0, 0, 0];
    const member = (i: number) => async (msg: unknown) => {
      counts[i]++;
      return { by: i, msg };
    };
    await b.serve('qg.work', member(0), { queue: 'workers' });
    await b.serve('qg.work', member(1), { queue: 'workers' });
    await a.serve('qg.work', member(2), { queue: 'workers' });
    const replies = await Promise.all(Array.from({ length: 60 }, (_, n) => a.request('qg.work', n)));
    replies.forEach((reply, n) => assert.equal((reply as { msg: number }).msg, n));
    assert.equal(counts[0] + counts[1] + counts[2], 60, `each request handled once: ${counts}`);
    assert.ok(counts.filter((c) => c > 0).length >= 2, `load is shared: ${counts}`);
  });

  it('publish fans out to every subscriber', async (a, b) => {
    const got: string[] = [];
    await a.subscribe('fan.topic', (msg) => void got.push(`a:${JSON.stringify(msg)}`));
    await b.subscribe('fan.topic', (msg) => void got.push(`b1:${JSON.stringify(msg)}`));
    await b.subscribe('fan.*', (msg) => void got.push(`b2:${JSON.stringify(msg)}`));
    await a.publish('fan.topic', { v: 1 });
    await waitFor(() => got.length === 3);
    assert.deepEqual(got.sort(), ['a:{"v":1}', 'b1:{"v":1}', 'b2:{"v":1}']);
  });

  it('an event handler error does not stop delivery', async (a, b) => {
    const got: unknown[] = [];
    await b.subscribe('evt.err', () => {
      throw new Error('subscriber failed');
    });
    await b.subscribe('evt.err', (msg) => void got.push(msg));
    await a.publish('evt.err', 1);
    await a.publish('evt.err', 2);
    await waitFor(() => got.length === 2);
    assert.deepEqual(got, [1, 2]);
  });

  it('unsubscribe stops delivery', async (a, b) => {
    const got: unknown[] = [];
    const marks: unknown[] = [];
    const sub = await b.subscribe('unsub.topic', (msg) => void got.push(msg));
    await b.subscribe('unsub.mark', (msg) => void marks.push(msg));
    await a.publish('unsub.topic', 1);
    await waitFor(() => got.length === 1);
    await sub.unsubscribe();
    await a.publish('unsub.topic', 2);
    await a.publish('unsub.mark', 'after'); // delivered after message 2 would have been
    await waitFor(() => marks.length === 1);
    assert.deepEqual(got, [1]);
    const served = await b.serve('unsub.svc', async () => 'ok');
    assert.equal(await a.request('unsub.svc', {}), 'ok');
    await served.unsubscribe();
    await assert.rejects(a.request('unsub.svc', {}, { timeoutMs: 2_000 }), { code: 'SERVICE_UNAVAILABLE' });
  });

  it('100 concurrent requests are all answered correctly, handlers run concurrently', async (a, b) => {
    let running = 0;
    let peak = 0;
    await b.serve('conc.double', async (msg) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 20)));
      running--;
      return { n: (msg as { n: number }).n * 2 };
    });
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: 100 }, (_, n) => a.request('conc.double', { n })));
    replies.forEach((reply, n) => assert.deepEqual(reply, { n: n * 2 }));
    assert.ok(peak > 1, `handlers overlapped (peak ${peak})`);
    assert.ok(Date.now() - started < 2_000, 'not serialized');
  });

  it('close waits for an in-flight handler, then refuses new requests', async (a, b) => {
    let finished = false;
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    await b.serve('close.slow', async () => {
      entered();
      await new Promise((r) => setTimeout(r, 200));
      finished = true;
      return 'done';
    });
    const pending = a.request('close.slow', {}, { timeoutMs: 5_000 });
    await inHandler;
    await b.close();
    assert.equal(finished, true, 'close resolved only after the handler finished');
    assert.equal(await pending, 'done');
    await assert.rejects(b.request('close.slow', {}, { timeoutMs: 2_000 }), { code: 'SERVICE_UNAVAILABLE' });
  });

  it('messages are not shared by reference', async (a, b) => {
    const kept: Array<{ list: number[] }> = [];
    await b.serve('ref.svc', async (msg) => {
      const m = msg as { list: number[] };
      m.list.push(99);
      kept.push(m);
      return m;
    });
    const sent = { list: [1] };
    const reply = (await a.request('ref.svc', sent)) as { list: number[] };
    assert.deepEqual(sent, { list: [1] }, 'the handler did not mutate the sender object');
    assert.deepEqual(reply, { list: [1, 99] });
    reply.list.push(7);
    assert.deepEqual(kept[0], { list: [1, 99] }, 'the requester did not mutate the handler object');
    const seen: Array<{ list: number[] }> = [];
    const mutate = (msg: unknown) => {
      const m = msg as { list: number[] };
      seen.push(structuredClone(m));
      m.list.push(0);
    };
    await a.subscribe('ref.evt', mutate);
    await b.subscribe('ref.evt', mutate);
    const event = { list: [5] };
    await a.publish('ref.evt', event);
    event.list.push(6);
    await waitFor(() => seen.length === 2);
    assert.deepEqual(seen, [{ list: [5] }, { list: [5] }]);
  });
}

/** Polls until cond holds (events are asynchronous on every bus); fails after timeoutMs. */
async function waitFor(cond: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
