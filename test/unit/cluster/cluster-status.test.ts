// The `cluster.*` query handlers (cluster and embedded): an operation neither knows is the
// shared 501 UNKNOWN_OPERATION every subject family answers, not a NOT_FOUND of their own.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterStatus, embeddedStatusHandler, type ClusterStatusOptions } from '../../../src/cluster/cluster-status.js';
import type { Membership } from '../../../src/cluster/membership.js';
import { ApiError } from '../../../src/errors.js';

const unknownOp = (op: string) => (err: unknown) => {
  assert.ok(err instanceof ApiError);
  assert.equal(err.code, 'UNKNOWN_OPERATION');
  assert.equal(err.status, 501);
  assert.deepEqual({ field: (err.apiCause as { field?: string }).field, value: (err.apiCause as { value?: string }).value }, { field: 'op', value: op });
  return true;
};

describe('cluster status queries', () => {
  it('a cluster node answers an unknown cluster operation with 501 UNKNOWN_OPERATION', async () => {
    // The unknown op is refused before any source is read: the options are never touched.
    const status = new ClusterStatus({} as ClusterStatusOptions);
    await assert.rejects(status.handle({ op: 'cluster.rebalance' }), unknownOp('cluster.rebalance'));
  });

  it('an embedded node answers an unknown cluster operation with 501 UNKNOWN_OPERATION, and a drain with COULD_NOT_VALIDATE', async () => {
    const handle = embeddedStatusHandler(() => { throw new Error('not read'); });
    await assert.rejects(handle({ op: 'cluster.rebalance' }), unknownOp('cluster.rebalance'));
    await assert.rejects(handle({ op: 'cluster.drain', nodeId: 'n2' }), (err: unknown) => err instanceof ApiError && err.code === 'COULD_NOT_VALIDATE');
  });

  it('reports a draining member as not ready, reason DRAINING, even while its last heartbeat still said ready', async () => {
    const member = (id: string, draining: boolean) => ({
      id, version: 'v0', appliedSeq: 5, startedAt: 't', baseUrl: `https://${id}`, ctrlAddress: null, isLocal: false,
      draining, health: { ready: true },
    });
    const membership = { live: () => [member('n1', false), member('n2', true)], readyMembers: () => ['n1'] } as unknown as Membership;
    // NATS unreachable: the stream is reported as null, the members from their heartbeats.
    const nc = { jetstreamManager: async () => { throw new Error('no NATS'); } };
    const status = new ClusterStatus({ nodeId: 'n1', clusterName: 'c', clusterId: 'id', nc, membership } as unknown as ClusterStatusOptions);
    const report = await status.report();
    const byId = Object.fromEntries(report.members.map((m) => [m.id, m]));
    assert.deepEqual([byId.n1!.ready, byId.n1!.reason, byId.n1!.draining], [true, null, false]);
    assert.deepEqual([byId.n2!.ready, byId.n2!.reason, byId.n2!.draining, byId.n2!.serving], [false, 'DRAINING', true, false]);
    assert.equal(report.stream, null);
  });

  it('removes a member that died (listed offline) even while no member serves', async () => {
    const drained: string[] = [];
    const membership = {
      list: () => [{ id: 'n1', isOnline: true, draining: false }, { id: 'n2', isOnline: false, draining: false }],
      readyMembers: () => [],
      requestDrain: async (id: string) => void drained.push(id),
    } as unknown as Membership;
    const status = new ClusterStatus({ nodeId: 'n1', clusterName: 'c', clusterId: 'id', membership } as unknown as ClusterStatusOptions);
    assert.deepEqual(await status.drain('n2'), { id: 'n2', draining: true });
    assert.deepEqual(drained, ['n2']);
    await assert.rejects(status.drain('n3'), (err: unknown) => err instanceof ApiError && err.code === 'NOT_FOUND');
  });
});
