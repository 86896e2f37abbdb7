// ListenerDrain on a real HTTPS server on loopback: a request in flight at close is answered,
// one still in flight at the bound is cut and counted (by its connection), answers close their connection once the
// node winds down, and an idle keep-alive connection does not hold the close up.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Agent, createServer, request, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { before, describe, it } from 'node:test';
import { ListenerDrain } from '../../src/listener-drain.js';
import { makeCa, makeLeaf, type TestCert } from '../support/test-pki.js';

let cert: TestCert;

/** A server whose every request is handed to `onRequest`; resolves once it listens. */
async function serve(onRequest: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; drain: ListenerDrain; port: number }> {
  const server = createServer({ cert: cert.certPem, key: cert.keyPem });
  const drain = new ListenerDrain(server);
  server.on('request', onRequest);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, drain, port: (server.address() as AddressInfo).port };
}

/** GET / on `port`; resolves to the status, the connection header and the body, or rejects with
 * the socket error. `onSocket` hears the connection used. */
function get(port: number, agent?: Agent, onSocket?: (socket: Socket) => void): Promise<{ status: number; connection?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false, agent: agent ?? false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.once('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
      res.once('error', reject);
    });
    req.once('error', reject);
    if (onSocket) req.once('socket', onSocket);
    req.end();
  });
}

describe('ListenerDrain', () => {
  before(() => {
    cert = makeLeaf(makeCa('drain test CA'), 'localhost');
  });

  it('answers a request in flight at close, then resolves with nothing cut', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const arrival = new Promise<void>((r) => (arrived = r));
    const { drain, port } = await serve((_req, res) => {
      arrived();
      void released.then(() => res.end('done'));
    });
    const answer = get(port);
    await arrival;
    assert.equal(await drain.openConnections(), 1);
    const closed = drain.close(60_000);
    release();
    assert.deepEqual(await answer, { status: 200, connection: 'close', body: 'done' });
    assert.deepEqual(await closed, { cut: 0 });
    assert.equal(await drain.openConnections(), 0);
  });

  it('cuts the requests still in flight at the bound and counts them', async () => {
    let arrived!: () => void;
    const arrival = new Promise<void>((r) => (arrived = r));
    const { drain, port } = await serve(() => arrived()); // never answers
    const answer = get(port);
    await arrival;
    assert.deepEqual(await drain.close(50), { cut: 1 });
    await assert.rejects(answer, /socket hang up|ECONNRESET/);
  });

  it('once winding down, answers carry Connection: close and the server ends a keep-alive connection', { timeout: 30_000 }, async () => {
    const { drain, port } = await serve((_req, res) => res.end('ok'));
    const agent = new Agent({ keepAlive: true });
    try {
      assert.equal((await get(port, agent)).connection, 'keep-alive');
      drain.windDown();
      let socket: Socket | undefined;
      const answer = await get(port, agent, (s) => (socket = s));
      assert.deepEqual(answer, { status: 200, connection: 'close', body: 'ok' });
      // The keep-alive agent would keep it open: only the server ends it.
      if (!socket!.destroyed) await once(socket!, 'close');
    } finally {
      agent.destroy();
      await drain.close(1_000);
    }
  });

  it('closes an idle keep-alive connection at close instead of waiting for it', { timeout: 30_000 }, async () => {
    const { drain, port } = await serve((_req, res) => res.end('ok'));
    const agent = new Agent({ keepAlive: true });
    try {
      assert.equal((await get(port, agent)).connection, 'keep-alive');
      // A bound longer than the test's timeout: the close resolves only because the idle connection is closed.
      assert.deepEqual(await drain.close(600_000), { cut: 0 });
    } finally {
      agent.destroy();
    }
  });
});
