// Identities: CRUD with every field, type mapping, the default admin, disable / enable,
// identity types and role attributes.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestNode } from '../../support/test-node.js';

const FULL = {
  name: 'full-identity',
  type: 'Device',
  isAdmin: false,
  roleAttributes: ['sales', 'emea'],
  tags: { owner: 'ops', tier: 2, active: true },
  appData: { color: 'blue' },
  defaultHostingCost: 10,
  defaultHostingPrecedence: 'required',
  serviceHostingCosts: { svc1: 5 },
  serviceHostingPrecedences: { svc1: 'failed' },
  externalId: 'ext-full-1',
};

export function identitiesSuite(node: () => TestNode): void {
  const create = async (body: Record<string, unknown>) => {
    const res = await node().mgmt.post('/identities', body, node().adminToken);
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  };
  const read = async (id: string) => (await node().mgmt.get(`/identities/${id}`, node().adminToken)).body.data;

  describe('POST /identities', () => {
    it('stores every field and presents the upstream detail shape', async () => {
      const id = await create(FULL);
      const data = await read(id);
      for (const key of ['name', 'isAdmin', 'tags', 'appData', 'defaultHostingCost', 'defaultHostingPrecedence', 'serviceHostingCosts', 'serviceHostingPrecedences', 'externalId']) {
        assert.deepEqual(data[key], (FULL as Record<string, unknown>)[key], key);
      }
      assert.deepEqual(data.roleAttributes, ['sales', 'emea']);
      assert.equal(data.typeId, 'Default');
      assert.equal(data.type.id, 'Default');
      assert.equal(data.type.entity, 'identity-type');
      assert.equal(data.isDefaultAdmin, false);
      assert.equal(data.authPolicyId, 'default');
      assert.equal(data.authPolicy.name, 'Default');
      assert.equal(data.disabled, false);
      assert.equal(data.hasApiSession, false);
      assert.deepEqual(data.envInfo, {});
      assert.deepEqual(data.sdkInfo, {});
      assert.ok(Date.parse(data.createdAt) > 0);
      assert.equal(data.createdAt, data.updatedAt);
    });

    it('ignores the requested type: always Default', async () => {
      const id = await create({ name: 'typed-router', type: 'Router', isAdmin: false });
      assert.equal((await read(id)).typeId, 'Default');
    });

    for (const field of ['name', 'type', 'isAdmin']) {
      it(`requires ${field}`, async () => {
        const body: Record<string, unknown> = { name: `missing-${field}`, type: 'User', isAdmin: false };
        delete body[field];
        const res = await node().mgmt.post('/identities', body, node().adminToken);
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
        assert.equal(res.body.error.cause.field, field);
      });
    }

    for (const [field, value] of [
      ['isAdmin', 'yes'],
      ['roleAttributes', 'not-a-list'],
      ['defaultHostingCost', 70000],
      ['defaultHostingPrecedence', 'sometimes'],
      ['type', 'Robot'],
      ['tags', { nested: { no: 1 } }],
    ] as const) {
      it(`rejects a bad ${field}`, async () => {
        const body = { name: `bad-${field}`, type: 'User', isAdmin: false, [field]: value };
        const res = await node().mgmt.post('/identities', body, node().adminToken);
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
        assert.ok(String(res.body.error.cause.field).startsWith(field), res.body.error.cause.field);
      });
    }

    it('rejects a duplicate name with "name must be unique"', async () => {
      await create({ name: 'unique-name', type: 'User', isAdmin: false });
      const res = await node().mgmt.post('/identities', { name: 'unique-name', type: 'User', isAdmin: false }, node().adminToken);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'name');
      assert.equal(res.body.error.cause.reason, 'name must be unique');
    });

    it('rejects role attributes that start with # or @', async () => {
      const res = await node().mgmt.post('/identities', { name: 'hash-attr', type: 'User', isAdmin: false, roleAttributes: ['#x'] }, node().adminToken);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'roleAttributes');
    });

    it('rejects an unknown auth policy', async () => {
      const res = await node().mgmt.post('/identities', { name: 'bad-policy', type: 'User', isAdmin: false, authPolicyId: 'no-such-policy' }, node().adminToken);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'authPolicyId');
    });
  });

  describe('PUT and PATCH /identities/:id', () => {
    it('PATCH keeps fields the body omits', async () => {
      const id = await create({ ...FULL, name: 'patch-keeps', externalId: 'ext-patch' });
      const res = await node().mgmt.patch(`/identities/${id}`, { name: 'patch-renamed' }, node().adminToken);
      assert.equal(res.status, 200);
      const data = await read(id);
      assert.equal(data.name, 'patch-renamed');
      assert.deepEqual(data.roleAttributes, ['sales', 'emea']);
      assert.deepEqual(data.tags, FULL.tags);
      assert.ok(Date.parse(data.updatedAt) >= Date.parse(data.createdAt));
    });

    it('a list page shows each identity as GET does, and the change after a PATCH', async () => {
      const id = await create({ ...FULL, name: 'listed-as-get', externalId: 'ext-listed-as-get', roleAttributes: ['listed-as-get'] });
      const list = async () => (await node().mgmt.get(`/identities?filter=${encodeURIComponent('anyOf(roleAttributes) = "listed-as-get"')}`, node().adminToken)).body;
      // Rendered for the GET first, then for the list (and the other way round below).
      assert.deepEqual((await list()).data, [await read(id)]);
      assert.equal((await list()).meta.pagination.totalCount, 1);
      const res = await node().mgmt.patch(`/identities/${id}`, { tags: { listed: 'again' } }, node().adminToken);
      assert.equal(res.status, 200);
      const after = (await list()).data;
      assert.deepEqual(after[0].tags, { listed: 'again' });
      assert.deepEqual(after, [await read(id)]);
    });

    it('PUT replaces: omitted optional fields return to their defaults', async () => {
      const id = await create({ ...FULL, name: 'put-replaces', externalId: 'ext-put' });
      const res = await node().mgmt.put(`/identities/${id}`, { name: 'put-replaced', type: 'User', isAdmin: true }, node().adminToken);
      assert.equal(res.status, 200);
      const data = await read(id);
      assert.equal(data.isAdmin, true);
      assert.deepEqual(data.roleAttributes, []);
      assert.deepEqual(data.tags, {});
      assert.equal(data.externalId, null);
    });

    it('PUT requires name, type and isAdmin', async () => {
      const id = await create({ name: 'put-required', type: 'User', isAdmin: false });
      const res = await node().mgmt.put(`/identities/${id}`, { name: 'x-put' }, node().adminToken);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
    });

    it('never lets isDefaultAdmin change (200, value unchanged)', async () => {
      const id = await create({ name: 'not-default-admin', type: 'User', isAdmin: false });
      const res = await node().mgmt.patch(`/identities/${id}`, { isDefaultAdmin: true }, node().adminToken);
      assert.equal(res.status, 200);
      assert.equal((await read(id)).isDefaultAdmin, false);
    });

    it('refuses a change of type to Router', async () => {
      const id = await create({ name: 'to-router', type: 'User', isAdmin: false });
      const res = await node().mgmt.patch(`/identities/${id}`, { type: 'Router' }, node().adminToken);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'type');
    });

    it('maps an empty authPolicyId to default', async () => {
      const id = await create({ name: 'empty-policy', type: 'User', isAdmin: false });
      await node().mgmt.patch(`/identities/${id}`, { authPolicyId: '' }, node().adminToken);
      assert.equal((await read(id)).authPolicyId, 'default');
    });

    it('answers PATCH of an unknown id with 404', async () => {
      const res = await node().mgmt.patch('/identities/nope-nope', { name: 'x' }, node().adminToken);
      assert.equal(res.status, 404);
    });
  });

  describe('DELETE /identities/:id', () => {
    it('deletes an identity with its authenticators and sessions', async () => {
      const user = await node().createUser('to-delete');
      const res = await node().mgmt.delete(`/identities/${user.id}`, node().adminToken);
      assert.equal(res.status, 200);
      assert.equal((await node().mgmt.get(`/identities/${user.id}`, node().adminToken)).status, 404);
      assert.equal((await node().mgmt.get('/current-identity', user.token)).status, 401);
      const auths = await node().mgmt.get(`/authenticators?filter=${encodeURIComponent(`identityId = "${user.id}"`)}`, node().adminToken);
      assert.equal(auths.body.meta.pagination.totalCount, 0);
    });

    it('protects the default admin: 400 ENTITY_CAN_NOT_BE_DELETED', async () => {
      const list = await node().mgmt.get('/identities?filter=isDefaultAdmin%3Dtrue', node().adminToken);
      const res = await node().mgmt.delete(`/identities/${list.body.data[0].id}`, node().adminToken);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
    });

    it('answers an unknown id with 404', async () => {
      assert.equal((await node().mgmt.delete('/identities/never-was', node().adminToken)).status, 404);
    });
  });

  describe('disable and enable', () => {
    it('disables for a duration, ends sessions, refuses login, and enable restores it', async () => {
      const user = await node().createUser('disable-me', { password: 'disable-me-pw' });
      const res = await node().mgmt.post(`/identities/${user.id}/disable`, { durationMinutes: 5 }, node().adminToken);
      assert.equal(res.status, 200);
      const data = await read(user.id);
      assert.equal(data.disabled, true);
      assert.ok(Date.parse(data.disabledUntil) - Date.parse(data.disabledAt) === 5 * 60_000);
      assert.equal((await node().mgmt.get('/current-identity', user.token)).status, 401);
      const login = await node().mgmt.post('/authenticate?method=password', { username: user.username, password: 'disable-me-pw' });
      assert.equal(login.status, 401);
      assert.equal(login.body.error.code, 'INVALID_AUTH');
      assert.equal((await node().mgmt.post(`/identities/${user.id}/enable`, {}, node().adminToken)).status, 200);
      const enabled = await read(user.id);
      assert.equal(enabled.disabled, false);
      assert.equal(enabled.disabledAt, null);
      await node().mgmt.login(user.username, 'disable-me-pw');
    });

    it('durationMinutes 0 disables until enabled', async () => {
      const user = await node().createUser('disable-forever');
      await node().mgmt.post(`/identities/${user.id}/disable`, { durationMinutes: 0 }, node().adminToken);
      const data = await read(user.id);
      assert.equal(data.disabled, true);
      assert.equal(data.disabledUntil, null);
    });

    it('requires an integer durationMinutes', async () => {
      const user = await node().createUser('disable-bad');
      const res = await node().mgmt.post(`/identities/${user.id}/disable`, { durationMinutes: 'soon' }, node().adminToken);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'durationMinutes');
    });

    it('answers an unknown identity with 404', async () => {
      const res = await node().mgmt.post('/identities/ghost/disable', { durationMinutes: 1 }, node().adminToken);
      assert.equal(res.status, 404);
    });
  });

  describe('identity types and role attributes', () => {
    it('lists the two stored identity types', async () => {
      const res = await node().mgmt.get('/identity-types', node().adminToken);
      assert.deepEqual(res.body.data.map((t: { id: string }) => t.id).sort(), ['Default', 'Router']);
      const one = await node().mgmt.get('/identity-types/Router', node().adminToken);
      assert.equal(one.body.data.name, 'Router');
    });

    it('lists distinct role attributes, filtered by id', async () => {
      await create({ name: 'attr-a', type: 'User', isAdmin: false, roleAttributes: ['zz-attr-one', 'zz-attr-two'] });
      await create({ name: 'attr-b', type: 'User', isAdmin: false, roleAttributes: ['zz-attr-two'] });
      const res = await node().mgmt.get(`/identity-role-attributes?filter=${encodeURIComponent('id contains "zz-attr"')}`, node().adminToken);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, ['zz-attr-one', 'zz-attr-two']);
    });
  });
}
