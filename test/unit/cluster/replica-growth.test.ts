// Raising the cluster's stream replicas once the NATS cluster has servers for them, against a
// real three-server JetStream cluster started with two servers.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { openKv } from '../../../src/cluster/kv-bucket.js';
import { growReplicas } from '../../../src/cluster/replica-growth.js';
import { startNatsCluster, type NatsClusterHandle } from '../../support/nats-cluster.js';

describe('stream replicas raised when servers join', () => {
  let nats: NatsClusterHandle;
  let nc: NatsConnection;

  before(async () => {
    nats = await startNatsCluster(3, { only: [0, 1] });
    nc = await connect({ servers: nats.urls.slice(0, 2) });
  });
  after(async () => {
    await nc?.close();
    await nats?.stop();
  });

  it('a bucket created on two of three servers gets 2 replicas, and 3 once the third is in', async () => {
    // Two of three servers elect a meta leader; until then creating fails, as it would for a node.
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await openKv(nc, 'growth-members', { history: 1 });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const jsm = await nc.jetstreamManager();
    assert.equal((await jsm.streams.info('KV_growth-members')).config.num_replicas, 2);
    await jsm.streams.add({ name: 'growth-log', subjects: ['growth.log'], num_replicas: 1 });

    // Not enough servers for 3: the most the cluster can give now (2) for the R1 stream.
    assert.deepEqual(await growReplicas(jsm, ['KV_growth-members', 'growth-log', 'growth-missing']), [{ stream: 'growth-log', from: 1, to: 2 }]);

    await nats.restartServer(2);
    const grown = await growReplicas(jsm, ['KV_growth-members', 'growth-log', 'growth-missing']);
    assert.deepEqual(grown, [{ stream: 'KV_growth-members', from: 2, to: 3 }, { stream: 'growth-log', from: 2, to: 3 }]);
    assert.equal((await jsm.streams.info('KV_growth-members')).config.num_replicas, 3);
    assert.equal((await jsm.streams.info('growth-log')).config.num_replicas, 3);
    // Already there: nothing to do.
    assert.deepEqual(await growReplicas(jsm, ['KV_growth-members', 'growth-log']), []);
  });
});
