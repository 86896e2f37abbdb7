// The version document at the root of the listener, as upstream serves it (openziti/ziti#2026):
// GET / and GET /version, without a session, the same document as each API's /version.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient, startTestNode, type TestNode } from '../support/test-node.js';

describe('GET / and GET /version at the root', () => {
  let node: TestNode;
  let root: ApiClient;
  before(async () => {
    node = await startTestNode();
    root = new ApiClient(node.handle.url, (node.mgmt as any).dispatcher);
  });
  after(async () => {
    await node.close();
  });

  for (const path of ['/', '/version']) {
    it(`GET ${path} answers the version document without a session, as /edge/client/v1/version does`, async () => {
      const res = await root.get(path);
      assert.equal(res.status, 200, res.text);
      const api = await node.client.get('/version');
      assert.deepEqual(res.body.data, api.body.data);
      assert.equal(res.body.data.apiVersions['edge-management'].v1.path, '/edge/management/v1');
    });
  }

  it('still answers 404 for another root path', async () => {
    const res = await root.get('/versions');
    assert.equal(res.status, 404);
  });
});
