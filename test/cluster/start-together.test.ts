// Nodes started together with each other and with their NATS servers (Kubernetes' parallel pod
// management, Compose): each retries JetStream until it has formed, and they found one cluster.

import { strict as assert } from 'node:assert';
import { after, describe, it } from 'node:test';
import { ClusterJoinError } from '../../src/cluster/cluster-join.js';
import { createLogger, type Level } from '../../src/logger.js';
import { startNatsCluster, type NatsClusterHandle } from '../support/nats-cluster.js';
import { startTestNode, TEST_CLUSTER_SECRET, type TestNode } from '../support/test-node.js';
import { until } from '../support/until.js';

/** A logger keeping its lines, and a wait for a line that matches. */
function capturingLogger() {
  const lines: { level: Level; entry: Record<string, unknown> }[] = [];
  const logger = createLogger('info', {}, (level, line) => void lines.push({ level, entry: JSON.parse(line) as Record<string, unknown> }));
  const retries = () => lines.filter((l) => l.level === 'warn' && l.entry.msg === 'NATS or JetStream not ready at start; retrying');
  return { logger, lines, retries };
}


describe('cluster start-up', () => {
  let nats: NatsClusterHandle | undefined;
  const nodes: TestNode[] = [];
  after(async () => {
    await Promise.allSettled(nodes.map((n) => n.close()));
    await nats?.stop();
  });

  it('three nodes started at once while JetStream is still forming all join one cluster, with one CA and one default admin', async () => {
    // One server of three: JetStream has no quorum, so it has no meta leader and answers nothing.
    nats = await startNatsCluster(3, { only: [0] });
    const logs = [capturingLogger(), capturingLogger(), capturingLogger()];
    const starting = logs.map((l, i) => startTestNode({
      natsUrl: nats!.urls.join(','),
      config: { clusterSecret: TEST_CLUSTER_SECRET, nodeId: `together-${i + 1}`, clusterStartTimeoutMs: 120_000 },
      logger: l.logger,
    }));
    const settled = Promise.allSettled(starting);
    await until('every node retried a JetStream request', () => logs.every((l) => l.retries().length > 0), { timeoutMs: 60_000 });
    for (const l of logs) {
      const retry = l.retries()[0].entry;
      assert.equal(typeof retry.step, 'string');
      assert.equal(typeof retry.cause, 'string', 'the cause is one line, not an error with a stack');
    }
    await Promise.all([nats.restartServer(1), nats.restartServer(2)]);
    const results = await settled;
    for (const r of results) if (r.status === 'fulfilled') nodes.push(r.value);
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.deepEqual(failed.map((r) => String(r.reason)), [], 'every node started');

    const cas = new Set(nodes.map((n) => n.handle.caPem));
    assert.equal(cas.size, 1, 'one cluster CA');
    const founders = logs.filter((l) => l.lines.some((x) => x.entry.msg === 'cluster founded'));
    assert.equal(founders.length, 1, 'exactly one node founded the cluster');
    const admins = await nodes[0].mgmt.get(`/identities?filter=${encodeURIComponent('isDefaultAdmin = true')}`, nodes[0].adminToken);
    assert.equal(admins.status, 200, admins.text);
    assert.equal(admins.body.data.length, 1, 'one default admin');
    // A token from one node is accepted by the others: they share the cluster.
    for (const n of nodes.slice(1)) {
      const me = await n.mgmt.get('/current-identity', nodes[0].adminToken);
      assert.equal(me.status, 200, me.text);
    }
  });

  it('refuses a wrong cluster secret at once, without retrying', async () => {
    assert.ok(nats, 'the NATS cluster of the test before');
    const log = capturingLogger();
    const err = await startTestNode({
      natsUrl: nats.urls.join(','),
      config: { clusterSecret: 'another-secret-of-at-least-32-characters', nodeId: 'stranger' },
      logger: log.logger,
    }).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ClusterJoinError, String(err));
    assert.match(err.message, /does not match the secret/);
    assert.equal(log.retries().length, 0);
  });
});
