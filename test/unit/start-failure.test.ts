// The message a node prints when it cannot start for a reason the operator can act on: one line,
// never a stack trace.

import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { ErrorCode, NatsError } from 'nats';
import { startFailureMessage } from '../../src/main.js';
import { listen } from '../../src/node-setup.js';

describe('startFailureMessage', () => {
  let taken: Server;
  let port: number;
  before(async () => {
    taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    port = (taken.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((done) => taken.close(() => done())));

  it('tells a JetStream request left unanswered at start, and that starting again is safe', () => {
    const message = startFailureMessage(NatsError.errorForCode(ErrorCode.Timeout));
    assert.match(message ?? '', /did not answer a JetStream request in time while this node was starting \(TIMEOUT\)/);
    assert.match(message ?? '', /not within --cluster-start-timeout \/ WEFT_CLUSTER_START_TIMEOUT/);
    assert.match(message ?? '', /Starting the node again is safe/);
    assert.doesNotMatch(message ?? '', /\n/);
  });

  it('names another NATS failure with its code', () => {
    const message = startFailureMessage(NatsError.errorForCode(ErrorCode.JetStreamNotEnabled));
    assert.match(message ?? '', /^a NATS request failed while this node was starting: .+ \(503\)$/);
  });

  it('names the HTTPS address in use and the setting to change', async () => {
    const err = await listen(createServer() as never, '127.0.0.1', port).then(() => undefined, (e: unknown) => e);
    assert.equal(startFailureMessage(err), `cannot listen on 127.0.0.1:${port} (EADDRINUSE): choose another address with --listen / WEFT_LISTEN`);
  });

  it('names the gRPC address in use and the setting to change', async () => {
    const server = new grpc.Server();
    const err = await new Promise<Error>((done) => server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (e) => done(e!)));
    server.forceShutdown();
    const message = startFailureMessage(err) ?? '';
    assert.match(message, new RegExp(`^cannot open the gRPC listener: listen EADDRINUSE: address already in use 127\\.0\\.0\\.1:${port}: choose another address with --grpc-listen / WEFT_GRPC_LISTEN$`));
  });

  it('leaves any other error alone', () => {
    assert.equal(startFailureMessage(new Error('disk full')), undefined);
    assert.equal(startFailureMessage('TIMEOUT'), undefined);
  });
});
