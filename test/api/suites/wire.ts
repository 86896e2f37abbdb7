// Wire conventions (BEHAVIOR.md §0): envelopes, status codes, error bodies, headers, limits.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestNode } from '../../support/test-node.js';

export function wireSuite(node: () => TestNode): void {
  describe('wire conventions', () => {
    it('wraps data in {data, meta} with the API versions', async () => {
      const res = await node().mgmt.get('/identities', node().adminToken);
      assert.equal(res.status, 200);
      assert.ok(Array.isArray(res.body.data));
      assert.equal(res.body.meta.apiVersion, '0.0.1');
      assert.equal(res.body.meta.apiEnrollmentVersion, '0.0.1');
    });

    it('answers create with 201 {id, _links} and updates with 200 {}', async () => {
      const { mgmt, adminToken } = node();
      const created = await mgmt.post('/identities', { name: 'wire-create', type: 'User', isAdmin: false }, adminToken);
      assert.equal(created.status, 201);
      const id = created.body.data.id;
      assert.match(id, /^[0-9a-zA-Z.-]+$/);
      assert.equal(created.body.data._links.self.href, `./identities/${id}`);
      const patched = await mgmt.patch(`/identities/${id}`, { roleAttributes: ['x'] }, adminToken);
      assert.equal(patched.status, 200);
      assert.deepEqual(patched.body.data, {});
      const deleted = await mgmt.delete(`/identities/${id}`, adminToken);
      assert.equal(deleted.status, 200);
      assert.deepEqual(deleted.body.data, {});
    });

    it('puts _links on every record', async () => {
      const res = await node().mgmt.get('/identities', node().adminToken);
      for (const record of res.body.data) assert.equal(record._links.self.href, `./identities/${record.id}`);
    });

    it('answers an unknown id with 404 NOT_FOUND in the error envelope without data', async () => {
      const res = await node().mgmt.get('/identities/does-not-exist', node().adminToken);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'NOT_FOUND');
      assert.equal(res.body.error.message, 'The resource requested was not found or is no longer available');
      assert.ok(res.body.error.requestId);
      assert.equal(res.body.data, undefined);
      assert.equal(res.body.meta.apiVersion, '0.0.1');
    });

    it('answers an unknown path with 404 NOT_FOUND', async () => {
      const res = await node().mgmt.get('/no-such-resource', node().adminToken);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    });

    it('answers an unsupported method with 405 METHOD_NOT_ALLOWED', async () => {
      const res = await node().mgmt.request('PUT', '/identities', { body: {}, token: node().adminToken });
      assert.equal(res.status, 405);
      assert.equal(res.body.error.code, 'METHOD_NOT_ALLOWED');
    });

    it('refuses malformed JSON with 400 COULD_NOT_PARSE_BODY', async () => {
      const res = await node().mgmt.request('POST', '/identities', { raw: '{"name": "x",', token: node().adminToken });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'COULD_NOT_PARSE_BODY');
    });

    it('refuses a JSON body that is not an object with COULD_NOT_VALIDATE', async () => {
      const res = await node().mgmt.request('POST', '/identities', { raw: '[1,2]', token: node().adminToken });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
    });

    it('refuses bodies over 1 MiB with 413 and stores nothing', async () => {
      const { mgmt, adminToken } = node();
      const big = { name: 'too-big', type: 'User', isAdmin: false, appData: { blob: 'x'.repeat(1024 * 1024 + 10) } };
      const res = await mgmt.post('/identities', big, adminToken);
      assert.equal(res.status, 413);
      assert.equal(res.body.error.code, 'REQUEST_ENTITY_TOO_LARGE');
      const list = await mgmt.get('/identities?filter=name%3D%22too-big%22', adminToken);
      assert.equal(list.body.meta.pagination.totalCount, 0);
    });

    it('refuses a form-encoded body with a clear message', async () => {
      const res = await node().mgmt.request('POST', '/identities', {
        raw: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        token: node().adminToken,
      });
      assert.equal(res.status, 415);
      assert.match(res.body.error.cause.message, /application\/json/);
    });

    it('answers a missing session with 401 UNAUTHORIZED and WWW-Authenticate error="missing"', async () => {
      const res = await node().mgmt.get('/identities');
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
      assert.match(res.headers.get('www-authenticate') ?? '', /zt-session realm="zt-session" error="missing"/);
    });

    it('answers an unknown token with 401 and WWW-Authenticate error="invalid"', async () => {
      const res = await node().mgmt.get('/identities', 'c0ffee00-0000-4000-8000-000000000000');
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid"/);
    });

    it('sends the server header, and expiry headers on authenticated responses', async () => {
      const res = await node().mgmt.get('/current-api-session', node().adminToken);
      assert.match(res.headers.get('server') ?? '', /^weft-controller\//);
      assert.equal(res.headers.get('expiration-seconds'), '1800');
      assert.ok(Date.parse(res.headers.get('expires-at') ?? '') > Date.now());
    });

    it('reads one entity: expiry headers, access before existence, 401 and 404', async () => {
      const { mgmt, adminToken } = node();
      const user = await node().createUser('one-read-user');
      const mine = await mgmt.get(`/identities/${user.id}`, adminToken);
      assert.equal(mine.status, 200);
      assert.equal(mine.body.data.id, user.id);
      assert.equal(mine.headers.get('expiration-seconds'), '1800');
      assert.ok(Date.parse(mine.headers.get('expires-at') ?? '') > Date.now());
      const refused = await mgmt.get(`/identities/${user.id}`, user.token);
      assert.equal(refused.status, 401);
      assert.equal(refused.body.error.code, 'UNAUTHORIZED');
      assert.equal(refused.headers.get('expiration-seconds'), '1800', 'a valid session still gets its expiry headers');
      assert.equal((await mgmt.get('/controllers', user.token)).status, 200, 'authenticated access');
      assert.equal((await mgmt.get('/controllers', 'c0ffee00-0000-4000-8000-000000000000')).status, 401);
      assert.equal((await mgmt.get('/controllers', '')).status, 401);
      const missing = await mgmt.get('/identities/no-such-identity', adminToken);
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get('expiration-seconds'), '1800');
      assert.equal((await mgmt.get('/identities/no-such-identity', user.token)).status, 401, 'access is checked before existence');
    });

    it('stores and returns hostile strings verbatim', async () => {
      const { mgmt, adminToken } = node();
      const name = `<script>"'\\ \u202e ünï 🔥 ; DROP TABLE`;
      const created = await mgmt.post('/identities', { name, type: 'User', isAdmin: false, tags: { note: name } }, adminToken);
      assert.equal(created.status, 201);
      const read = await mgmt.get(`/identities/${created.body.data.id}`, adminToken);
      assert.equal(read.body.data.name, name);
      assert.equal(read.body.data.tags.note, name);
      const filter = encodeURIComponent(`name = ${JSON.stringify(name)}`);
      const found = await mgmt.get(`/identities?filter=${filter}`, adminToken);
      assert.equal(found.body.data.length, 1);
      await mgmt.delete(`/identities/${created.body.data.id}`, adminToken);
    });

    it('keeps a NUL character in a name intact', async () => {
      const { mgmt, adminToken } = node();
      const created = await mgmt.post('/identities', { name: 'nul\u0000name', type: 'User', isAdmin: false }, adminToken);
      assert.equal(created.status, 201);
      const read = await mgmt.get(`/identities/${created.body.data.id}`, adminToken);
      assert.equal(read.body.data.name, 'nul\u0000name');
      await mgmt.delete(`/identities/${created.body.data.id}`, adminToken);
    });
  });
}
