// Request paths are matched as upstream's router matches them: doubled and trailing slashes
// collapse before routing (ZAC asks for `/identities/<id>//`), the query string is kept.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestNode, type TestNode } from '../support/test-node.js';

describe('path matching', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(async () => {
    await node?.close();
  });

  it('answers GET /identities/<id>// with the identity', async () => {
    const created = await node.mgmt.post('/identities', { name: 'doubled-slash', type: 'User', isAdmin: false }, node.adminToken);
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const res = await node.mgmt.get(`/identities/${id}//`, node.adminToken);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.id, id);
    assert.equal(res.body.data.name, 'doubled-slash');
  });

  it('answers a trailing slash and doubled slashes inside the path', async () => {
    const list = await node.mgmt.get('/identities/', node.adminToken);
    assert.equal(list.status, 200, list.text);
    assert.ok(Array.isArray(list.body.data));
    const inner = await node.mgmt.get('//identities//?limit=1', node.adminToken);
    assert.equal(inner.status, 200, inner.text);
    assert.equal(inner.body.data.length, 1);
    assert.equal(inner.body.meta.pagination.limit, 1);
  });

  it('creates through POST /services/ and updates through PATCH /services/<id>//', async () => {
    const created = await node.mgmt.post('/services/', { name: 'slash-service', encryptionRequired: true }, node.adminToken);
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const patched = await node.mgmt.patch(`/services/${id}//`, { roleAttributes: ['a'] }, node.adminToken);
    assert.equal(patched.status, 200, patched.text);
    const read = await node.mgmt.get(`/services//${id}`, node.adminToken);
    assert.deepEqual(read.body.data.roleAttributes, ['a']);
  });

  it('serves the client API with a trailing slash', async () => {
    const res = await node.client.get('/version/');
    assert.equal(res.status, 200, res.text);
    assert.equal(typeof res.body.data.version, 'string');
  });

  it('still answers 404 for an unknown id behind doubled slashes', async () => {
    const res = await node.mgmt.get('/identities/nope//', node.adminToken);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'NOT_FOUND');
  });
});
