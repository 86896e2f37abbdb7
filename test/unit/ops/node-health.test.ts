// Tests for NodeHealth: when an embedded and a cluster node are live and ready, from the
// applied sequence, the stream's last sequence, the NATS connection, a replica failure, a drain
// and a shutdown.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NodeHealth, type HealthStatus } from '../../../src/ops/node-health.js';

/** A cluster node's health over sources the test sets; started, with its first read done. */
async function clusterNode(initial: { applied?: number; last?: number } = {}) {
  const state = { applied: initial.applied ?? 0, last: initial.last ?? 0, connected: true, failure: undefined as Error | undefined, draining: false, readable: true, now: 1_000_000 };
  const polled: HealthStatus[] = [];
  const health = new NodeHealth({
    nodeId: 'n1',
    appliedSeq: () => state.applied,
    cluster: {
      lastSeq: async () => {
        if (!state.readable) throw new Error('stream info failed');
        return state.last;
      },
      natsConnected: () => state.connected,
      failure: () => state.failure,
      draining: () => state.draining,
    },
    maxLag: 100,
    staleAfterMs: 5_000,
    pollMs: 3_600_000,
    now: () => state.now,
    onPoll: (s) => polled.push(s),
  });
  health.start();
  await health.poll();
  health.stop();
  return { state, health, polled };
}

describe('NodeHealth', () => {
  it('an embedded node is live but not ready while starting, and ready once started', () => {
    const health = new NodeHealth({ nodeId: 'e1', appliedSeq: () => 7 });
    assert.deepEqual(health.status(), { nodeId: 'e1', live: true, ready: false, reason: 'STARTING', appliedSeq: 7 });
    health.start();
    assert.deepEqual(health.status(), { nodeId: 'e1', live: true, ready: true, appliedSeq: 7 });
  });

  it('a cluster node is not ready before it has read the stream (LOG_UNREADABLE)', async () => {
    const health = new NodeHealth({
      nodeId: 'n1', appliedSeq: () => 0,
      cluster: { lastSeq: () => Promise.reject(new Error('no stream')), natsConnected: () => true, failure: () => undefined, draining: () => false },
      pollMs: 3_600_000,
    });
    health.start();
    await health.poll();
    health.stop();
    assert.equal(health.status().ready, false);
    assert.equal(health.status().reason, 'LOG_UNREADABLE');
  });

  it('keeps the last sequence it read for others to use (metrics) without reading again', async () => {
    const { state, health } = await clusterNode({ applied: 5, last: 40 });
    assert.equal(health.lastReadSeq, 40);
    state.last = 50;
    assert.equal(health.lastReadSeq, 40, 'only a poll reads the stream');
    await health.poll();
    assert.equal(health.lastReadSeq, 50);
  });

  it('is ready within 100 entries of the stream', async () => {
    const { health } = await clusterNode({ applied: 1_000, last: 1_100 });
    assert.deepEqual(health.status(), { nodeId: 'n1', live: true, ready: true, appliedSeq: 1_000, lastSeq: 1_100, lag: 100 });
  });

  it('never reports lastSeq below appliedSeq: entries applied after the last read of the stream are in it too', async () => {
    const { state, health } = await clusterNode({ applied: 10, last: 10 });
    state.applied = 14;
    assert.deepEqual(health.status(), { nodeId: 'n1', live: true, ready: true, appliedSeq: 14, lastSeq: 14, lag: 0 });
  });

  it('is not ready beyond 100 entries behind (CATCHING_UP) but stays live, and is ready again once caught up', async () => {
    const { state, health } = await clusterNode({ applied: 1_000, last: 1_101 });
    assert.equal(health.status().ready, false);
    assert.equal(health.status().reason, 'CATCHING_UP');
    assert.equal(health.status().lag, 101);
    assert.equal(health.status().live, true);
    state.applied = 1_050;
    assert.equal(health.status().ready, true);
  });

  it('is not ready while NATS is disconnected (NATS_UNREACHABLE) but stays live', async () => {
    const { state, health } = await clusterNode();
    state.connected = false;
    assert.equal(health.status().reason, 'NATS_UNREACHABLE');
    assert.equal(health.status().live, true);
    state.connected = true;
    assert.equal(health.status().ready, true);
  });

  it('is not ready once its last successful read of the stream is older than staleAfterMs (LOG_UNREADABLE)', async () => {
    const { state, health } = await clusterNode();
    state.readable = false;
    state.now += 5_001;
    await health.poll();
    assert.equal(health.status().reason, 'LOG_UNREADABLE');
    state.readable = true;
    await health.poll();
    assert.equal(health.status().ready, true);
  });

  it('is neither live nor ready when the replica cannot apply the log (REPLICA_FAILED)', async () => {
    const { state, health } = await clusterNode();
    state.failure = new Error('disk full');
    assert.deepEqual(health.status(), { nodeId: 'n1', live: false, ready: false, reason: 'REPLICA_FAILED', appliedSeq: 0 });
  });

  it('is not ready while draining (DRAINING)', async () => {
    const { state, health } = await clusterNode();
    state.draining = true;
    assert.equal(health.status().reason, 'DRAINING');
    assert.equal(health.status().live, true);
  });

  it('an embedded node that began shutting down is live but not ready (SHUTTING_DOWN)', () => {
    const health = new NodeHealth({ nodeId: 'e1', appliedSeq: () => 7 });
    health.start();
    health.beginShutdown();
    assert.deepEqual(health.status(), { nodeId: 'e1', live: true, ready: false, reason: 'SHUTTING_DOWN', appliedSeq: 7 });
  });

  it('a caught-up cluster node that began shutting down is live but not ready (SHUTTING_DOWN), also when NATS is gone', async () => {
    const { state, health } = await clusterNode({ applied: 9, last: 9 });
    assert.equal(health.status().ready, true);
    health.beginShutdown();
    assert.deepEqual(health.status(), { nodeId: 'n1', live: true, ready: false, reason: 'SHUTTING_DOWN', appliedSeq: 9, lastSeq: 9, lag: 0 });
    state.connected = false;
    assert.equal(health.status().reason, 'SHUTTING_DOWN');
  });

  it('hands the status after each read to onPoll', async () => {
    const { state, health, polled } = await clusterNode({ applied: 0, last: 500 });
    state.applied = 500;
    await health.poll();
    assert.deepEqual(polled.map((s) => [s.ready, s.reason]), [[false, 'CATCHING_UP'], [true, undefined]]);
  });
});
