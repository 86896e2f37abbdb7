// Bounded mailboxes: a flood of writes to one identity gets 429 SERVER_TOO_MANY_REQUESTS for
// what does not fit, every acknowledged write is applied, and reads keep answering.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestNode, type TestNode } from '../support/test-node.js';

describe('actor mailboxes under a write flood', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ config: { mailboxSize: 1 } });
  });
  after(async () => {
    await node.close();
  });

  it('answers 429 when the mailbox is full and loses no acknowledged write', async () => {
    const created = await node.mgmt.post('/identities', { name: 'flooded', type: 'User', isAdmin: false }, node.adminToken);
    const id = created.body.data.id;
    const writes = Array.from({ length: 200 }, (_, i) =>
      node.mgmt.patch(`/identities/${id}`, { tags: { [`k${i}`]: i } }, node.adminToken).then((res) => ({ i, res })),
    );
    const reads = Array.from({ length: 10 }, () => node.mgmt.get(`/identities/${id}`, node.adminToken));
    const results = await Promise.all(writes);
    for (const read of await Promise.all(reads)) assert.equal(read.status, 200);
    const refused = results.filter((r) => r.res.status === 429);
    const accepted = results.filter((r) => r.res.status === 200);
    assert.ok(refused.length > 0, 'some writes must be refused');
    assert.equal(refused.length + accepted.length, results.length);
    for (const { res } of refused) assert.equal(res.body.error.code, 'SERVER_TOO_MANY_REQUESTS');
    // PATCH replaces the tags map, so the last accepted write in mailbox order wins; each accepted
    // write was applied before it was answered, so its value was visible right after.
    const final = await node.mgmt.get(`/identities/${id}`, node.adminToken);
    const keys = Object.keys(final.body.data.tags);
    assert.equal(keys.length, 1);
    assert.ok(accepted.some((a) => `k${a.i}` === keys[0]));
  });
});
