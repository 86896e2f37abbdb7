// Runs the Bus contract suite against NatsBus: two connections to a nats-server this file starts.

import { after, before } from 'node:test';
import { NatsBus } from '../../src/bus/nats-bus.js';
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
