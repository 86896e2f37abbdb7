// Runs the Bus contract suite against NatsBus: two connections to a nats-server this file starts.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { JsonText } from '../../src/bus/bus.js';
import { NatsBus } from '../../src/bus/nats-bus.js';
import { ApiError } from '../../src/errors.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';
import { runBusContract } from './bus-contract.js';

/** The suite throws from an event handler on purpose; keep the test output clean. */
const quiet = (): void => undefined;

let server: NatsServerHandle | undefined;

before(async () => {
  server = await startNatsServer();
});

after(async () => {
  await server?.stop();
});

runBusContract('nats-bus', async () => {
  if (!server) throw new Error('nats-server did not start (see the before hook error)');
  const a = await NatsBus.connect(server.url, { name: 'contract-a', onEventError: quiet });
  const b = await NatsBus.connect(server.url, { name: 'contract-b', onEventError: quiet });
  return { a, b, cleanup: async () => void (await Promise.all([a.close(), b.close()])) };
});

test('nats-bus - a local subject answers its own process without the network, others over NATS', async () => {
  if (!server) throw new Error('nats-server did not start');
  const a = await NatsBus.connect(server.url, { name: 'local-a', onEventError: quiet });
  const b = await NatsBus.connect(server.url, { name: 'local-b', onEventError: quiet });
  try {
    const sub = await a.serve('local.query', async (msg) => ({ echo: msg, at: 'a' }), { local: true });
    assert.deepEqual(await a.request('local.query', { n: 1 }), { echo: { n: 1 }, at: 'a' });
    assert.deepEqual(await b.request('local.query', { n: 2 }), { echo: { n: 2 }, at: 'a' });
    const text = await a.serve('local.text', async () => new JsonText('{"v":[1,"é"]}'), { local: true });
    assert.equal(await a.request('local.text', {}, { raw: true }), '{"v":[1,"é"]}');
    assert.equal(await b.request('local.text', {}, { raw: true }), '{"v":[1,"é"]}');
    assert.deepEqual(await b.request('local.text', {}), { v: [1, 'é'] });
    await text.unsubscribe();
    await sub.unsubscribe();
    await assert.rejects(a.request('local.query', { n: 3 }, { timeoutMs: 500 }), (err: unknown) => err instanceof ApiError && err.code === 'SERVICE_UNAVAILABLE');
    const failing = await a.serve('local.fail', async () => {
      throw new ApiError('NOT_FOUND');
    }, { local: true });
    await assert.rejects(a.request('local.fail', {}), (err: unknown) => err instanceof ApiError && err.code === 'NOT_FOUND');
    await failing.unsubscribe();
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('nats-bus - a request already routed to a member that stops serving is still answered', async () => {
  if (!server) throw new Error('nats-server did not start');
  const a = await NatsBus.connect(server.url, { name: 'leaving-member', onEventError: quiet });
  try {
    // One connection requests, then stops serving: the server reads the request before the
    // UNSUB and hands it to the subscription, but the message reaches the client only after
    // the client gave the subscription up. Dropped there, the request would wait for its
    // timeout; drained, it is handled and answered.
    let handled = 0;
    const sub = await a.serve('leaving.shard', async (msg) => {
      handled++;
      return { echo: msg };
    }, { queue: 'leaving' });
    const answer = a.request('leaving.shard', { n: 1 }, { timeoutMs: 3_000 });
    await sub.unsubscribe();
    assert.deepEqual(await answer, { echo: { n: 1 } });
    assert.equal(handled, 1);
    // Once unsubscribed, nothing more reaches it.
    await assert.rejects(a.request('leaving.shard', { n: 2 }, { timeoutMs: 500 }), (err: unknown) => err instanceof ApiError && err.code === 'SERVICE_UNAVAILABLE');
    assert.equal(handled, 1);
  } finally {
    await a.close();
  }
});

test('nats-bus - a subject served local while connected answers here only while NATS is reached', async () => {
  const own = await startNatsServer();
  const a = await NatsBus.connect(own.url, { name: 'local-while-connected', onEventError: quiet });
  try {
    let handled = 0;
    await a.serve('local.write', async () => ({ n: ++handled }), { local: 'while-connected' });
    await a.serve('local.read', async () => ({ read: true }), { local: true });
    assert.deepEqual(await a.request('local.write', {}), { n: 1 });
    own.kill();
    while (a.isConnected()) await new Promise((resolve) => setTimeout(resolve, 20));
    await assert.rejects(a.request('local.write', {}), (err: unknown) => err instanceof ApiError && err.code === 'SERVICE_UNAVAILABLE' && (err.apiCause as { code?: unknown } | undefined)?.code === 'NATS_UNREACHABLE');
    assert.equal(handled, 1, 'the handler did not run while NATS was lost');
    assert.deepEqual(await a.request('local.read', {}), { read: true }, 'a plain local subject still answers');
  } finally {
    await a.connection.close();
    await own.stop();
  }
});
