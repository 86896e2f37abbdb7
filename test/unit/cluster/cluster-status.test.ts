// The `cluster.*` query handlers (cluster and embedded): an operation neither knows is the
// shared 501 UNKNOWN_OPERATION every subject family answers, not a NOT_FOUND of their own.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterStatus, embeddedStatusHandler, type ClusterStatusOptions } from '../../../src/cluster/cluster-status.js';
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
});
