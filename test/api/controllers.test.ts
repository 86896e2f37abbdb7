// GET /controllers: the running nodes, from heartbeats on the bus. One node alone, and two
// nodes sharing one nats-server that each list both.

import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent } from 'undici';
import { DEFAULTS, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startNode, type NodeHandle } from '../../src/main.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';
import { ADMIN, ApiClient, startTestNode, type TestNode } from '../support/test-node.js';
import { fingerprintOf } from '../support/assertions.js';

const serverCert = (dataDir: string) => readFile(join(dataDir, 'pki', 'server.pem'), 'utf8');

describe('GET /controllers on one node', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(async () => {
    await node.close();
  });

  it('lists this node with its addresses, certificate and state', async () => {
    const res = await node.mgmt.get('/controllers', node.adminToken);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.length, 1);
    assert.equal(res.body.meta.pagination.totalCount, 1);
    const [ctrl] = res.body.data;
    const certPem = await serverCert(node.dataDir);
    assert.equal(ctrl.id, node.handle.nodeId);
    assert.equal(ctrl.name, node.handle.nodeId);
    assert.equal(ctrl.isOnline, true);
    assert.equal(ctrl.certPem, certPem);
    assert.equal(ctrl.fingerprint, fingerprintOf(certPem));
    assert.ok(Date.parse(ctrl.lastJoinedAt) <= Date.now());
    assert.equal(ctrl.ctrlAddress, `tls:${node.handle.grpcAddress}`);
    const version = await node.mgmt.get('/version');
    const base = String(version.body.data.apiVersions['edge-management'].v1.apiBaseUrls[0]).replace('/edge/management/v1', '');
    assert.deepEqual(ctrl.apiAddresses['edge-management'], [{ url: `${base}/edge/management/v1`, version: 'v1' }]);
    assert.deepEqual(ctrl.apiAddresses['edge-client'], [{ url: `${base}/edge/client/v1`, version: 'v1' }]);
    assert.equal(ctrl._links.self.href, `./controllers/${node.handle.nodeId}`);
  });

  it('is open to any authenticated identity', async () => {
    const user = await node.createUser('ctrl-non-admin');
    assert.equal((await node.mgmt.get('/controllers', user.token)).status, 200);
  });

  it('is 401 without a session', async () => {
    const res = await node.mgmt.get('/controllers');
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
  });
});

describe('GET /controllers on two nodes sharing one nats-server', () => {
  let nats: NatsServerHandle;
  let seedDir: string;
  const nodes: ClusterNode[] = [];

  before(async () => {
    nats = await startNatsServer();
    // Both nodes start from the same replica (same admin) but keep their own PKI and node id.
    seedDir = await mkdtemp(join(tmpdir(), 'weft-ctrl-seed-'));
    const seed = await startTestNode({ dataDir: join(seedDir, 'seed') });
    await seed.close();
    for (const nodeId of ['ctrl-a', 'ctrl-b']) {
      const dataDir = join(seedDir, nodeId);
      await cp(join(seedDir, 'seed'), dataDir, { recursive: true });
      await rm(join(dataDir, 'pki'), { recursive: true, force: true });
      await rm(join(dataDir, 'node-id'), { force: true });
      nodes.push(await startClusterNode(nats.url, dataDir, nodeId));
    }
  });
  after(async () => {
    for (const node of nodes) await node.close();
    await nats.stop();
    await rm(seedDir, { recursive: true, force: true });
  });

  async function controllersSeenBy(node: ClusterNode, count: number): Promise<any[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const res = await node.mgmt.get('/controllers', node.token);
      assert.equal(res.status, 200, res.text);
      if (res.body.data.length >= count || Date.now() > deadline) return res.body.data;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('each node lists both, itself first, both online with their own certificates', async () => {
    const certs = await Promise.all(nodes.map((n) => serverCert(n.dataDir)));
    assert.notEqual(fingerprintOf(certs[0]!), fingerprintOf(certs[1]!));
    for (const [index, node] of nodes.entries()) {
      const list = await controllersSeenBy(node, 2);
      assert.deepEqual(list.map((c) => c.id), [node.handle.nodeId, nodes[1 - index]!.handle.nodeId]);
      for (const ctrl of list) {
        const owner = nodes.findIndex((n) => n.handle.nodeId === ctrl.id);
        assert.equal(ctrl.isOnline, true);
        assert.equal(ctrl.certPem, certs[owner]);
        assert.equal(ctrl.fingerprint, fingerprintOf(certs[owner]!));
        assert.equal(ctrl.ctrlAddress, `tls:${nodes[owner]!.handle.grpcAddress}`);
      }
    }
  });
});

interface ClusterNode {
  handle: NodeHandle;
  dataDir: string;
  mgmt: ApiClient;
  /** A session this node's replica holds. */
  token: string;
  close(): Promise<void>;
}

/**
 * A node on a shared nats-server. Until the shared log exists each node holds only the sessions
 * its own actors created, and a login may be served by either node's identity actor: log in
 * until this node answers with a session of its own.
 */
async function startClusterNode(natsUrl: string, dataDir: string, nodeId: string): Promise<ClusterNode> {
  const config: Config = {
    ...DEFAULTS, listen: '127.0.0.1:0', grpcListen: '127.0.0.1:0', dataDir, nodeId, natsUrl,
    adminUsername: ADMIN.username, adminPassword: ADMIN.password, workerThreads: 1, logLevel: 'silent',
  };
  const handle = await startNode(config, createLogger('silent'));
  const dispatcher = new Agent({ connect: { ca: handle.caPem } });
  const mgmt = new ApiClient(`${handle.url}/edge/management/v1`, dispatcher);
  const close = async () => {
    await handle.close();
    await dispatcher.close();
  };
  for (let attempt = 0; attempt < 40; attempt++) {
    const token = await mgmt.login(ADMIN.username, ADMIN.password).catch(() => undefined);
    if (token) return { handle, dataDir, mgmt, token, close };
  }
  await close();
  throw new Error(`no local session on ${nodeId}`);
}
