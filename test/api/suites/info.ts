// Service information: /, /version, /enumerated-capabilities, /specs and /summary.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestNode } from '../../support/test-node.js';

export function infoSuite(node: () => TestNode): void {
  describe('service information', () => {
    it('GET /version names both APIs without authentication', async () => {
      const res = await node().mgmt.get('/version');
      assert.equal(res.status, 200);
      const versions = res.body.data.apiVersions;
      assert.equal(versions.edge.v1.path, '/edge/client/v1');
      assert.equal(versions['edge-management'].v1.path, '/edge/management/v1');
      assert.ok(versions['edge-management'].v1.apiBaseUrls[0].startsWith('https://'));
      assert.ok(res.body.data.version);
    });

    it('GET / answers like /version on both APIs', async () => {
      for (const api of [node().mgmt, node().client]) {
        const res = await api.get('/');
        assert.equal(res.status, 200);
        assert.ok(res.body.data.apiVersions);
      }
    });

    it('GET /enumerated-capabilities lists only what the node implements: HA_CONTROLLER in cluster mode, never OIDC_AUTH', async () => {
      const res = await node().mgmt.get('/enumerated-capabilities');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, process.env.WEFT_TEST_BUS === 'cluster' ? ['HA_CONTROLLER'] : []);
    });

    it('GET /version lists the same capabilities as /enumerated-capabilities (upstream: HA_CONTROLLER when clustered)', async () => {
      const expected = process.env.WEFT_TEST_BUS === 'cluster' ? ['HA_CONTROLLER'] : [];
      assert.deepEqual((await node().mgmt.get('/version')).body.data.capabilities, expected);
      assert.deepEqual((await node().client.get('/version')).body.data.capabilities, expected);
      assert.deepEqual((await node().mgmt.get('/enumerated-capabilities')).body.data, expected);
    });

    it('serves its own API document under /specs', async () => {
      const list = await node().mgmt.get('/specs');
      assert.equal(list.body.data[0].id, 'edge-management');
      const detail = await node().mgmt.get('/specs/edge-management');
      assert.equal(detail.body.data.id, 'edge-management');
      const res = await node().mgmt.get('/specs/edge-management/spec');
      assert.equal(typeof res.body.data, 'string', 'the document is a string, as upstream serves it');
      const doc = JSON.parse(res.body.data);
      assert.equal(doc.swagger, '2.0');
      assert.equal(doc.basePath, '/edge/management/v1');
      assert.ok(doc.paths['/identities'].get);
      assert.ok(doc.paths['/identities/{id}'].patch);
      assert.equal((await node().mgmt.get('/specs/nope')).status, 404);
    });

    it('describes every served operation of each API in its document', async () => {
      const management = JSON.parse((await node().mgmt.get('/specs/edge-management/spec')).body.data);
      for (const [path, method] of [['/authenticate', 'post'], ['/terminators/{id}', 'patch'], ['/controller-settings/{id}/effective', 'put'], ['/current-identity/mfa', 'get']]) {
        assert.ok(management.paths[path]?.[method], `${method} ${path}`);
      }
      const client = await node().client.get('/specs/edge-client/spec');
      assert.equal(client.status, 200, client.text);
      const clientDoc = JSON.parse(client.body.data);
      assert.equal(clientDoc.basePath, '/edge/client/v1');
      for (const [path, method] of [['/external-jwt-signers', 'get'], ['/services/{id}/edge-routers', 'get'], ['/enroll', 'post']]) {
        assert.ok(clientDoc.paths[path]?.[method], `${method} ${path}`);
      }
      assert.equal(clientDoc.paths['/identities'], undefined, 'management-only paths stay out');
    });

    it('GET /summary counts resources (admin)', async () => {
      const res = await node().mgmt.get('/summary', node().adminToken);
      assert.equal(res.status, 200);
      assert.ok(res.body.data.identities >= 1);
      assert.equal(res.body.data.identityTypes, 2);
      const list = await node().mgmt.get('/identities?limit=1', node().adminToken);
      assert.equal(res.body.data.identities, list.body.meta.pagination.totalCount);
    });
  });
}
