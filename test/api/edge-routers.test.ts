// Edge routers and transit routers over HTTP: CRUD and validation, enrollment JWTs, re-enroll,
// the system identity and policy of tunneler-enabled routers, role attributes, /transit-routers.

import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader, importX509, jwtVerify, type JWTPayload } from 'jose';
import { startTestNode, type TestNode } from '../support/test-node.js';

const MINUTE = 60_000;

describe('edge routers and routers', () => {
  let node: TestNode;
  let issuer: string;
  before(async () => {
    node = await startTestNode();
    const version = await node.mgmt.get('/version');
    issuer = String(version.body.data.apiVersions['edge-management'].v1.apiBaseUrls[0]).replace('/edge/management/v1', '');
  });
  after(async () => {
    await node.close();
  });

  const token = () => node.adminToken;
  const create = async (path: string, body: Record<string, unknown>) => {
    const res = await node.mgmt.post(path, body, token());
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  };
  const read = async (path: string) => {
    const res = await node.mgmt.get(path, token());
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };
  const status = async (path: string) => (await node.mgmt.get(path, token())).status;
  const verify = async (jwt: string): Promise<JWTPayload> => {
    const { payload } = await jwtVerify(jwt, await importX509(node.handle.caPem, 'RS256'), { issuer });
    return payload;
  };
  const assertFieldError = (res: { status: number; body: any; text: string }, field: string) => {
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
    assert.equal(res.body.error.cause.field, field);
  };

  describe('POST /edge-routers', () => {
    it('creates an unverified, offline router with upstream defaults', async () => {
      const id = await create('/edge-routers', { name: 'er-defaults', roleAttributes: ['east'], tags: { t: 1 } });
      const data = await read(`/edge-routers/${id}`);
      assert.equal(data.name, 'er-defaults');
      assert.deepEqual(data.roleAttributes, ['east']);
      assert.deepEqual(data.tags, { t: 1 });
      assert.equal(data.cost, 0);
      assert.equal(data.noTraversal, false);
      assert.equal(data.disabled, false);
      assert.equal(data.isTunnelerEnabled, false);
      assert.equal(data.isVerified, false);
      assert.equal(data.isOnline, false);
      assert.equal(data.syncStatus, 'SYNC_UNKNOWN');
      assert.equal(data.hostname, '');
      assert.deepEqual(data.supportedProtocols, {});
      assert.deepEqual(data.versionInfo, { arch: '', buildDate: '', os: '', revision: '', version: '' });
      assert.deepEqual(data.appData, {});
      assert.equal(data.fingerprint, '');
      assert.equal(data.certPem, null);
      assert.equal(data._links.self.href, `./edge-routers/${id}`);
    });

    it('presents the enrollment: token, JWT and a 180 minute validity', async () => {
      const before = Date.now();
      const id = await create('/edge-routers', { name: 'er-enrollment' });
      const data = await read(`/edge-routers/${id}`);
      assert.match(data.enrollmentToken, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(typeof data.enrollmentJwt, 'string');
      const created = Date.parse(data.enrollmentCreatedAt);
      assert.ok(created >= before - 1000 && created <= Date.now() + 1000);
      assert.equal(Date.parse(data.enrollmentExpiresAt) - created, 180 * MINUTE);
    });

    it('signs the enrollment JWT with the node CA and upstream claims (em erott)', async () => {
      const id = await create('/edge-routers', { name: 'er-jwt' });
      const data = await read(`/edge-routers/${id}`);
      const payload = await verify(data.enrollmentJwt);
      assert.equal(payload.em, 'erott');
      assert.equal(payload.iss, issuer);
      assert.ok(!issuer.endsWith('/'));
      assert.equal(payload.sub, id);
      assert.equal(payload.jti, data.enrollmentToken);
      assert.deepEqual(payload.aud, ['']);
      assert.equal(payload.exp, Math.floor(Date.parse(data.enrollmentExpiresAt) / 1000));
      assert.equal(payload.iat, undefined);
      assert.deepEqual(payload.ctrls, [issuer]);
      const header = decodeProtectedHeader(data.enrollmentJwt);
      assert.equal(header.alg, 'RS256');
      assert.equal(header.kid, createHash('sha1').update(new X509Certificate(node.handle.caPem).raw).digest('hex'));
    });

    it('requires name', async () => {
      assertFieldError(await node.mgmt.post('/edge-routers', { cost: 1 }, token()), 'name');
    });

    for (const cost of [-1, 65536, 1.5, 'high']) {
      it(`rejects cost ${JSON.stringify(cost)}`, async () => {
        assertFieldError(await node.mgmt.post('/edge-routers', { name: `er-cost-${String(cost)}`, cost }, token()), 'cost');
      });
    }

    for (const cost of [0, 65535]) {
      it(`accepts cost ${cost}`, async () => {
        const id = await create('/edge-routers', { name: `er-cost-ok-${cost}`, cost });
        assert.equal((await read(`/edge-routers/${id}`)).cost, cost);
      });
    }

    it('refuses role attributes that look like selectors', async () => {
      assertFieldError(await node.mgmt.post('/edge-routers', { name: 'er-bad-attr', roleAttributes: ['#x'] }, token()), 'roleAttributes');
    });

    it('refuses a duplicate name', async () => {
      await create('/edge-routers', { name: 'er-dup' });
      assertFieldError(await node.mgmt.post('/edge-routers', { name: 'er-dup' }, token()), 'name');
    });

    it('is admin only (401 for a non-admin)', async () => {
      const user = await node.createUser('er-non-admin');
      assert.equal((await node.mgmt.post('/edge-routers', { name: 'er-by-user' }, user.token)).status, 401);
      assert.equal((await node.mgmt.get('/edge-routers', user.token)).status, 401);
    });
  });

  describe('PUT / PATCH / DELETE /edge-routers/:id', () => {
    it('patches the fields present and keeps the enrollment', async () => {
      const id = await create('/edge-routers', { name: 'er-patch', cost: 5, roleAttributes: ['a'] });
      const before = await read(`/edge-routers/${id}`);
      const res = await node.mgmt.patch(`/edge-routers/${id}`, { cost: 7, noTraversal: true }, token());
      assert.equal(res.status, 200, res.text);
      const data = await read(`/edge-routers/${id}`);
      assert.equal(data.cost, 7);
      assert.equal(data.noTraversal, true);
      assert.deepEqual(data.roleAttributes, ['a']);
      assert.equal(data.enrollmentJwt, before.enrollmentJwt);
      assert.equal(data.enrollmentToken, before.enrollmentToken);
    });

    it('rejects a patched cost out of range', async () => {
      const id = await create('/edge-routers', { name: 'er-patch-cost' });
      assertFieldError(await node.mgmt.patch(`/edge-routers/${id}`, { cost: 70000 }, token()), 'cost');
    });

    it('replaces with defaults for omitted fields and keeps server fields', async () => {
      const id = await create('/edge-routers', { name: 'er-put', cost: 9, roleAttributes: ['x'] });
      const before = await read(`/edge-routers/${id}`);
      const res = await node.mgmt.put(`/edge-routers/${id}`, { name: 'er-put-2' }, token());
      assert.equal(res.status, 200, res.text);
      const data = await read(`/edge-routers/${id}`);
      assert.equal(data.name, 'er-put-2');
      assert.equal(data.cost, 0);
      assert.deepEqual(data.roleAttributes, []);
      assert.equal(data.enrollmentToken, before.enrollmentToken);
      assert.equal(data.isVerified, false);
    });

    it('deletes; later reads are 404', async () => {
      const id = await create('/edge-routers', { name: 'er-delete' });
      assert.equal((await node.mgmt.delete(`/edge-routers/${id}`, token())).status, 200);
      assert.equal(await status(`/edge-routers/${id}`), 404);
      assert.equal((await node.mgmt.delete(`/edge-routers/${id}`, token())).status, 404);
    });

    it('lists and filters', async () => {
      await create('/edge-routers', { name: 'er-list-1', cost: 11 });
      const res = await node.mgmt.get(`/edge-routers?filter=${encodeURIComponent('name="er-list-1"')}`, token());
      assert.equal(res.status, 200);
      assert.equal(res.body.data.length, 1);
      assert.equal(res.body.data[0].cost, 11);
      assert.equal(res.body.data[0].isOnline, false);
      assert.equal(typeof res.body.data[0].enrollmentJwt, 'string');
    });
  });

  describe('POST /edge-routers/:id/re-enroll', () => {
    it('replaces the JWT and token, and leaves the router unverified', async () => {
      const id = await create('/edge-routers', { name: 'er-reenroll' });
      const before = await read(`/edge-routers/${id}`);
      const res = await node.mgmt.post(`/edge-routers/${id}/re-enroll`, undefined, token());
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, {});
      const data = await read(`/edge-routers/${id}`);
      assert.notEqual(data.enrollmentToken, before.enrollmentToken);
      assert.notEqual(data.enrollmentJwt, before.enrollmentJwt);
      assert.equal(data.isVerified, false);
      assert.equal(data.fingerprint, '');
      assert.equal(data.certPem, null);
      const payload = await verify(data.enrollmentJwt);
      assert.equal(payload.jti, data.enrollmentToken);
      assert.equal(payload.sub, id);
    });

    it('is 404 for an unknown router', async () => {
      assert.equal((await node.mgmt.post('/edge-routers/nope/re-enroll', undefined, token())).status, 404);
    });

    it('is admin only', async () => {
      const id = await create('/edge-routers', { name: 'er-reenroll-user' });
      const user = await node.createUser('er-reenroll-non-admin');
      assert.equal((await node.mgmt.post(`/edge-routers/${id}/re-enroll`, undefined, user.token)).status, 401);
    });
  });

  describe('tunneler-enabled edge routers', () => {
    const policyPath = (id: string) => `/edge-router-policies/${id}`;

    it('creates the router identity and the system policy with the router id', async () => {
      const id = await create('/edge-routers', { name: 'er-tunneler', isTunnelerEnabled: true });
      const identity = await read(`/identities/${id}`);
      assert.equal(identity.id, id);
      assert.equal(identity.name, 'er-tunneler');
      assert.equal(identity.typeId, 'Router');
      assert.equal(identity.type.id, 'Router');
      assert.equal(identity.isAdmin, false);
      assert.equal(identity.isDefaultAdmin, false);
      assert.equal(identity.authPolicyId, 'default');
      assert.deepEqual(identity.roleAttributes, []);
      const policy = await read(policyPath(id));
      assert.equal(policy.name, `edge-router-${id}-system`);
      assert.equal(policy.isSystem, true);
      assert.equal(policy.semantic, 'AnyOf');
      assert.deepEqual(policy.identityRoles, [`@${id}`]);
      assert.deepEqual(policy.edgeRouterRoles, [`@${id}`]);
    });

    it('lists the system policy with isSystem true', async () => {
      const id = await create('/edge-routers', { name: 'er-tunneler-list', isTunnelerEnabled: true });
      const res = await node.mgmt.get(`/edge-router-policies?filter=${encodeURIComponent(`name="edge-router-${id}-system"`)}`, token());
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.length, 1);
      assert.equal(res.body.data[0].id, id);
      assert.equal(res.body.data[0].isSystem, true);
      const identities = await node.mgmt.get(`/identities?filter=${encodeURIComponent(`typeId="Router" and name="er-tunneler-list"`)}`, token());
      assert.equal(identities.body.data.length, 1);
    });

    it('refuses PATCH and PUT of the system policy: 400 ENTITY_CAN_NOT_BE_UPDATED', async () => {
      const id = await create('/edge-routers', { name: 'er-sys-update', isTunnelerEnabled: true });
      const patched = await node.mgmt.patch(policyPath(id), { name: 'renamed' }, token());
      assert.equal(patched.status, 400, patched.text);
      assert.equal(patched.body.error.code, 'ENTITY_CAN_NOT_BE_UPDATED');
      const put = await node.mgmt.put(policyPath(id), { name: 'renamed', semantic: 'AllOf', identityRoles: [], edgeRouterRoles: [] }, token());
      assert.equal(put.status, 400, put.text);
      assert.equal(put.body.error.code, 'ENTITY_CAN_NOT_BE_UPDATED');
      assert.equal((await read(policyPath(id))).name, `edge-router-${id}-system`);
    });

    it('refuses DELETE of the system policy: 400 ENTITY_CAN_NOT_BE_DELETED', async () => {
      const id = await create('/edge-routers', { name: 'er-sys-delete', isTunnelerEnabled: true });
      const res = await node.mgmt.delete(policyPath(id), token());
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
      assert.equal(res.body.error.cause.message, 'cannot delete system edgeRouterPolicy in a non-system context');
      assert.equal(await status(policyPath(id)), 200);
    });

    it('refuses deleting the router identity while the router exists', async () => {
      const id = await create('/edge-routers', { name: 'er-identity-delete', isTunnelerEnabled: true });
      const res = await node.mgmt.delete(`/identities/${id}`, token());
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
      assert.equal(await status(`/identities/${id}`), 200);
    });

    it('refuses renaming the router identity, but accepts its role attributes', async () => {
      const id = await create('/edge-routers', { name: 'er-identity-rename', isTunnelerEnabled: true });
      const patched = await node.mgmt.patch(`/identities/${id}`, { name: 'other-name' }, token());
      assertFieldError(patched, 'name');
      assert.equal(patched.body.error.cause.reason, 'may not change name of router identities');
      assertFieldError(await node.mgmt.put(`/identities/${id}`, { name: 'other-name', type: 'Router', isAdmin: false }, token()), 'name');
      const attrs = await node.mgmt.patch(`/identities/${id}`, { roleAttributes: ['routers'] }, token());
      assert.equal(attrs.status, 200, attrs.text);
      const identity = await read(`/identities/${id}`);
      assert.equal(identity.name, 'er-identity-rename');
      assert.deepEqual(identity.roleAttributes, ['routers']);
    });

    it('renames the identity with the router', async () => {
      const id = await create('/edge-routers', { name: 'er-rename-1', isTunnelerEnabled: true });
      const res = await node.mgmt.patch(`/edge-routers/${id}`, { name: 'er-rename-2' }, token());
      assert.equal(res.status, 200, res.text);
      assert.equal((await read(`/identities/${id}`)).name, 'er-rename-2');
      assert.equal((await read(policyPath(id))).name, `edge-router-${id}-system`);
    });

    it('removes both when tunneling is turned off, and recreates them when turned on', async () => {
      const id = await create('/edge-routers', { name: 'er-toggle', isTunnelerEnabled: true });
      assert.equal((await node.mgmt.patch(`/edge-routers/${id}`, { isTunnelerEnabled: false }, token())).status, 200);
      assert.equal(await status(`/identities/${id}`), 404);
      assert.equal(await status(policyPath(id)), 404);
      assert.equal((await node.mgmt.patch(`/edge-routers/${id}`, { isTunnelerEnabled: true }, token())).status, 200);
      assert.equal((await read(`/identities/${id}`)).typeId, 'Router');
      assert.equal((await read(policyPath(id))).isSystem, true);
    });

    it('creates both when an existing router turns tunneling on', async () => {
      const id = await create('/edge-routers', { name: 'er-later' });
      assert.equal(await status(`/identities/${id}`), 404);
      assert.equal((await node.mgmt.put(`/edge-routers/${id}`, { name: 'er-later', isTunnelerEnabled: true }, token())).status, 200);
      assert.equal((await read(`/identities/${id}`)).name, 'er-later');
      assert.equal((await read(policyPath(id))).isSystem, true);
    });

    it('removes both when the router is deleted', async () => {
      const id = await create('/edge-routers', { name: 'er-delete-tunneler', isTunnelerEnabled: true });
      const res = await node.mgmt.delete(`/edge-routers/${id}`, token());
      assert.equal(res.status, 200, res.text);
      assert.equal(await status(`/edge-routers/${id}`), 404);
      assert.equal(await status(`/identities/${id}`), 404);
      assert.equal(await status(policyPath(id)), 404);
    });

    it('refuses the whole create when the router identity name is taken', async () => {
      await node.createUser('er-name-taken');
      const res = await node.mgmt.post('/edge-routers', { name: 'er-name-taken', isTunnelerEnabled: true }, token());
      assertFieldError(res, 'name');
      const list = await node.mgmt.get(`/edge-routers?filter=${encodeURIComponent('name="er-name-taken"')}`, token());
      assert.equal(list.body.data.length, 0);
    });
  });

  describe('GET /edge-router-role-attributes', () => {
    it('lists the distinct attributes of edge routers', async () => {
      await create('/edge-routers', { name: 'er-attr-1', roleAttributes: ['zz-ra-one', 'zz-ra-two'] });
      await create('/edge-routers', { name: 'er-attr-2', roleAttributes: ['zz-ra-two'] });
      const res = await node.mgmt.get(`/edge-router-role-attributes?filter=${encodeURIComponent('id contains "zz-ra-"')}`, token());
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, ['zz-ra-one', 'zz-ra-two']);
    });

    it('is admin only', async () => {
      const user = await node.createUser('er-attr-non-admin');
      assert.equal((await node.mgmt.get('/edge-router-role-attributes', user.token)).status, 401);
    });
  });

  describe('/routers and /transit-routers', () => {
    it('creates through /transit-routers and reads through both paths', async () => {
      const id = await create('/transit-routers', { name: 'tr-1', cost: 3 });
      for (const path of ['/routers', '/transit-routers']) {
        const data = await read(`${path}/${id}`);
        assert.equal(data.name, 'tr-1');
        assert.equal(data.cost, 3);
        assert.equal(data.isOnline, false);
        assert.equal(data.isVerified, false);
        assert.equal(data.fingerprint, '');
        assert.equal(data.noTraversal, false);
        assert.equal(data.disabled, false);
      }
    });

    it('gives transit routers a trott enrollment', async () => {
      const id = await create('/routers', { name: 'tr-enroll' });
      const data = await read(`/routers/${id}`);
      const payload = await verify(data.enrollmentJwt);
      assert.equal(payload.em, 'trott');
      assert.equal(payload.sub, id);
      assert.equal(payload.jti, data.enrollmentToken);
      assert.equal(Date.parse(data.enrollmentExpiresAt) - Date.parse(data.enrollmentCreatedAt), 180 * MINUTE);
    });

    it('patches, replaces, lists and deletes through /transit-routers', async () => {
      const id = await create('/transit-routers', { name: 'tr-crud' });
      assert.equal((await node.mgmt.patch(`/transit-routers/${id}`, { cost: 12 }, token())).status, 200);
      assert.equal((await read(`/routers/${id}`)).cost, 12);
      assert.equal((await node.mgmt.put(`/transit-routers/${id}`, { name: 'tr-crud-2', noTraversal: true }, token())).status, 200);
      const replaced = await read(`/transit-routers/${id}`);
      assert.equal(replaced.name, 'tr-crud-2');
      assert.equal(replaced.cost, 0);
      assert.equal(replaced.noTraversal, true);
      const list = await node.mgmt.get(`/transit-routers?filter=${encodeURIComponent('name="tr-crud-2"')}`, token());
      assert.equal(list.body.data.length, 1);
      assert.equal((await node.mgmt.delete(`/transit-routers/${id}`, token())).status, 200);
      assert.equal(await status(`/routers/${id}`), 404);
      assert.equal(await status(`/transit-routers/${id}`), 404);
    });

    it('validates cost on both paths', async () => {
      assertFieldError(await node.mgmt.post('/routers', { name: 'tr-cost-1', cost: 65536 }, token()), 'cost');
      assertFieldError(await node.mgmt.post('/transit-routers', { name: 'tr-cost-2', cost: -1 }, token()), 'cost');
    });

    it('is admin only', async () => {
      const user = await node.createUser('tr-non-admin');
      assert.equal((await node.mgmt.get('/transit-routers', user.token)).status, 401);
      assert.equal((await node.mgmt.post('/routers', { name: 'tr-user' }, user.token)).status, 401);
    });
  });
});
