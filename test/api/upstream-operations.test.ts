// Upstream operations consoles and SDKs call: client-API signers without a session, protocols,
// controllers, the caller's edge routers, a service's edge routers and terminators, service
// updates; controller settings; and the deliberate 403 for a non-admin deleting an API session.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import forge from 'node-forge';
import { after, before, describe, it } from 'node:test';
import { startTestNode, type TestNode } from '../support/test-node.js';

describe('upstream operations', () => {
  let node: TestNode;
  let user: { id: string; token: string };
  let serviceId: string;
  let hiddenServiceId: string;
  let routerId: string;
  let otherRouterId: string;
  const admin = () => node.adminToken;
  const created = (res: { status: number; text: string; body: any }): string => {
    assert.equal(res.status, 201, res.text);
    return res.body.data.id;
  };

  before(async () => {
    node = await startTestNode();
    user = await node.createUser('ops-user');
    const t = admin();
    serviceId = created(await node.mgmt.post('/services', { name: 'ops-service', encryptionRequired: true }, t));
    hiddenServiceId = created(await node.mgmt.post('/services', { name: 'ops-hidden', encryptionRequired: true }, t));
    routerId = created(await node.mgmt.post('/edge-routers', { name: 'ops-router' }, t));
    otherRouterId = created(await node.mgmt.post('/edge-routers', { name: 'ops-router-2' }, t));
    created(await node.mgmt.post('/edge-router-policies', { name: 'ops-erp', semantic: 'AnyOf', identityRoles: [`@${user.id}`], edgeRouterRoles: [`@${routerId}`, `@${otherRouterId}`] }, t));
    created(await node.mgmt.post('/service-edge-router-policies', { name: 'ops-serp', semantic: 'AnyOf', serviceRoles: [`@${serviceId}`], edgeRouterRoles: [`@${routerId}`] }, t));
    created(await node.mgmt.post('/service-policies', { name: 'ops-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${serviceId}`] }, t));
  });
  after(async () => {
    await node?.close();
  });

  it('client GET /external-jwt-signers lists enabled signers without a session', async () => {
    const base = { issuer: 'https://issuer.example', audience: 'weft', jwksEndpoint: 'https://issuer.example/jwks', externalAuthUrl: 'https://issuer.example/auth', clientId: 'console', scopes: ['openid'] };
    created(await node.mgmt.post('/external-jwt-signers', { ...base, name: 'ops-signer', enabled: true }, admin()));
    created(await node.mgmt.post('/external-jwt-signers', { ...base, name: 'ops-off', issuer: 'https://off.example', enabled: false }, admin()));
    const res = await node.client.get('/external-jwt-signers');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.map((s: { name: string }) => s.name), ['ops-signer']);
    const signer = res.body.data[0];
    assert.equal(signer.externalAuthUrl, 'https://issuer.example/auth');
    assert.equal(signer.clientId, 'console');
    assert.deepEqual(signer.scopes, ['openid']);
    assert.equal(signer.jwksEndpoint, undefined, 'only the client view');
    assert.equal(signer.issuer, undefined, 'only the client view');
  });

  it('client GET /protocols and /controllers', async () => {
    const protocols = await node.client.get('/protocols');
    assert.equal(protocols.status, 200, protocols.text);
    assert.equal(protocols.body.data.https.address, new URL(node.handle.url).host);
    const controllers = await node.client.get('/controllers', user.token);
    assert.equal(controllers.status, 200, controllers.text);
    assert.equal(controllers.body.data.length, 1);
    assert.equal((await node.client.get('/controllers')).status, 401);
  });

  it('client GET /current-identity/edge-routers lists the routers the caller may use', async () => {
    const res = await node.client.get('/current-identity/edge-routers', user.token);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.map((r: { name: string }) => r.name).sort(), ['ops-router', 'ops-router-2']);
    const router = res.body.data[0];
    assert.equal(typeof router.hostname, 'string');
    assert.equal(router.isOnline, false);
    assert.equal(router.enrollmentJwt, undefined, 'no enrollment secrets for clients');
  });

  it('client GET /services/{id}/edge-routers lists routers both the caller and the service may use', async () => {
    const res = await node.client.get(`/services/${serviceId}/edge-routers`, user.token);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.edgeRouters.map((r: { name: string }) => r.name), ['ops-router']);
    assert.equal((await node.client.get(`/services/${hiddenServiceId}/edge-routers`, user.token)).status, 404);
  });

  it('client edge router lists hold every router the policies give, past one page (500)', async () => {
    const t = admin();
    const fleet = 505;
    for (let i = 0; i < fleet; i += 25) {
      await Promise.all(Array.from({ length: Math.min(25, fleet - i) }, (_, j) => node.mgmt.post('/edge-routers', { name: `fleet-${String(i + j).padStart(3, '0')}`, roleAttributes: ['fleet'] }, t)).map(async (p) => created(await p)));
    }
    const service = created(await node.mgmt.post('/services', { name: 'fleet-service', encryptionRequired: true }, t));
    created(await node.mgmt.post('/edge-router-policies', { name: 'fleet-erp', semantic: 'AnyOf', identityRoles: [`@${user.id}`], edgeRouterRoles: ['#fleet'] }, t));
    created(await node.mgmt.post('/service-edge-router-policies', { name: 'fleet-serp', semantic: 'AnyOf', serviceRoles: [`@${service}`], edgeRouterRoles: ['#fleet', `@${otherRouterId}`] }, t));
    created(await node.mgmt.post('/service-policies', { name: 'fleet-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${service}`] }, t));
    const mine = await node.client.get('/current-identity/edge-routers', user.token);
    assert.equal(mine.status, 200, mine.text);
    const names = mine.body.data.map((r: { name: string }) => r.name);
    assert.equal(names.length, fleet + 2);
    assert.equal(new Set(names).size, fleet + 2);
    assert.equal(mine.body.meta.pagination.totalCount, fleet + 2);
    const serving = await node.client.get(`/services/${service}/edge-routers`, user.token);
    assert.equal(serving.status, 200, serving.text);
    const both = serving.body.data.edgeRouters.map((r: { name: string }) => r.name);
    assert.equal(both.length, fleet + 1);
    assert.ok(both.includes('ops-router-2') && both.includes('fleet-504') && !both.includes('ops-router'));
  });

  it('client GET /services/{id}/terminators lists the service\'s terminators', async () => {
    const id = created(await node.mgmt.post('/terminators', { service: serviceId, router: routerId, binding: 'edge', address: 'hosted' }, admin()));
    const res = await node.client.get(`/services/${serviceId}/terminators`, user.token);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.map((t: { id: string }) => t.id), [id]);
    assert.equal(res.body.data[0].serviceId, serviceId);
    assert.equal(res.body.data[0].routerId, routerId);
    assert.equal((await node.client.get(`/services/${hiddenServiceId}/terminators`, user.token)).status, 404);
  });

  it('client GET /current-api-session/service-updates moves when services change', async () => {
    const first = await node.client.get('/current-api-session/service-updates', user.token);
    assert.equal(first.status, 200, first.text);
    assert.ok(Date.parse(first.body.data.lastChangeAt) > 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    created(await node.mgmt.post('/services', { name: 'ops-new', encryptionRequired: true }, admin()));
    const second = await node.client.get('/current-api-session/service-updates', user.token);
    assert.ok(Date.parse(second.body.data.lastChangeAt) > Date.parse(first.body.data.lastChangeAt));
  });

  it('GET /controller-settings lists global; effective settings merge global and the controller\'s own', async () => {
    const list = await node.mgmt.get('/controller-settings', admin());
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data.map((s: { id: string }) => s.id), ['global']);
    assert.equal((await node.mgmt.patch('/controller-settings/global/effective', { oidc: { redirectUris: ['https://a/cb'] } }, admin())).status, 200);
    const created201 = await node.mgmt.post('/controller-settings', { controllerId: 'ctrl-1', oidc: { postLogoutUris: ['https://b/out'] } }, admin());
    assert.equal(created201.status, 201, created201.text);
    assert.equal(created201.body.data.id, 'ctrl-1');
    const effective = await node.mgmt.get('/controller-settings/ctrl-1/effective', admin());
    assert.equal(effective.status, 200, effective.text);
    assert.deepEqual(effective.body.data.effective.oidc, { redirectUris: ['https://a/cb'], postLogoutUris: ['https://b/out'] });
    assert.deepEqual(effective.body.data.instance.oidc.postLogoutUris, ['https://b/out']);
    assert.equal((await node.mgmt.delete('/controller-settings/ctrl-1/effective', admin())).status, 200);
    assert.equal((await node.mgmt.get('/controller-settings/ctrl-1', admin())).status, 404);
    assert.equal((await node.mgmt.delete('/controller-settings/global/effective', admin())).status, 400);
    assert.equal((await node.mgmt.get('/controller-settings', user.token)).status, 401);
  });

  it('answers a non-admin deleting an API session 403', async () => {
    const sessions = await node.mgmt.get('/api-sessions', admin());
    const res = await node.mgmt.delete(`/api-sessions/${sessions.body.data[0].id}`, user.token);
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.code, 'FORBIDDEN');
  });

  it('GET /network-jwts answers the network JWT without a session, verifiable with /enroll/jwks', async () => {
    for (const api of [node.mgmt, node.client]) {
      const res = await api.get('/network-jwts');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data[0].name, 'default');
      const claims = decodeJwt(res.body.data[0].token);
      assert.equal(claims.em, 'network');
      assert.equal(claims.iss, node.handle.url);
    }
    const jwks = await node.client.get('/enroll/jwks');
    assert.equal(jwks.status, 200, jwks.text);
    const token = (await node.client.get('/network-jwts')).body.data[0].token;
    const verified = await jwtVerify(token, createLocalJWKSet(jwks.body));
    assert.equal(verified.payload.em, 'network');
  });

  it('GET /.well-known/est/cacerts answers the node CA as base64 PKCS#7', async () => {
    const res = await node.client.get('/.well-known/est/cacerts');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type'), 'application/pkcs7-mime');
    const p7 = forge.pkcs7.messageFromAsn1(forge.asn1.fromDer(forge.util.decode64(res.text.replace(/\s+/g, '')))) as unknown as { certificates: forge.pki.Certificate[] };
    const served = p7.certificates.map((c) => new X509Certificate(forge.pki.certificateToPem(c)).fingerprint256);
    assert.ok(served.includes(new X509Certificate(node.handle.caPem).fingerprint256));
    assert.equal((await node.mgmt.get('/.well-known/est/cacerts')).status, 200);
  });

  it('POST /revocations creates a revocation under the given id that expires later', async () => {
    const res = await node.mgmt.post('/revocations', { id: user.id, type: 'IDENTITY' }, admin());
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.id, user.id);
    const read = await node.mgmt.get(`/revocations/${user.id}`, admin());
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.data.type, 'IDENTITY');
    assert.ok(Date.parse(read.body.data.expiresAt) > Date.now());
    assert.equal((await node.mgmt.get('/revocations', admin())).body.data.length, 1);
    const bad = await node.mgmt.post('/revocations', { id: 'x', type: 'NOPE' }, admin());
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.cause.field, 'type');
    assert.equal((await node.mgmt.get('/revocations', user.token)).status, 401);
  });

  it('revoking an API session ends it at its next request; other sessions live on', async () => {
    const victim = await node.createUser('revoked-session');
    const second = await node.mgmt.login(victim.username, 'user-password-1');
    const session = await node.mgmt.get('/current-api-session', victim.token);
    const res = await node.mgmt.post('/revocations', { id: session.body.data.id, type: 'API_SESSION' }, admin());
    assert.equal(res.status, 201, res.text);
    assert.equal((await node.mgmt.get('/current-identity', victim.token)).status, 401);
    assert.equal((await node.mgmt.get('/current-identity', second)).status, 200);
  });

  it('revoking an identity ends every session it has; a later login works', async () => {
    const victim = await node.createUser('revoked-identity');
    const second = await node.mgmt.login(victim.username, 'user-password-1');
    assert.equal((await node.mgmt.post('/revocations', { id: victim.id, type: 'IDENTITY' }, admin())).status, 201);
    for (const token of [victim.token, second]) assert.equal((await node.mgmt.get('/current-identity', token)).status, 401);
    const later = await node.mgmt.login(victim.username, 'user-password-1');
    assert.equal((await node.mgmt.get('/current-identity', later)).status, 200);
  });

  it('POST /revocations checks ids as upstream: the identity exists, a JWT id is a UUID (the default type)', async () => {
    assert.equal((await node.mgmt.post('/revocations', { id: 'no-such-identity', type: 'IDENTITY' }, admin())).status, 404);
    const jti = await node.mgmt.post('/revocations', { id: 'not-a-uuid' }, admin());
    assert.equal(jti.status, 400, jti.text);
    assert.equal(jti.body.error.cause.field, 'id');
    const ok = await node.mgmt.post('/revocations', { id: '5f0c8d5e-1b7c-4f57-9a51-7d7e4f0f9f0a' }, admin());
    assert.equal(ok.status, 201, ok.text);
    assert.equal((await node.mgmt.get('/revocations/5f0c8d5e-1b7c-4f57-9a51-7d7e4f0f9f0a', admin())).body.data.type, 'JTI');
  });

  it('GET /sessions/{id}/route-path is empty for a session, 404 for none', async () => {
    assert.equal((await node.mgmt.get('/sessions/nope/route-path', admin())).status, 404);
  });

  it('string fields the spec declares are never null', async () => {
    const types = await node.mgmt.get('/posture-check-types', admin());
    for (const type of types.body.data) assert.equal(type.version, '');
    const identity = await node.mgmt.post('/identities', { name: 'ops-enrolling', type: 'User', isAdmin: false, enrollment: { ott: true } }, admin());
    const enrollments = await node.mgmt.get(`/identities/${identity.body.data.id}/enrollments`, admin());
    assert.equal(enrollments.body.data[0].username, '');
    const data = await node.mgmt.get(`/identities/${user.id}/posture-data`, admin());
    assert.equal(data.body.data.os.lastUpdatedAt, '0001-01-01T00:00:00.000Z');
    const routers = await node.mgmt.get('/edge-routers', admin());
    for (const router of routers.body.data) assert.equal(typeof router.fingerprint, 'string');
    const sessions = await node.mgmt.get('/api-sessions', admin());
    for (const session of sessions.body.data) assert.equal(session.token, '', 'tokens are kept as hashes only');
    const own = await node.mgmt.get('/current-api-session', admin());
    assert.equal(own.body.data.token, admin());
  });
});
