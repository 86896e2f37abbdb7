// Health and cluster status of an embedded node over HTTPS: GET /healthz and GET /readyz answer
// without a session and outside the read barrier, GET /cluster (admin only) shows the node as its
// own single member, a drain is refused, and /metrics carries readiness and snapshot transfers.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient, startTestNode, type TestNode } from '../support/test-node.js';

// An embedded node's answers (a cluster node's are tested in test/cluster/ and the cluster unit
// tests): pinned to the embedded log even in the test command's cluster pass.
describe('health and cluster status (embedded node)', () => {
  let node: TestNode;
  let root: ApiClient;
  before(async () => {
    node = await startTestNode({ config: { clusterSecret: undefined } });
    root = new ApiClient(node.handle.url, (node.mgmt as any).dispatcher);
  });
  after(async () => {
    await node.close();
  });

  it('GET /healthz answers 200 live without a session', async () => {
    const res = await root.get('/healthz');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.live, true);
    assert.equal(res.body.data.nodeId, node.handle.nodeId);
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  it('GET /readyz answers 200 ready once the node has started', async () => {
    const res = await root.get('/readyz');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.ready, true);
    assert.equal(res.body.data.appliedSeq, node.handle.replica.appliedSeq);
  });

  it('GET /cluster refuses a request without a session (401 UNAUTHORIZED)', async () => {
    const res = await node.mgmt.get('/cluster');
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
  });

  it('GET /cluster refuses a non-admin (401 UNAUTHORIZED)', async () => {
    const user = await node.createUser('cluster-status-user');
    const res = await node.mgmt.get('/cluster', user.token);
    assert.equal(res.status, 401);
  });

  it('GET /cluster shows an embedded node as its own single member owning every shard', async () => {
    const res = await node.mgmt.get('/cluster', node.adminToken);
    assert.equal(res.status, 200);
    const status = res.body.data;
    assert.equal(status.clusterName, null);
    assert.equal(status.stream, null);
    assert.equal(status.members.length, 1);
    assert.equal(status.members[0].id, node.handle.nodeId);
    assert.equal(status.members[0].ready, true);
    assert.equal(status.members[0].shards, 64);
    assert.deepEqual(status.shards, { count: 64, unowned: 0, owners: { [node.handle.nodeId]: 64 } });
  });

  it('POST /cluster/members/:id/drain is refused on an embedded node (400 COULD_NOT_VALIDATE)', async () => {
    const res = await node.mgmt.post(`/cluster/members/${node.handle.nodeId}/drain`, {}, node.adminToken);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
    assert.equal(res.body.error.cause.field, 'nodeId');
  });

  it('GET /metrics reports readiness and zero snapshot transfers', async () => {
    const res = await root.get('/metrics');
    assert.equal(res.status, 200);
    assert.match(res.text, /^weft_node_ready 1$/m);
    assert.match(res.text, /^weft_snapshot_transfers_total\{direction="sent",result="ok"\} 0$/m);
    assert.match(res.text, /^weft_snapshot_transfers_total\{direction="received",result="ok"\} 0$/m);
    assert.doesNotMatch(res.text, /^weft_cluster_members/m, 'an embedded node has no membership');
  });
});
