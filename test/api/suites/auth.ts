// Authentication, API sessions, the current identity and admin-only access.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN, type TestNode } from '../../support/test-node.js';

export function authSuite(node: () => TestNode): void {
  describe('POST /authenticate', () => {
    it('returns the current API session and the zt-session header', async () => {
      const res = await node().mgmt.post('/authenticate?method=password', ADMIN);
      assert.equal(res.status, 200);
      const token = res.headers.get('zt-session');
      assert.match(token ?? '', /^[0-9a-f-]{36}$/);
      const session = res.body.data;
      assert.equal(session.token, token);
      assert.equal(session.expirationSeconds, 1800);
      assert.ok(Date.parse(session.expiresAt) > Date.now() + 29 * 60_000);
      assert.equal(session.identity.name, 'Default Admin');
      assert.equal(session.isMfaRequired, false);
      assert.deepEqual(session.authQueries, []);
    });

    it('refuses a wrong password with 401 INVALID_AUTH', async () => {
      const res = await node().mgmt.post('/authenticate?method=password', { username: ADMIN.username, password: 'wrong-password' });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'INVALID_AUTH');
    });

    it('refuses an unknown username with 401 INVALID_AUTH', async () => {
      const res = await node().mgmt.post('/authenticate?method=password', { username: 'nobody-here', password: 'whatever1' });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'INVALID_AUTH');
    });

    for (const [field, value, reason] of [
      ['username', 'abc', /at least 4/],
      ['username', 'u'.repeat(101), /at most 100/],
      ['password', 'abcd', /at least 5/],
      ['password', 'p'.repeat(101), /at most 100/],
    ] as const) {
      it(`validates ${field} length (${value.length} chars)`, async () => {
        const body = { username: 'valid-user', password: 'valid-password', [field]: value };
        const res = await node().mgmt.post('/authenticate?method=password', body);
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
        assert.equal(res.body.error.cause.field, field);
        assert.match(res.body.error.cause.reason, reason);
        if (field === 'password') assert.notEqual(res.body.error.cause.value, value);
      });
    }

    it('requires a username', async () => {
      const res = await node().mgmt.post('/authenticate?method=password', { password: 'valid-password' });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'username');
    });

    it('answers an unknown method with 400 INVALID_AUTH_METHOD', async () => {
      const res = await node().mgmt.post('/authenticate?method=carrier-pigeon', ADMIN);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'INVALID_AUTH_METHOD');
    });

    it('works on the client API too', async () => {
      const token = await node().client.login(ADMIN.username, ADMIN.password);
      const me = await node().client.get('/current-identity', token);
      assert.equal(me.status, 200);
      assert.equal(me.body.data.isDefaultAdmin, true);
    });
  });

  describe('current API session', () => {
    it('GET shows the session with its sliding expiry', async () => {
      const token = await node().mgmt.login(ADMIN.username, ADMIN.password);
      const res = await node().mgmt.get('/current-api-session', token);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.token, token);
      assert.equal(res.body.data.expirationSeconds, 1800);
      assert.ok(Date.parse(res.body.data.lastActivityAt) <= Date.now());
    });

    it('DELETE logs out: the token stops working', async () => {
      const token = await node().mgmt.login(ADMIN.username, ADMIN.password);
      const out = await node().mgmt.delete('/current-api-session', token);
      assert.equal(out.status, 200);
      const after = await node().mgmt.get('/current-identity', token);
      assert.equal(after.status, 401);
    });

    it('GET /current-identity shows the caller', async () => {
      const user = await node().createUser('current-identity-user');
      const res = await node().mgmt.get('/current-identity', user.token);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.id, user.id);
      assert.equal(res.body.data.hasApiSession, true);
      assert.equal(res.body.data.authenticators.updb.username, user.username);
    });
  });

  describe('/api-sessions', () => {
    it('lists, gets and deletes sessions (admin)', async () => {
      const { mgmt, adminToken } = node();
      const user = await node().createUser('session-list-user');
      const filter = encodeURIComponent(`identityId = "${user.id}"`);
      const list = await mgmt.get(`/api-sessions?filter=${filter}`, adminToken);
      assert.equal(list.status, 200);
      assert.equal(list.body.data.length, 1);
      const session = list.body.data[0];
      assert.equal(session.identity.id, user.id);
      assert.equal(session.tokenHash, undefined);
      const one = await mgmt.get(`/api-sessions/${session.id}`, adminToken);
      assert.equal(one.body.data.id, session.id);
      // Used a moment before the delete (the gateway reuses a session resolved under a second
      // ago), and still refused right after it.
      assert.equal((await mgmt.get('/current-identity', user.token)).status, 200);
      const del = await mgmt.delete(`/api-sessions/${session.id}`, adminToken);
      assert.equal(del.status, 200);
      assert.equal((await mgmt.get('/current-identity', user.token)).status, 401);
    });

    it('shows hasApiSession as each login and logout leaves it, though the entity was just read', async () => {
      const { mgmt, adminToken } = node();
      const user = await node().createUser('has-session-user');
      const hasSession = async () => (await mgmt.get(`/identities/${user.id}`, adminToken)).body.data.hasApiSession;
      assert.equal(await hasSession(), true);
      assert.equal((await mgmt.delete('/current-api-session', user.token)).status, 200);
      assert.equal(await hasSession(), false);
      // A login changes only its own identity's rendering; this one was rendered a moment ago.
      const token = await mgmt.login(user.username, 'user-password-1');
      assert.equal(await hasSession(), true);
      // Another identity's login leaves this session, resolved a moment ago, as it was.
      assert.equal((await mgmt.get('/current-identity', token)).status, 200);
      await node().createUser('has-session-other');
      assert.equal((await mgmt.get('/current-identity', token)).body.data.id, user.id);
    });

    it('shows a session\'s recorded activity after a flush, though the session was just read', async () => {
      const { mgmt, adminToken, handle } = node();
      const user = await node().createUser('activity-flush-user');
      const filter = encodeURIComponent(`identityId = "${user.id}"`);
      const [session] = (await mgmt.get(`/api-sessions?filter=${filter}`, adminToken)).body.data;
      const recorded = async () => (await mgmt.get(`/api-sessions/${session.id}`, adminToken)).body.data.cachedLastActivityAt;
      const before = await recorded();
      const identity = (await mgmt.get(`/identities/${user.id}`, adminToken)).body.data;
      // What the session keeper proposes every 30 s for sessions used since its last flush.
      const later = new Date(Date.parse(before) + 60_000).toISOString();
      await handle.proposer.propose([{ op: 'set', kind: 'api-sessions', id: session.id, fields: { lastActivityAt: later }, ifExists: true }]);
      assert.equal(await recorded(), later);
      assert.deepEqual((await mgmt.get(`/identities/${user.id}`, adminToken)).body.data, identity);
      assert.equal((await mgmt.get('/current-identity', user.token)).body.data.id, user.id);
    });

    it('lists an identity sessions under /identities/{id}/api-sessions', async () => {
      const user = await node().createUser('sub-list-user');
      const res = await node().mgmt.get(`/identities/${user.id}/api-sessions`, node().adminToken);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.length, 1);
      assert.equal((await node().mgmt.get('/identities/missing/api-sessions', node().adminToken)).status, 404);
    });
  });

  describe('admin-only operations', () => {
    it('answers a non-admin with 401 UNAUTHORIZED, as upstream does', async () => {
      const user = await node().createUser('plain-user');
      for (const [method, path] of [
        ['GET', '/identities'],
        ['POST', '/identities'],
        ['GET', '/api-sessions'],
        ['GET', '/authenticators'],
        ['GET', '/summary'],
        ['POST', `/identities/${user.id}/disable`],
      ]) {
        const res = await node().mgmt.request(method, path, { token: user.token, body: method === 'POST' ? {} : undefined });
        assert.equal(res.status, 401, `${method} ${path}`);
        assert.equal(res.body.error.code, 'UNAUTHORIZED');
      }
    });

    it('refuses identity types to a non-admin (401, as upstream)', async () => {
      const user = await node().createUser('types-reader');
      const res = await node().mgmt.get('/identity-types', user.token);
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
    });

    it('grants admin rights to an identity with isAdmin', async () => {
      const admin2 = await node().createUser('second-admin', { isAdmin: true });
      const res = await node().mgmt.get('/identities', admin2.token);
      assert.equal(res.status, 200);
    });
  });

  describe('/authenticators', () => {
    it('creates a updb authenticator that can log in, never showing the password', async () => {
      const { mgmt, adminToken } = node();
      const created = await mgmt.post('/identities', { name: 'auth-owner', type: 'User', isAdmin: false }, adminToken);
      const id = created.body.data.id;
      const auth = await mgmt.post('/authenticators', { method: 'updb', identityId: id, username: 'auth-owner', password: 'pw-auth-owner' }, adminToken);
      assert.equal(auth.status, 201);
      const detail = await mgmt.get(`/authenticators/${auth.body.data.id}`, adminToken);
      assert.equal(detail.body.data.method, 'updb');
      assert.equal(detail.body.data.username, 'auth-owner');
      assert.equal(detail.body.data.identity.id, id);
      assert.ok(!JSON.stringify(detail.body).includes('pw-auth-owner'));
      assert.equal(detail.body.data.passwordHash, undefined);
      assert.equal(detail.body.data.salt, undefined);
      await mgmt.login('auth-owner', 'pw-auth-owner');
      const list = await mgmt.get(`/identities/${id}/authenticators`, adminToken);
      assert.equal(list.body.data.length, 1);
    });

    it('allows one updb authenticator per identity (409 beyond)', async () => {
      const user = await node().createUser('one-updb');
      const res = await node().mgmt.post('/authenticators', { method: 'updb', identityId: user.id, username: 'one-updb-2', password: 'another-pw' }, node().adminToken);
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'MAX_AUTHENTICATOR_METHODS_REACHED');
    });

    it('changes a password with PATCH; the old one stops working', async () => {
      const user = await node().createUser('pw-change', { password: 'first-password' });
      const list = await node().mgmt.get(`/identities/${user.id}/authenticators`, node().adminToken);
      const authId = list.body.data[0].id;
      const res = await node().mgmt.patch(`/authenticators/${authId}`, { password: 'second-password' }, node().adminToken);
      assert.equal(res.status, 200);
      const old = await node().mgmt.post('/authenticate?method=password', { username: user.username, password: 'first-password' });
      assert.equal(old.status, 401);
      await node().mgmt.login(user.username, 'second-password');
    });

    it('requires a known identity', async () => {
      const res = await node().mgmt.post('/authenticators', { method: 'updb', identityId: 'nope', username: 'nobody1', password: 'whatever1' }, node().adminToken);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'identityId');
    });

    it('deleting the authenticator ends password login', async () => {
      const user = await node().createUser('auth-delete');
      const list = await node().mgmt.get(`/identities/${user.id}/authenticators`, node().adminToken);
      await node().mgmt.delete(`/authenticators/${list.body.data[0].id}`, node().adminToken);
      const res = await node().mgmt.post('/authenticate?method=password', { username: user.username, password: 'user-password-1' });
      assert.equal(res.status, 401);
    });
  });
}
