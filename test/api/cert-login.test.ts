// Certificate login over mutual TLS with real certificates: the full ott → login → extend →
// extend-verify rotation, every refusal reason, auth-policy cert rules, third-party CA trust,
// request-extend, and the caller's own authenticators (updb changes need the current password).

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importX509, jwtVerify } from 'jose';
import { createCsr, newKey, type TestKey } from '../support/csr.js';
import { certLogin, mtlsClients } from '../support/mtls.js';
import { startTestNode, type TestNode } from '../support/test-node.js';
import { makeCa, makeLeaf, makeSelfSigned, type TestCert } from '../support/test-pki.js';
import { ok, fingerprintOf } from '../support/assertions.js';


describe('certificate authentication', () => {
  let node: TestNode;
  let nodeCa: TestCert;
  let names = 0;
  before(async () => {
    node = await startTestNode();
    nodeCa = { certPem: node.handle.caPem, keyPem: await readFile(join(node.dataDir, 'pki', 'ca.key.pem'), 'utf8') };
  });
  after(async () => {
    await node.close();
  });

  const admin = () => node.adminToken;
  const refused = async (creds: TestCert, reason: string) => {
    const res = await certLogin(node, creds);
    assert.equal(res.status, 401, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'INVALID_AUTH');
    assert.equal(res.body.error.cause.reason, reason);
  };
  const newIdentity = async (extra: Record<string, unknown> = {}) =>
    ok(await node.mgmt.post('/identities', { name: `cert-user-${++names}`, type: 'User', isAdmin: false, ...extra }, admin()), 201).id as string;
  /** An identity enrolled with ott: its key, certificate and authenticator id. */
  const enrolled = async (): Promise<{ id: string; key: TestKey; cert: TestCert; authenticatorId: string }> => {
    const id = await newIdentity({ enrollment: { ott: true } });
    const { token } = ok(await node.mgmt.get(`/identities/${id}`, admin())).enrollment.ott;
    const key = newKey('rsa');
    const { cert } = ok(await node.client.post('/enroll/ott', { token, clientCsr: createCsr(key, `device-${names}`) }));
    const authenticatorId = ok(await node.mgmt.get(`/identities/${id}`, admin())).authenticators.cert.id;
    return { id, key, cert: { certPem: cert, keyPem: key.keyPem }, authenticatorId };
  };
  /** A certificate authenticator for `certPem` created by the admin. */
  const withCertAuthenticator = async (certPem: string) => {
    const id = await newIdentity();
    ok(await node.mgmt.post('/authenticators', { method: 'cert', identityId: id, certPem }, admin()), 201);
    return id;
  };

  it('enrolls with ott, logs in with the certificate, extends it, and only the new one works after extend-verify', async () => {
    const id = await newIdentity({ enrollment: { ott: true } });
    const { jwt, token } = ok(await node.mgmt.get(`/identities/${id}`, admin())).enrollment.ott;
    const { payload } = await jwtVerify(jwt, await importX509(node.handle.caPem, 'RS256'), { issuer: node.handle.url });
    assert.equal(payload.sub, id);
    assert.equal(payload.jti, token);
    const key = newKey('rsa');
    const { cert } = ok(await node.client.post('/enroll/ott', { token, clientCsr: createCsr(key, 'rotating-device') }));
    const oldCert = { certPem: cert, keyPem: key.keyPem };

    const login = await certLogin(node, oldCert);
    assert.equal(login.status, 200, JSON.stringify(login.body));
    assert.equal(login.body.data.identityId, id);
    const authenticatorId = login.body.data.authenticatorId;
    assert.equal(login.body.data.isCertExtendable, true);
    const mgmtLogin = mtlsClients(node, oldCert);
    try {
      assert.equal(ok(await mgmtLogin.mgmt.post('/authenticate?method=cert', {})).identityId, id);
    } finally {
      await mgmtLogin.close();
    }

    const newKeyPair = newKey('ec');
    const session = mtlsClients(node, oldCert);
    let newCert: TestCert;
    try {
      const path = `/current-identity/authenticators/${authenticatorId}`;
      const extended = ok(await session.client.post(`${path}/extend`, { clientCertCsr: createCsr(newKeyPair, 'ignored-cn') }, login.token));
      assert.equal(extended.ca, node.handle.caPem);
      const issued = new X509Certificate(extended.clientCert);
      assert.equal(issued.subject, 'CN=rotating-device');
      assert.ok(issued.checkPrivateKey(newKeyPair.privateKey));
      newCert = { certPem: extended.clientCert, keyPem: newKeyPair.keyPem };
      assert.equal((await certLogin(node, oldCert)).status, 200, 'the old certificate works until extend-verify');
      await refused(newCert, 'UNKNOWN_CERTIFICATE');
      const wrong = await session.client.post(`${path}/extend-verify`, { clientCert: makeSelfSigned('nope').certPem }, login.token);
      assert.equal(wrong.status, 400, wrong.text);
      assert.equal(wrong.body.error.code, 'INVALID_CLIENT_CERT');
      ok(await session.client.post(`${path}/extend-verify`, { clientCert: extended.clientCert }, login.token));
    } finally {
      await session.close();
    }
    const after = await certLogin(node, newCert);
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal(after.body.data.identityId, id);
    await refused(oldCert, 'UNKNOWN_CERTIFICATE');
    const auth = ok(await node.mgmt.get(`/authenticators/${authenticatorId}`, admin()));
    assert.equal(auth.fingerprint, fingerprintOf(newCert.certPem));
    assert.equal(auth.lastExtendRolledKeys, true);
    assert.equal(auth.isIssuedByNetwork, true);
  });

  describe('refusals (401 INVALID_AUTH with the reason)', () => {
    it('no client certificate', async () => {
      const res = await node.client.post('/authenticate?method=cert', {});
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.error.code, 'INVALID_AUTH');
      assert.equal(res.body.error.cause.reason, 'NO_CERTIFICATE');
    });

    it('a certificate of the node CA that no authenticator holds', async () => {
      await refused(makeLeaf(nodeCa, 'nobody'), 'UNKNOWN_CERTIFICATE');
    });

    it('a certificate from an issuer Weft does not trust', async () => {
      const stranger = makeSelfSigned('stranger');
      await withCertAuthenticator(stranger.certPem);
      await refused(stranger, 'UNTRUSTED_ISSUER');
    });

    it('a disabled identity', async () => {
      const { id, cert } = await enrolled();
      ok(await node.mgmt.post(`/identities/${id}/disable`, { durationMinutes: 0 }, admin()));
      await refused(cert, 'IDENTITY_DISABLED');
      ok(await node.mgmt.post(`/identities/${id}/enable`, {}, admin()));
      assert.equal((await certLogin(node, cert)).status, 200);
    });

    it('an expired certificate only when the auth policy does not allow expired certificates', async () => {
      const expired = makeLeaf(nodeCa, 'expired-device', { fromDays: -30, toDays: -1 });
      const id = await withCertAuthenticator(expired.certPem);
      assert.equal((await certLogin(node, expired)).status, 200, 'the default policy allows expired certificates');
      const policy = (cert: Record<string, boolean>) => ({
        name: `cert-policy-${++names}`,
        primary: {
          cert,
          updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 },
          extJwt: { allowed: false, allowedSigners: [] },
        },
        secondary: { requireTotp: false, requireExtJwtSigner: null },
      });
      const strict = ok(await node.mgmt.post('/auth-policies', policy({ allowed: true, allowExpiredCerts: false }), admin()), 201).id;
      ok(await node.mgmt.patch(`/identities/${id}`, { authPolicyId: strict }, admin()));
      await refused(expired, 'EXPIRED');
      const closed = ok(await node.mgmt.post('/auth-policies', policy({ allowed: false, allowExpiredCerts: true }), admin()), 201).id;
      ok(await node.mgmt.patch(`/identities/${id}`, { authPolicyId: closed }, admin()));
      await refused(expired, 'CERT_NOT_ALLOWED');
    });

    it('a certificate that is not valid yet', async () => {
      const early = makeLeaf(nodeCa, 'early-device', { fromDays: 2, toDays: 30 });
      await withCertAuthenticator(early.certPem);
      await refused(early, 'NOT_YET_VALID');
    });
  });

  describe('third-party CA certificates', () => {
    it('log in while the CA is verified and isAuthEnabled', async () => {
      const ca = makeCa('Login Test CA');
      const caId = ok(await node.mgmt.post('/cas', {
        name: `login-ca-${++names}`, certPem: ca.certPem, isAutoCaEnrollmentEnabled: false, isOttCaEnrollmentEnabled: false, isAuthEnabled: true, identityRoles: [],
      }, admin()), 201).id;
      const device = makeLeaf(ca, 'ca-device');
      await withCertAuthenticator(device.certPem);
      await refused(device, 'UNTRUSTED_ISSUER');
      const { verificationToken } = ok(await node.mgmt.get(`/cas/${caId}`, admin()));
      ok(await node.mgmt.request('POST', `/cas/${caId}/verify`, { raw: makeLeaf(ca, verificationToken).certPem, token: admin(), headers: { 'content-type': 'text/plain' } }));
      assert.equal((await certLogin(node, device)).status, 200);
      ok(await node.mgmt.patch(`/cas/${caId}`, { isAuthEnabled: false }, admin()));
      await refused(device, 'UNTRUSTED_ISSUER');
    });
  });

  describe('extension', () => {
    it('request-extend flags the authenticator and the sessions it creates; verify clears the flags', async () => {
      const { authenticatorId, cert, key } = await enrolled();
      ok(await node.mgmt.post(`/authenticators/${authenticatorId}/request-extend`, { rollKeys: true }, admin()));
      const flagged = ok(await node.mgmt.get(`/authenticators/${authenticatorId}`, admin()));
      assert.equal(flagged.isExtendRequested, true);
      assert.equal(flagged.isKeyRollRequested, true);
      assert.ok(Date.parse(flagged.extendRequestedAt) > 0);
      const login = await certLogin(node, cert);
      assert.equal(login.body.data.isCertExtendRequested, true);
      assert.equal(login.body.data.isCertKeyRollRequested, true);
      const session = mtlsClients(node, cert);
      try {
        const path = `/current-identity/authenticators/${authenticatorId}`;
        const { clientCert } = ok(await session.client.post(`${path}/extend`, { clientCertCsr: createCsr(key, 'same-key') }, login.token));
        ok(await session.client.post(`${path}/extend-verify`, { clientCert }, login.token));
      } finally {
        await session.close();
      }
      const cleared = ok(await node.mgmt.get(`/authenticators/${authenticatorId}`, admin()));
      assert.equal(cleared.isExtendRequested, false);
      assert.equal(cleared.isKeyRollRequested, false);
      assert.equal(cleared.extendRequestedAt, null);
      assert.equal(cleared.lastExtendRolledKeys, false, 'the same key was kept');
    });

    it('request-extend of a updb authenticator is refused', async () => {
      const user = await node.createUser(`extend-updb-${++names}`);
      const [auth] = ok(await node.mgmt.get(`/identities/${user.id}/authenticators`, admin()));
      const res = await node.mgmt.post(`/authenticators/${auth.id}/request-extend`, {}, admin());
      assert.equal(res.status, 401, res.text);
    });

    it('extend needs the current certificate in the TLS handshake and the caller own network-issued certificate', async () => {
      const { authenticatorId, cert } = await enrolled();
      const login = await certLogin(node, cert);
      const csr = createCsr(newKey('ec'), 'x');
      const path = `/current-identity/authenticators/${authenticatorId}`;
      const withoutCert = await node.client.post(`${path}/extend`, { clientCertCsr: csr }, login.token);
      assert.equal(withoutCert.status, 401, withoutCert.text);
      const other = await enrolled();
      const otherSession = mtlsClients(node, other.cert);
      try {
        const otherLogin = ok(await otherSession.client.post('/authenticate?method=cert', {}));
        const foreign = await otherSession.client.post(`${path}/extend`, { clientCertCsr: csr }, otherLogin.token);
        assert.equal(foreign.status, 401, foreign.text);
        const badCsr = await otherSession.client.post(`/current-identity/authenticators/${other.authenticatorId}/extend`, { clientCertCsr: 'nope' }, otherLogin.token);
        assert.equal(badCsr.status, 400, badCsr.text);
        assert.equal(badCsr.body.error.code, 'COULD_NOT_PROCESS_CSR');
        const noPending = await otherSession.client.post(`/current-identity/authenticators/${other.authenticatorId}/extend-verify`, { clientCert: other.cert.certPem }, otherLogin.token);
        assert.equal(noPending.status, 409, noPending.text);
      } finally {
        await otherSession.close();
      }
    });
  });

  describe('/current-identity/authenticators', () => {
    it("lists and shows only the caller's authenticators", async () => {
      const user = await node.createUser(`self-${++names}`);
      const list = ok(await node.client.get('/current-identity/authenticators', user.token));
      assert.equal(list.length, 1);
      assert.equal(list[0].method, 'updb');
      assert.equal(ok(await node.client.get(`/current-identity/authenticators/${list[0].id}`, user.token)).username, user.username);
      const [adminAuth] = ok(await node.mgmt.get('/current-identity/authenticators', admin()));
      const res = await node.client.get(`/current-identity/authenticators/${adminAuth.id}`, user.token);
      assert.equal(res.status, 404, res.text);
      assert.equal((await node.client.get('/current-identity/authenticators')).status, 401);
    });

    it('changes the password only with the current one', async () => {
      const user = await node.createUser(`self-pw-${++names}`, { password: 'first-password-1' });
      const [auth] = ok(await node.client.get('/current-identity/authenticators', user.token));
      const path = `/current-identity/authenticators/${auth.id}`;
      const missing = await node.client.patch(path, { password: 'second-password-2' }, user.token);
      assert.equal(missing.status, 400, missing.text);
      assert.equal(missing.body.error.cause.field, 'currentPassword');
      const wrong = await node.client.patch(path, { password: 'second-password-2', currentPassword: 'not-it-at-all' }, user.token);
      assert.equal(wrong.status, 401, wrong.text);
      ok(await node.client.patch(path, { password: 'second-password-2', currentPassword: 'first-password-1' }, user.token));
      await node.client.login(user.username, 'second-password-2');
      assert.equal((await node.client.post('/authenticate?method=password', { username: user.username, password: 'first-password-1' })).status, 401);
      const renamed = `${user.username}-renamed`;
      ok(await node.mgmt.put(path, { username: renamed, password: 'third-password-3', currentPassword: 'second-password-2' }, user.token));
      await node.client.login(renamed, 'third-password-3');
    });

    it('refuses password changes on a certificate authenticator', async () => {
      const { authenticatorId, cert } = await enrolled();
      const login = await certLogin(node, cert);
      const res = await node.client.patch(`/current-identity/authenticators/${authenticatorId}`, { password: 'x-password-1', currentPassword: 'y-password-1' }, login.token);
      assert.equal(res.status, 409, res.text);
      assert.equal(res.body.error.code, 'CAN_NOT_UPDATE_AUTHENTICATOR');
    });
  });
});
