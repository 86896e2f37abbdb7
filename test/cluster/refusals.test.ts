// Starts a node must refuse, with a message that says why: on the data dir of another cluster,
// and with the node id of a node that is live. Two clusters share one JetStream-enabled
// nats-server, told apart by WEFT_CLUSTER_NAME.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { startCluster, type Cluster, type ClusterNode } from '../support/cluster.js';
import type { StartOutcome } from '../support/cluster-node.js';
import { startNatsCluster, type NatsClusterHandle } from '../support/nats-cluster.js';

describe('a node refuses to start', () => {
  const nodeId = `node-${randomBytes(3).toString('hex')}`;
  let nats: NatsClusterHandle;
  let alpha: Cluster;
  let beta: Cluster | undefined;
  let live: ClusterNode;
  let token: string;

  before(async () => {
    nats = await startNatsCluster(1);
    alpha = await startCluster({ nats, nodes: 0, balancer: false, name: 'alpha' });
    live = await alpha.setUp(() => alpha.addNode({ nodeId }));
    token = await alpha.setUp(() => alpha.login(live.mgmt));
  }, { timeout: 120_000 });
  after(async () => {
    await beta?.close();
    await alpha?.close();
    await nats?.stop();
  });
  afterEach((t) => {
    alpha?.reportIfFailed(t);
    beta?.reportIfFailed(t);
  });

  /** Starts `node` expecting it to exit by itself; resolves to its stderr. */
  const refusal = async (node: ClusterNode): Promise<string> => {
    const outcome: StartOutcome = await node.launch(60_000);
    if (outcome.listening) {
      await node.kill(); // it must not hold the data dir for the tests that follow
      assert.fail(`${node.name} started and served instead of refusing:\n${JSON.stringify(outcome.line)}`);
    }
    assert.notEqual(outcome.code, 0, `the process exits non-zero (code ${outcome.code}, signal ${outcome.signal})\n${outcome.stderr}`);
    assert.equal(outcome.signal, null, `the process exits by itself\n${outcome.stderr}`);
    console.log(`${node.name} refused to start (exit code ${outcome.code}): ${outcome.stderr.split('\n').find((l) => l.trim() && !l.startsWith('=====')) ?? ''}`);
    return outcome.stderr;
  };

  it('on the data dir of another cluster, saying the data dir belongs to another cluster', { timeout: 120_000 }, async () => {
    const created = await live.mgmt.post('/identities', { name: 'alpha-only', type: 'User', isAdmin: false }, token);
    assert.equal(created.status, 201, created.text);
    assert.equal(await live.stop(), 0);

    beta = await startCluster({ nats, nodes: 1, balancer: false, name: 'beta' });
    const stranger = await beta.newNode({ dataDir: live.dataDir });
    const stderr = await refusal(stranger);
    assert.match(stderr, /cluster/i, `the message names the cluster:\n${stderr}`);
    assert.match(stderr, new RegExp(`data[ _-]?dir|data directory|WEFT_DATA_DIR|${escape(live.dataDir)}`, 'i'), `the message names the data dir:\n${stderr}`);

    // The refusal is specific: its own cluster still takes the data dir, with its data.
    await live.start();
    const got = await live.mgmt.get(`/identities/${created.body.data.id}`, token);
    assert.equal(got.status, 200, got.text);
  });

  it('with the node id of a live node, saying the id is in use', { timeout: 120_000 }, async () => {
    if (!live.isRunning()) await live.start();
    const twin = await alpha.newNode({ nodeId });
    const stderr = await refusal(twin);
    assert.match(stderr, new RegExp(escape(nodeId)), `the message names the node id:\n${stderr}`);
    assert.match(stderr, /live|already|in use|running|duplicate/i, `the message says the id is taken:\n${stderr}`);

    // The live node was not disturbed.
    const res = await live.mgmt.post('/identities', { name: 'after-the-twin', type: 'User', isAdmin: false }, token);
    assert.equal(res.status, 201, res.text);
  });
});

function escape(text: string): string {
  return text.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&');
}
