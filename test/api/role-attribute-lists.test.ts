// Role-attribute lists (`/<entity>-role-attributes`): as upstream, only the filter pages them
// (no default limit), so without a `limit` in the filter the whole list (from any `skip`) is the
// answer. It is streamed from a cursor over the index, with the bytes the same list written whole has.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestNode, type TestNode } from '../support/test-node.js';

let node: TestNode;
const ATTRIBUTES = Array.from({ length: 300 }, (_, i) => `attr-${String(i).padStart(3, '0')}`);

before(async () => {
  node = await startTestNode();
  for (let i = 0; i < 60; i++) {
    const roleAttributes = ATTRIBUTES.slice(i * 5, i * 5 + 7); // neighbours share two attributes
    const res = await node.mgmt.post('/identities', { name: `ra-${i}`, type: 'User', isAdmin: false, roleAttributes }, node.adminToken);
    assert.equal(res.status, 201, res.text);
  }
});
after(async () => {
  await node.close();
});

describe('role-attribute lists', () => {
  const get = (filter?: string) => node.mgmt.get(`/identity-role-attributes${filter === undefined ? '' : `?filter=${encodeURIComponent(filter)}`}`, node.adminToken);

  it('answer every distinct attribute, streamed, with the bytes of the list written whole', async () => {
    const streamed = await get();
    assert.equal(streamed.status, 200, streamed.text);
    assert.equal(streamed.headers.get('content-length'), null, 'the whole list is streamed');
    assert.deepEqual(streamed.body.data, ATTRIBUTES);
    assert.equal(streamed.body.meta.pagination.totalCount, ATTRIBUTES.length);
    const whole = await get(`true limit ${ATTRIBUTES.length + 10}`); // a limit in the filter: one page, written whole
    assert.ok(whole.headers.get('content-length'));
    assert.equal(streamed.text, whole.text);
    assert.deepEqual(streamed.body.meta, whole.body.meta);
  });

  it('filter and sort descending while streaming; skip and limit in the filter page as before', async () => {
    const some = await get('id contains "-1"');
    assert.equal(some.headers.get('content-length'), null);
    assert.deepEqual(some.body.data, ATTRIBUTES.filter((a) => a.includes('-1')));
    const desc = await get('true sort by id desc');
    assert.deepEqual(desc.body.data, [...ATTRIBUTES].reverse());
    const page = await get('true sort by id desc skip 10 limit 5');
    assert.deepEqual(page.body.data, [...ATTRIBUTES].reverse().slice(10, 15));
    assert.equal(page.body.meta.pagination.offset, 10);
    assert.equal(page.body.meta.pagination.totalCount, 5);
  });

  it('streams from a skip without a limit, with the bytes of the page written whole', async () => {
    const streamed = await get('true sort by id desc skip 10');
    assert.equal(streamed.headers.get('content-length'), null, 'no limit: streamed');
    assert.deepEqual(streamed.body.data, [...ATTRIBUTES].reverse().slice(10));
    assert.equal(streamed.body.meta.pagination.offset, 10);
    const whole = await get(`true sort by id desc skip 10 limit ${ATTRIBUTES.length}`);
    assert.ok(whole.headers.get('content-length'));
    assert.equal(streamed.text, whole.text);
  });

  it('refuses a bad filter with 400 before streaming anything', async () => {
    const bad = await get('id = ');
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.error.code, 'INVALID_FILTER');
  });
});
