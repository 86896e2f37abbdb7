// The whole API suite over a real nats-server (the NATS bus carries every command and query).

import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';
import { startTestNode } from '../support/test-node.js';
import { runApiSuites } from './suites/index.js';

let server: NatsServerHandle | undefined;
runApiSuites(
  'api over the NATS bus',
  async () => {
    server = await startNatsServer();
    return startTestNode({ natsUrl: server.url });
  },
  async () => {
    await server?.stop();
  },
);
