// Current-API-session operations and token enrollment, over HTTPS: TOTP tokens (both APIs), the
// session's ephemeral certificates (client API), `POST /enroll/token` with an external JWT
// signer's token, and the client operations upstream answers 501.

import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, importPKCS8, jwtVerify, SignJWT } from 'jose';
import { createGuardrails, generateSync } from 'otplib';
import { setMfaClock } from '../../src/domain/mfa-clock.js';
import { createCsr, newKey } from '../support/csr.js';
import { makeSelfSigned } from '../support/test-pki.js';
import { startTestNode, type TestNode } from '../support/test-node.js';

/** The pinned TOTP time: 10 s into a 30 s step. */
const NOW = Date.UTC(2024, 5, 1, 8, 0, 10);
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });
const totp = (secret: string) => generateSync({ secret, epoch: Math.floor(NOW / 1000), guardrails });

let node: TestNode;
const admin = () => node.adminToken;

before(async () => {
  node = await startTestNode();
  setMfaClock(() => NOW);
});
after(async () => {
  setMfaClock();
  await node?.close();
});

describe('POST /current-api-session/totp-token', () => {
  let user: { id: string; token: string };
  let secret: string;
  before(async () => {
    user = await node.createUser('totp-token-user');
    const enrolled = await node.client.post('/current-identity/mfa', {}, user.token);
    assert.equal(enrolled.status, 201, enrolled.text);
    const detail = await node.client.get('/current-identity/mfa', user.token);
    secret = new URL(detail.body.data.provisioningUrl).searchParams.get('secret')!;
    assert.equal((await node.client.post('/current-identity/mfa/verify', { code: totp(secret) }, user.token)).status, 200);
  });

  it('answers a token signed by the node, naming the identity and the session, on both APIs', async () => {
    const jwks = createLocalJWKSet((await node.client.get('/enroll/jwks')).body);
    const session = await node.client.get('/current-api-session', user.token);
    for (const api of [node.client, node.mgmt]) {
      const res = await api.post('/current-api-session/totp-token', { code: totp(secret) }, user.token);
      assert.equal(res.status, 200, res.text);
      const { payload } = await jwtVerify(res.body.data.token, jwks);
      assert.equal(payload.sub, user.id);
      assert.equal(payload.z_asid, session.body.data.id);
      assert.equal(payload.z_t, 't');
      assert.equal(payload.iss, node.handle.url);
      assert.equal(Date.parse(res.body.data.issuedAt), (payload.iat as number) * 1000);
      assert.ok(decodeProtectedHeader(res.body.data.token).kid);
    }
  });

  it('refuses a wrong code 400 MFA_INVALID_TOKEN', async () => {
    const wrong = totp(secret) === '000000' ? '111111' : '000000';
    const res = await node.client.post('/current-api-session/totp-token', { code: wrong }, user.token);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'MFA_INVALID_TOKEN');
  });

  it('refuses an identity without MFA with MFA_NOT_ENROLLED', async () => {
    const other = await node.createUser('totp-token-none');
    const res = await node.client.post('/current-api-session/totp-token', { code: '123456' }, other.token);
    assert.equal(res.body.error.code, 'MFA_NOT_ENROLLED', res.text);
  });

  it('needs a session', async () => {
    assert.equal((await node.client.post('/current-api-session/totp-token', { code: '123456' })).status, 401);
  });
});

describe('/current-api-session/certificates', () => {
  let user: { id: string; token: string; username: string };
  let certId: string;

  before(async () => {
    user = await node.createUser('session-cert-user');
  });

  it('POST signs the CSR for 12 hours and answers the certificate and the CA', async () => {
    const res = await node.client.post('/current-api-session/certificates', { csr: createCsr(newKey('ec'), 'session-cert') }, user.token);
    assert.equal(res.status, 201, res.text);
    certId = res.body.data.id;
    const cert = new X509Certificate(res.body.data.certificate);
    assert.equal(cert.subject, 'CN=session-cert');
    const hours = (Date.parse(cert.validTo) - Date.now()) / 3_600_000;
    assert.ok(hours > 11.9 && hours <= 12, `valid for ${hours} hours`);
    assert.ok(cert.verify(new X509Certificate(node.handle.caPem).publicKey));
    assert.equal(res.body.data.cas, node.handle.caPem);
    assert.equal(res.body.data._links.self.href, `./current-api-session/certificates/${certId}`);
  });

  it('GET lists and reads the session\'s certificates', async () => {
    const list = await node.client.get('/current-api-session/certificates', user.token);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data.map((c: { id: string }) => c.id), [certId]);
    const detail = await node.client.get(`/current-api-session/certificates/${certId}`, user.token);
    assert.equal(detail.status, 200, detail.text);
    assert.equal(detail.body.data.subject, 'CN=session-cert');
    assert.match(detail.body.data.fingerprint, /^[0-9a-f]{40}$/);
    assert.ok(Date.parse(detail.body.data.validTo) > Date.parse(detail.body.data.validFrom));
    assert.match(detail.body.data.certificate, /BEGIN CERTIFICATE/);
  });

  it('another session of the same identity sees none of them (404)', async () => {
    const token = await node.client.login(user.username, 'user-password-1');
    assert.equal((await node.client.get(`/current-api-session/certificates/${certId}`, token)).status, 404);
    assert.equal((await node.client.delete(`/current-api-session/certificates/${certId}`, token)).status, 404);
    assert.deepEqual((await node.client.get('/current-api-session/certificates', token)).body.data, []);
  });

  it('a filter narrows the list and cannot widen it past the session', async () => {
    const other = await node.createUser('session-cert-filter');
    assert.equal((await node.client.post('/current-api-session/certificates', { csr: createCsr(newKey('ec'), 'not-mine') }, other.token)).status, 201);
    const named = await node.client.get(`/current-api-session/certificates?filter=${encodeURIComponent('subject = "CN=session-cert"')}`, user.token);
    assert.deepEqual(named.body.data.map((c: { id: string }) => c.id), [certId]);
    const escape = await node.client.get(`/current-api-session/certificates?filter=${encodeURIComponent('true) or (true')}`, user.token);
    assert.equal(escape.status, 400, escape.text);
    assert.equal(escape.body.error.code, 'INVALID_FILTER');
    const quoted = await node.client.get(`/current-api-session/certificates?filter=${encodeURIComponent('subject = ")" or true')}`, user.token);
    assert.ok(quoted.status === 400 || quoted.body.data.every((c: { id: string }) => c.id === certId), quoted.text);
  });

  it('refuses a body without a usable CSR 400 COULD_NOT_PROCESS_CSR', async () => {
    const res = await node.client.post('/current-api-session/certificates', { csr: 'nope' }, user.token);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'COULD_NOT_PROCESS_CSR');
  });

  it('DELETE removes one; ending the session removes the rest', async () => {
    assert.equal((await node.client.delete(`/current-api-session/certificates/${certId}`, user.token)).status, 200);
    assert.equal((await node.client.get(`/current-api-session/certificates/${certId}`, user.token)).status, 404);
    const second = await node.client.post('/current-api-session/certificates', { csr: createCsr(newKey('rsa'), 'second') }, user.token);
    assert.equal(second.status, 201, second.text);
    const session = await node.client.get('/current-api-session', user.token);
    assert.equal((await node.mgmt.delete(`/api-sessions/${session.body.data.id}`, admin())).status, 200);
    const fresh = await node.createUser('session-cert-later');
    assert.equal((await node.client.get(`/current-api-session/certificates/${second.body.data.id}`, fresh.token)).status, 404);
  });
});

describe('POST /enroll/token', () => {
  const issuer = 'https://idp.test/enroll';
  let key: Parameters<SignJWT['sign']>[0];
  let signerId: string;
  const token = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'enroll-kid' }).setIssuer(issuer).setAudience('weft-enroll')
      .setIssuedAt().setExpirationTime('5m').sign(key);
  const enroll = (jwt: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    node.client.request('POST', '/enroll/token', { body, headers: { authorization: `Bearer ${jwt}`, ...headers } });

  before(async () => {
    const cert = makeSelfSigned('enroll-token-signer');
    key = await importPKCS8(createPrivateKey(cert.keyPem).export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256');
    const res = await node.mgmt.post('/external-jwt-signers', {
      name: 'enroll-signer', issuer, audience: 'weft-enroll', certPem: cert.certPem, kid: 'enroll-kid', enabled: true,
      enrollToCertEnabled: true, enrollToTokenEnabled: false, enrollNameClaimsSelector: 'preferred_username', enrollAttributeClaimsSelector: '/groups',
    }, admin());
    assert.equal(res.status, 201, res.text);
    signerId = res.body.data.id;
  });

  it('with a CSR creates the identity named by the token, with its attributes and a certificate that logs in', async () => {
    const res = await enroll(await token({ sub: 'ext-1', preferred_username: 'enrolled-by-token', groups: ['ops', 'eu'] }), { clientCsr: createCsr(newKey('ec'), 'device') }, { 'ziti-token-issuer-id': signerId });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.data.cert, /BEGIN CERTIFICATE/);
    assert.equal(res.body.data.ca, node.handle.caPem);
    const found = await node.mgmt.get('/identities?filter=name="enrolled-by-token"', admin());
    const identity = found.body.data[0];
    assert.equal(identity.externalId, 'ext-1');
    assert.deepEqual(identity.roleAttributes, ['ops', 'eu']);
    assert.equal(identity.authPolicyId, 'default');
    const authenticators = await node.mgmt.get(`/identities/${identity.id}/authenticators`, admin());
    assert.deepEqual(authenticators.body.data.map((a: { method: string }) => a.method), ['cert']);
  });

  it('refuses a second enrollment of the same external id 409', async () => {
    const res = await enroll(await token({ sub: 'ext-1', preferred_username: 'again' }), { clientCsr: createCsr(newKey('ec'), 'device') });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'ENROLLMENT_IDENTITY_ALREADY_ENROLLED');
  });

  it('refuses a token enrollment the signer does not allow 400 INVALID_ENROLLMENT_NOT_ALLOWED', async () => {
    const res = await enroll(await token({ sub: 'ext-2', preferred_username: 'token-only' }));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'INVALID_ENROLLMENT_NOT_ALLOWED');
  });

  it('enrolls without a CSR when the signer allows token enrollment', async () => {
    assert.equal((await node.mgmt.patch(`/external-jwt-signers/${signerId}`, { enrollToTokenEnabled: true }, admin())).status, 200);
    const res = await enroll(await token({ sub: 'ext-3', preferred_username: 'token-enrolled' }));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, {});
    const found = await node.mgmt.get('/identities?filter=externalId="ext-3"', admin());
    assert.equal(found.body.data[0].name, 'token-enrolled');
  });

  it('refuses a token that does not verify, or names another signer, 400 INVALID_ENROLLMENT_TOKEN', async () => {
    const forged = await new SignJWT({ sub: 'ext-4', preferred_username: 'forged' }).setProtectedHeader({ alg: 'RS256', kid: 'enroll-kid' })
      .setIssuer(issuer).setAudience('weft-enroll').setExpirationTime('5m')
      .sign(await importPKCS8(createPrivateKey(makeSelfSigned('other').keyPem).export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256'));
    for (const res of [
      await enroll(forged),
      await enroll(await token({ sub: 'ext-5', preferred_username: 'elsewhere' }), {}, { 'ziti-token-issuer-id': 'another-signer' }),
      await node.client.request('POST', '/enroll/token', { body: {} }),
    ]) {
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'INVALID_ENROLLMENT_TOKEN');
    }
  });
});

describe('client operations upstream never implemented', () => {
  it('answers 501 with the operation named, after the session check for secured ones', async () => {
    const user = await node.createUser('unimplemented-user');
    for (const [method, path, operation] of [['DELETE', '/services/x', 'service.DeleteService'], ['PUT', '/services/x', 'service.UpdateService'], ['PATCH', '/services/x', 'service.PatchService']]) {
      const res = await node.client.request(method!, path!, { token: user.token, body: method === 'DELETE' ? undefined : {} });
      assert.equal(res.status, 501, res.text);
      assert.equal(res.body, `operation ${operation} has not yet been implemented`);
      assert.equal((await node.client.request(method!, path!)).status, 401);
    }
    const challenge = await node.client.post('/enroll/challenge', { nonce: '5f0c8d5e-1b7c-4f57-9a51-7d7e4f0f9f0a', keyId: 'k' });
    assert.equal(challenge.status, 501);
    assert.equal(challenge.body, 'operation enroll.EnrollmentChallenge has not yet been implemented');
  });
});
