// Tests for the gRPC server: CheckHealth over real TLS with the node PKI, the health callback
// reflected in the answer, and refusal by clients that do not trust the node CA.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { ensureNodePki, type NodePki } from '../../../src/pki/node-pki.js';
import { GrpcServer, type HealthReport } from '../../../src/rpc/grpc-server.js';
import { loadProto } from '../../../src/rpc/proto-path.js';

interface CheckHealthResponse {
  status: string;
  nodeId: string;
  appliedSeq: string;
  lastSeq: string;
  lag: string;
  reason: string;
}

type HealthClient = grpc.Client & {
  CheckHealth(
    req: { service: string },
    options: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res?: CheckHealthResponse) => void,
  ): grpc.ClientUnaryCall;
};

function healthClient(address: string, creds: grpc.ChannelCredentials): HealthClient {
  const pkg = loadProto('weft/v1/health.proto');
  const v1 = (pkg.weft as grpc.GrpcObject).v1 as grpc.GrpcObject;
  const Ctor = v1.HealthService as grpc.ServiceClientConstructor;
  return new Ctor(address, creds) as unknown as HealthClient;
}

function checkHealth(client: HealthClient): Promise<CheckHealthResponse> {
  const deadline = new Date(Date.now() + 5000);
  return new Promise((resolve, reject) => {
    client.CheckHealth({ service: '' }, { deadline }, (err, res) => (err || !res ? reject(err) : resolve(res)));
  });
}

describe('GrpcServer', () => {
  let root: string;
  let pki: NodePki;
  let server: GrpcServer;
  let report: HealthReport = { serving: true, nodeId: 'node-a', appliedSeq: 42 };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'weft-grpc-'));
    pki = await ensureNodePki({ dir: join(root, 'pki'), hostnames: ['localhost'], ips: ['127.0.0.1'] });
    server = await GrpcServer.start({
      listen: '127.0.0.1:0',
      tls: { certPem: pki.serverCertPem, keyPem: pki.serverKeyPem, caPem: pki.caCertPem },
      health: () => report,
    });
  });

  /** The server's port under the certificate's DNS name. */
  function localTarget(): string {
    return `localhost:${server.address.split(':').pop()}`;
  }

  after(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('binds a real port and reports it', () => {
    assert.match(server.address, /^127\.0\.0\.1:\d+$/);
    assert.notEqual(server.address, '127.0.0.1:0');
  });

  it('answers CheckHealth over TLS to a client trusting the node CA', async () => {
    const client = healthClient(localTarget(), grpc.credentials.createSsl(Buffer.from(pki.caCertPem)));
    try {
      const res = await checkHealth(client);
      assert.deepEqual(res, { status: 'SERVING_STATUS_SERVING', nodeId: 'node-a', appliedSeq: '42', lastSeq: '0', lag: '0', reason: '' });
    } finally {
      client.close();
    }
  });

  it('reflects the health callback: NOT_SERVING with the lag and its reason', async () => {
    report = { serving: false, nodeId: 'node-a', appliedSeq: 7, lastSeq: 300, lag: 293, reason: 'CATCHING_UP' };
    const client = healthClient(localTarget(), grpc.credentials.createSsl(Buffer.from(pki.caCertPem)));
    try {
      const res = await checkHealth(client);
      assert.equal(res.status, 'SERVING_STATUS_NOT_SERVING');
      assert.equal(res.appliedSeq, '7');
      assert.equal(res.lastSeq, '300');
      assert.equal(res.lag, '293');
      assert.equal(res.reason, 'CATCHING_UP');
    } finally {
      client.close();
      report = { serving: true, nodeId: 'node-a', appliedSeq: 42 };
    }
  });

  it('also verifies against the IP address in the certificate', async () => {
    const client = healthClient(server.address, grpc.credentials.createSsl(Buffer.from(pki.caCertPem)));
    try {
      assert.equal((await checkHealth(client)).status, 'SERVING_STATUS_SERVING');
    } finally {
      client.close();
    }
  });

  it('is refused by a client that does not trust the node CA', async () => {
    const client = healthClient(localTarget(), grpc.credentials.createSsl());
    try {
      await assert.rejects(checkHealth(client), (err: grpc.ServiceError) => {
        assert.equal(err.code, grpc.status.UNAVAILABLE);
        assert.match(err.details, /certificate|verify/i);
        return true;
      });
    } finally {
      client.close();
    }
  });

  it('serves the TLS policy of HTTPS: no TLS 1.2 suite without forward secrecy or AEAD, ECDHE-GCM and TLS 1.3 taken', async () => {
    const port = Number(server.address.split(':').pop());
    const handshake = (opts: ConnectionOptions) =>
      new Promise<string>((resolve) => {
        const socket = tlsConnect({ host: '127.0.0.1', port, ca: pki.caCertPem, servername: 'localhost', ALPNProtocols: ['h2'], ...opts }, () => {
          resolve(`${socket.getProtocol()} ${socket.getCipher().name}`);
          socket.end();
        });
        socket.on('error', () => resolve('refused'));
      });
    for (const ciphers of ['AES128-SHA', 'AES256-GCM-SHA384', 'ECDHE-RSA-AES128-SHA', 'ECDHE-ECDSA-AES128-SHA', 'DHE-RSA-AES128-SHA']) {
      assert.equal(await handshake({ maxVersion: 'TLSv1.2', ciphers }), 'refused', ciphers);
    }
    assert.match(await handshake({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-GCM-SHA256' }), /^TLSv1\.2 ECDHE-(RSA|ECDSA)-AES128-GCM-SHA256$/);
    assert.equal(await handshake({ maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }), 'refused');
    assert.match(await handshake({}), /^TLSv1\.3 TLS_/);
  });

  it('is refused by a plaintext client', async () => {
    const client = healthClient(localTarget(), grpc.credentials.createInsecure());
    try {
      await assert.rejects(checkHealth(client));
    } finally {
      client.close();
    }
  });
});
