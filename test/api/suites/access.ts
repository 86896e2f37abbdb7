// The access model through every related list: a policy matrix of identities, services and
// edge routers with #attr / @id / #all selectors under AllOf and AnyOf, re-checked after
// updates, attribute changes and deletes. After each step the access index must equal a
// from-scratch evaluation.

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { checkAccessIndex } from '../../../src/store/access-check.js';
import type { TestNode } from '../../support/test-node.js';

export function accessSuite(node: () => TestNode): void {
  describe('policy matrix', () => {
    const ids: Record<string, string> = {};
    const api = () => node().mgmt;
    const token = () => node().adminToken;
    const create = async (path: string, body: Record<string, unknown>) => {
      const res = await api().post(path, body, token());
      assert.equal(res.status, 201, `${path} ${res.text}`);
      return res.body.data.id as string;
    };
    const names = async (path: string) => {
      const res = await api().get(`${path}${path.includes('?') ? '&' : '?'}limit=-1`, token());
      assert.equal(res.status, 200, `${path} ${res.text}`);
      return (res.body.data as { name: string }[]).map((d) => d.name).filter((n) => n.startsWith('m-')).sort();
    };
    const consistent = async () => assert.deepEqual(await checkAccessIndex(node().handle.replica.kv), []);

    before(async () => {
      ids.i1 = await create('/identities', { name: 'm-i1', type: 'User', isAdmin: false, roleAttributes: ['eng', 'us'] });
      ids.i2 = await create('/identities', { name: 'm-i2', type: 'User', isAdmin: false, roleAttributes: ['eng'] });
      ids.i3 = await create('/identities', { name: 'm-i3', type: 'User', isAdmin: false, roleAttributes: ['sales'] });
      ids.i4 = await create('/identities', { name: 'm-i4', type: 'User', isAdmin: false });
      ids.s1 = await create('/services', { name: 'm-s1', encryptionRequired: true, roleAttributes: ['web'] });
      ids.s2 = await create('/services', { name: 'm-s2', encryptionRequired: true, roleAttributes: ['web', 'internal'] });
      ids.s3 = await create('/services', { name: 'm-s3', encryptionRequired: false, roleAttributes: ['db'] });
      ids.r1 = await create('/edge-routers', { name: 'm-r1', roleAttributes: ['us'] });
      ids.r2 = await create('/edge-routers', { name: 'm-r2', roleAttributes: ['eu'] });
      ids.r3 = await create('/edge-routers', { name: 'm-r3' });
      ids.dial1 = await create('/service-policies', { name: 'm-dial1', type: 'Dial', semantic: 'AllOf', identityRoles: ['#us', '#eng'], serviceRoles: ['#web'] });
      ids.dial2 = await create('/service-policies', { name: 'm-dial2', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#sales', `@${ids.i4}`], serviceRoles: [`@${ids.s3}`] });
      ids.bind1 = await create('/service-policies', { name: 'm-bind1', type: 'Bind', semantic: 'AllOf', identityRoles: [`@${ids.i2}`], serviceRoles: ['#all'] });
      ids.e1 = await create('/edge-router-policies', { name: 'm-e1', semantic: 'AnyOf', identityRoles: ['#eng'], edgeRouterRoles: ['#us', '#eu'] });
      ids.e2 = await create('/edge-router-policies', { name: 'm-e2', semantic: 'AllOf', identityRoles: ['#all'], edgeRouterRoles: [`@${ids.r3}`] });
      ids.p1 = await create('/service-edge-router-policies', { name: 'm-p1', semantic: 'AllOf', serviceRoles: ['#all'], edgeRouterRoles: ['#us'] });
    });

    it('answers identity → services, with policyType', async () => {
      assert.deepEqual(await names(`/identities/${ids.i1}/services`), ['m-s1', 'm-s2']);
      assert.deepEqual(await names(`/identities/${ids.i1}/services?policyType=bind`), []);
      assert.deepEqual(await names(`/identities/${ids.i2}/services?policyType=bind`), ['m-s1', 'm-s2', 'm-s3']);
      assert.deepEqual(await names(`/identities/${ids.i2}/services?policyType=dial`), []);
      assert.deepEqual(await names(`/identities/${ids.i3}/services`), ['m-s3']);
      assert.deepEqual(await names(`/identities/${ids.i4}/services`), ['m-s3']);
      await consistent();
    });

    it('answers service → identities and the policies in both directions', async () => {
      assert.deepEqual(await names(`/services/${ids.s3}/identities`), ['m-i2', 'm-i3', 'm-i4']);
      assert.deepEqual(await names(`/services/${ids.s1}/service-policies`), ['m-bind1', 'm-dial1']);
      assert.deepEqual(await names(`/identities/${ids.i1}/service-policies`), ['m-dial1']);
      assert.deepEqual(await names(`/service-policies/${ids.dial1}/identities`), ['m-i1']);
      assert.deepEqual(await names(`/service-policies/${ids.dial1}/services`), ['m-s1', 'm-s2']);
      assert.deepEqual(await names(`/services/${ids.s1}/service-edge-router-policies`), ['m-p1']);
    });

    it('answers edge router questions through ERPs and SERPs', async () => {
      assert.deepEqual(await names(`/identities/${ids.i1}/edge-routers`), ['m-r1', 'm-r2', 'm-r3']);
      assert.deepEqual(await names(`/identities/${ids.i3}/edge-routers`), ['m-r3']);
      assert.deepEqual(await names(`/identities/${ids.i1}/edge-router-policies`), ['m-e1', 'm-e2']);
      assert.deepEqual(await names(`/services/${ids.s1}/edge-routers`), ['m-r1']);
      assert.deepEqual(await names(`/edge-routers/${ids.r3}/identities`), ['m-i1', 'm-i2', 'm-i3', 'm-i4']);
      assert.deepEqual(await names(`/edge-routers/${ids.r1}/services`), ['m-s1', 'm-s2', 'm-s3']);
      assert.deepEqual(await names(`/edge-routers/${ids.r1}/edge-router-policies`), ['m-e1']);
      assert.deepEqual(await names(`/edge-routers/${ids.r1}/service-edge-router-policies`), ['m-p1']);
      assert.deepEqual(await names(`/edge-router-policies/${ids.e1}/identities`), ['m-i1', 'm-i2']);
      assert.deepEqual(await names(`/edge-router-policies/${ids.e1}/edge-routers`), ['m-r1', 'm-r2']);
      assert.deepEqual(await names(`/service-edge-router-policies/${ids.p1}/services`), ['m-s1', 'm-s2', 'm-s3']);
      assert.deepEqual(await names(`/service-edge-router-policies/${ids.p1}/edge-routers`), ['m-r1']);
    });

    it('gives policy advice with router counts and common routers', async () => {
      const res = await api().get(`/identities/${ids.i1}/policy-advice/${ids.s1}`, token());
      assert.equal(res.status, 200);
      const advice = res.body.data;
      assert.equal(advice.isDialAllowed, true);
      assert.equal(advice.isBindAllowed, false);
      assert.equal(advice.identityRouterCount, 3);
      assert.equal(advice.serviceRouterCount, 1);
      assert.deepEqual(advice.commonRouters.map((r: { name: string }) => r.name), ['m-r1']);
      assert.equal(advice.commonRouters[0].isOnline, false);
      const none = await api().get(`/identities/${ids.i3}/policy-advice/${ids.s1}`, token());
      assert.equal(none.body.data.isDialAllowed, false);
      assert.equal((await api().get(`/identities/${ids.i1}/policy-advice/nope`, token())).status, 404);
    });

    it('stores roles sorted and shows @id as @name in *RolesDisplay', async () => {
      const res = await api().get(`/service-policies/${ids.dial1}`, token());
      assert.deepEqual(res.body.data.identityRoles, ['#eng', '#us']);
      const dial2 = (await api().get(`/service-policies/${ids.dial2}`, token())).body.data;
      assert.deepEqual(dial2.identityRolesDisplay, [
        { role: '#sales', name: '#sales' },
        { role: `@${ids.i4}`, name: '@m-i4' },
      ]);
      assert.deepEqual(dial2.serviceRolesDisplay, [{ role: `@${ids.s3}`, name: '@m-s3' }]);
      assert.deepEqual(dial2.postureCheckRolesDisplay, []);
    });

    it('shows service permissions Bind before Dial, Invalid when none', async () => {
      const user = await node().createUser('m-perm-user');
      await api().patch(`/identities/${user.id}`, { roleAttributes: ['eng', 'us'] }, token());
      await create('/service-policies', { name: 'm-bind-perm', type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${ids.s1}`] });
      const s1 = await api().get(`/services/${ids.s1}`, user.token);
      assert.equal(s1.status, 401, 'non-admins do not read the management service list');
      const asAdmin = await api().get(`/services/${ids.s1}`, token());
      assert.deepEqual(asAdmin.body.data.permissions, ['Invalid']);
      const granted = await node().createUser('m-admin-perm', { isAdmin: true });
      await api().patch(`/identities/${granted.id}`, { roleAttributes: ['eng', 'us'] }, token());
      await create('/service-policies', { name: 'm-bind-perm2', type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${granted.id}`], serviceRoles: [`@${ids.s1}`] });
      const both = await api().get(`/services/${ids.s1}`, granted.token);
      assert.deepEqual(both.body.data.permissions, ['Bind', 'Dial']);
      await api().delete(`/identities/${user.id}`, token());
      await api().delete(`/identities/${granted.id}`, token());
    });

    it('follows attribute changes, semantic and type changes', async () => {
      await api().patch(`/identities/${ids.i2}`, { roleAttributes: ['eng', 'us'] }, token());
      assert.deepEqual(await names(`/identities/${ids.i2}/services?policyType=dial`), ['m-s1', 'm-s2']);
      await api().patch(`/services/${ids.s2}`, { roleAttributes: ['internal'] }, token());
      assert.deepEqual(await names(`/service-policies/${ids.dial1}/services`), ['m-s1']);
      await api().patch(`/service-policies/${ids.dial1}`, { semantic: 'AnyOf', identityRoles: ['#sales', '#us'] }, token());
      assert.deepEqual(await names(`/service-policies/${ids.dial1}/identities`), ['m-i1', 'm-i2', 'm-i3']);
      await api().patch(`/service-policies/${ids.dial2}`, { type: 'Bind' }, token());
      assert.deepEqual(await names(`/identities/${ids.i4}/services?policyType=bind`), ['m-s3']);
      assert.deepEqual(await names(`/identities/${ids.i4}/services?policyType=dial`), []);
      await api().put(`/edge-router-policies/${ids.e2}`, { name: 'm-e2', semantic: 'AllOf', identityRoles: ['#eng'], edgeRouterRoles: ['#all'] }, token());
      assert.deepEqual(await names(`/identities/${ids.i3}/edge-routers`), []);
      assert.deepEqual(await names(`/edge-router-policies/${ids.e2}/edge-routers`), ['m-r1', 'm-r2', 'm-r3']);
      await consistent();
    });

    it('removes a deleted entity from every policy, with no 409', async () => {
      assert.equal((await api().delete(`/services/${ids.s3}`, token())).status, 200);
      const dial2 = (await api().get(`/service-policies/${ids.dial2}`, token())).body.data;
      assert.deepEqual(dial2.serviceRoles, []);
      assert.equal((await api().delete(`/identities/${ids.i4}`, token())).status, 200);
      const after = (await api().get(`/service-policies/${ids.dial2}`, token())).body.data;
      assert.deepEqual(after.identityRoles, ['#sales']);
      // i3 still reaches s1 through m-dial1 (AnyOf #sales, #us since the previous step)
      assert.deepEqual(await names(`/identities/${ids.i3}/services`), ['m-s1']);
      assert.equal((await api().delete(`/edge-routers/${ids.r1}`, token())).status, 200);
      assert.deepEqual(await names(`/services/${ids.s1}/edge-routers`), []);
      assert.equal((await api().delete(`/service-policies/${ids.bind1}`, token())).status, 200);
      assert.deepEqual(await names(`/identities/${ids.i2}/services?policyType=bind`), []);
      await consistent();
    });

    it('answers related lists of unknown parents with 404', async () => {
      assert.equal((await api().get('/identities/nope/services', token())).status, 404);
      assert.equal((await api().get('/service-policies/nope/identities', token())).status, 404);
    });
  });

  describe('policy validation', () => {
    const post = (path: string, body: Record<string, unknown>) => node().mgmt.post(path, body, node().adminToken);
    const base = { name: 'v-policy', type: 'Dial', semantic: 'AllOf' };

    it('requires entries to start with # or @', async () => {
      const res = await post('/service-policies', { ...base, identityRoles: ['eng'] });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'identityRoles');
      assert.match(res.body.error.cause.reason, /prefixed with #/);
    });

    it('requires #all to stand alone', async () => {
      const res = await post('/service-policies', { ...base, serviceRoles: ['#all', '#web'] });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'serviceRoles');
    });

    it('refuses unknown @ids, naming them', async () => {
      const res = await post('/edge-router-policies', { name: 'v-erp', semantic: 'AllOf', edgeRouterRoles: ['@no-such-router'] });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'edgeRouterRoles');
      assert.deepEqual(res.body.error.cause.value, ['no-such-router']);
      assert.match(res.body.error.cause.reason, /no edge-router found with the given ids/);
    });

    for (const field of ['semantic', 'type', 'name']) {
      it(`requires ${field} on create`, async () => {
        const body: Record<string, unknown> = { ...base };
        delete body[field];
        const res = await post('/service-policies', body);
        assert.equal(res.status, 400);
        assert.equal(res.body.error.cause.field, field);
      });
    }

    it('refuses a role attribute that looks like a selector', async () => {
      const res = await post('/services', { name: 'v-svc', encryptionRequired: true, roleAttributes: ['@x'] });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'roleAttributes');
    });

    it('filters role-aware lists with roleFilter and roleSemantic', async () => {
      const a = await post('/identities', { name: 'rf-a', type: 'User', isAdmin: false, roleAttributes: ['rf-x', 'rf-y'] });
      await post('/identities', { name: 'rf-b', type: 'User', isAdmin: false, roleAttributes: ['rf-y'] });
      const all = await node().mgmt.get('/identities?roleFilter=%23rf-x&roleFilter=%23rf-y&roleSemantic=AllOf', node().adminToken);
      assert.deepEqual(all.body.data.map((d: { name: string }) => d.name), ['rf-a']);
      const any = await node().mgmt.get('/identities?roleFilter=%23rf-x&roleFilter=%23rf-y&roleSemantic=AnyOf&limit=-1', node().adminToken);
      assert.deepEqual(any.body.data.map((d: { name: string }) => d.name).sort(), ['rf-a', 'rf-b']);
      const byId = await node().mgmt.get(`/identities?roleFilter=%40${a.body.data.id}`, node().adminToken);
      assert.deepEqual(byId.body.data.map((d: { name: string }) => d.name), ['rf-a']);
    });

    it('lists service role attributes', async () => {
      await post('/services', { name: 'v-svc-attrs', encryptionRequired: true, roleAttributes: ['zz-svc-attr'] });
      const res = await node().mgmt.get(`/service-role-attributes?filter=${encodeURIComponent('id = "zz-svc-attr"')}`, node().adminToken);
      assert.deepEqual(res.body.data, ['zz-svc-attr']);
    });
  });
}
