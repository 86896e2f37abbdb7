// Readiness against a real JetStream log: a follower whose applied sequence trails the stream by
// more than 100 entries is not ready (CATCHING_UP) and becomes ready once it has caught up; a lost
// NATS connection makes it not ready while it stays live.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { JetStreamLog } from '../../src/log/jetstream-log.js';
import { NodeHealth } from '../../src/ops/node-health.js';
import { startNatsCluster, type NatsClusterHandle } from '../support/nats-cluster.js';
import { until } from '../support/until.js';


describe('readiness follows a real JetStream log', () => {
  let nats: NatsClusterHandle;
  let nc: NatsConnection;
  let log: JetStreamLog<{ n: number }>;
  before(async () => {
    nats = await startNatsCluster(1);
    nc = await connect({ servers: nats.urls });
    log = new JetStreamLog({ nc, stream: 'READINESS', subject: 'weft-test.readiness.log' });
    await log.open();
  });
  after(async () => {
    await log?.close();
    await nc?.close();
    await nats?.stop();
  });

  it('is not ready while more than 100 entries behind the stream, and ready once caught up', async () => {
    for (let n = 1; n <= 150; n++) await log.append({ n });
    let applied = 0;
    let connected = true;
    const health = new NodeHealth({
      nodeId: 'follower',
      appliedSeq: () => applied,
      cluster: { lastSeq: () => log.lastSeq(), natsConnected: () => connected, failure: () => undefined, draining: () => false },
      pollMs: 3_600_000,
    });
    health.start();
    await health.poll();
    assert.deepEqual(health.status(), { nodeId: 'follower', live: true, ready: false, reason: 'CATCHING_UP', appliedSeq: 0, lastSeq: 150, lag: 150 });
    // Follow the stream, one entry at a time, and watch readiness turn on past the threshold.
    const readyAt: number[] = [];
    const sub = log.followBatches(0, async (entries) => {
      for (const e of entries) {
        applied = e.seq;
        if (health.status().ready && readyAt.length === 0) readyAt.push(e.seq);
      }
    }, 1);
    await until('caught up', () => applied === 150, { timeoutMs: 20_000, everyMs: 50 });
    await sub.close();
    assert.deepEqual(readyAt, [50], 'ready from the first sequence within 100 entries of 150');
    assert.equal(health.status().ready, true);
    connected = false;
    assert.equal(health.status().reason, 'NATS_UNREACHABLE');
    assert.equal(health.status().live, true);
    health.stop();
  });
});
