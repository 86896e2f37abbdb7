// Third-party CAs with an externalIdClaim over mutual TLS: CA auto-enrollment gives the identity
// the external id read from the certificate (no certificate authenticator), certificate login
// finds the identity by that id (so a rotated certificate still works), and every refusal.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { certLogin, mtlsClients } from '../support/mtls.js';
import { startTestNode, type TestNode } from '../support/test-node.js';
import { makeCa, makeLeaf, type TestCert } from '../support/test-pki.js';
import { ok, fails } from '../support/assertions.js';

const SPIFFE_CLAIM = { location: 'SAN_URI', matcher: 'SCHEME', matcherCriteria: 'spiffe', parser: 'NONE', parserCriteria: '', index: 0 };

describe('CA externalIdClaim', () => {
  let node: TestNode;
  let seq = 0;
  const unique = (prefix: string) => `${prefix}-${++seq}`;
  before(async () => {
    node = await startTestNode();
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

  /** A verified CA with the claim; auto-enrollment and auth as asked. */
  const verifiedCa = async (claim: Record<string, unknown>, flags: { auto?: boolean; auth?: boolean } = {}) => {
    const ca = makeCa(unique('Claim CA'));
    const name = unique('claim-ca');
    const id = ok(await node.mgmt.post('/cas', {
      name, certPem: ca.certPem, isAutoCaEnrollmentEnabled: flags.auto ?? true, isOttCaEnrollmentEnabled: false,
      isAuthEnabled: flags.auth ?? true, identityRoles: ['claimed'], externalIdClaim: claim,
    }, admin()), 201).id as string;
    const { verificationToken } = ok(await node.mgmt.get(`/cas/${id}`, admin()));
    ok(await node.mgmt.request('POST', `/cas/${id}/verify`, { raw: makeLeaf(ca, verificationToken).certPem, token: admin(), headers: { 'content-type': 'text/plain' } }));
    return { ca, id, name };
  };
  const enrollCa = async (creds: TestCert, body: Record<string, unknown> = {}) => {
    const clients = mtlsClients(node, creds);
    try {
      return await clients.client.post('/enroll?method=ca', body);
    } finally {
      await clients.close();
    }
  };
  const identityByName = async (name: string) => {
    const found = ok(await node.mgmt.get(`/identities?filter=${encodeURIComponent(`name = "${name}"`)}`, admin()));
    assert.equal(found.length, 1, `one identity named ${name}`);
    return found[0];
  };

  describe('POST /enroll?method=ca', () => {
    let ca: TestCert;
    let caName: string;
    before(async () => {
      ({ ca, name: caName } = await verifiedCa(SPIFFE_CLAIM));
    });

    it('creates the identity with the external id read from the certificate and no certificate authenticator', async () => {
      const workload = makeLeaf(ca, 'workload-a', { uris: ['spiffe://example.org/ns/prod/sa/a'] });
      ok(await enrollCa(workload));
      const identity = await identityByName(`${caName}-workload-a`);
      assert.equal(identity.externalId, 'spiffe://example.org/ns/prod/sa/a');
      assert.deepEqual(identity.roleAttributes, ['claimed']);
      assert.deepEqual(identity.authenticators, {});
      const authenticators = ok(await node.mgmt.get(`/identities/${identity.id}/authenticators`, admin()));
      assert.equal(authenticators.length, 0);
    });

    it('logs the enrolled identity in by external id, with a rotated certificate too', async () => {
      const first = makeLeaf(ca, 'workload-b', { uris: ['spiffe://example.org/ns/prod/sa/b'] });
      ok(await enrollCa(first));
      const identity = await identityByName(`${caName}-workload-b`);
      const login = await certLogin(node, first);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      assert.equal(login.body.data.identityId, identity.id);
      assert.equal(login.body.data.authenticatorId, 'internal');
      const me = await node.client.get('/current-identity', login.token);
      assert.equal(me.status, 200, me.text);
      const rotated = makeLeaf(ca, 'renamed-b', { uris: ['spiffe://example.org/ns/prod/sa/b'] });
      const again = await certLogin(node, rotated);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.data.identityId, identity.id);
    });

    it('answers 400 MISSING_CERT_CLAIM when the certificate holds no matching value', async () => {
      const res = await enrollCa(makeLeaf(ca, 'no-spiffe', { uris: ['https://example.org/not-spiffe'] }));
      fails(res, 400, 'MISSING_CERT_CLAIM');
      assert.match(res.body.error.cause.message, /SAN_URI SCHEME "spiffe"/);
      const found = ok(await node.mgmt.get(`/identities?filter=${encodeURIComponent(`name = "${caName}-no-spiffe"`)}`, admin()));
      assert.equal(found.length, 0);
    });

    it('answers 409 CERT_IN_USE when an identity already has the external id', async () => {
      ok(await enrollCa(makeLeaf(ca, 'twin', { uris: ['spiffe://example.org/twin'] })));
      fails(await enrollCa(makeLeaf(ca, 'twin-2', { uris: ['spiffe://example.org/twin'] })), 409, 'CERT_IN_USE');
    });

    it('reads the value the claim selects (CN prefix, split, index)', async () => {
      const { ca: cnCa } = await verifiedCa({ location: 'COMMON_NAME', matcher: 'PREFIX', matcherCriteria: 'dev:', parser: 'SPLIT', parserCriteria: '.', index: 1 });
      ok(await enrollCa(makeLeaf(cnCa, 'dev:plant-7.line-3.press')));
      const found = ok(await node.mgmt.get(`/identities?filter=${encodeURIComponent('externalId = "line-3"')}`, admin()));
      assert.equal(found.length, 1);
    });
  });

  describe('POST /authenticate?method=cert', () => {
    let ca: TestCert;
    let caId: string;
    before(async () => {
      ({ ca, id: caId } = await verifiedCa({ location: 'SAN_EMAIL', matcher: 'SUFFIX', matcherCriteria: '@devices.example', parser: 'NONE', parserCriteria: '', index: 0 }, { auto: false }));
    });
    const identityWith = async (externalId: string, extra: Record<string, unknown> = {}) =>
      ok(await node.mgmt.post('/identities', { name: unique('ext-id'), type: 'Device', isAdmin: false, externalId, ...extra }, admin()), 201).id as string;

    it('finds the identity by the external id the claim reads, without an authenticator', async () => {
      const id = await identityWith('pump-1');
      const login = await certLogin(node, makeLeaf(ca, 'any-name', { emails: ['pump-1@devices.example'] }));
      assert.equal(login.status, 200, JSON.stringify(login.body));
      assert.equal(login.body.data.identityId, id);
    });

    it('refuses an external id no identity has (UNKNOWN_EXTERNAL_ID)', async () => {
      await refused(makeLeaf(ca, 'stranger', { emails: ['pump-404@devices.example'] }), 'UNKNOWN_EXTERNAL_ID');
    });

    it('refuses a disabled identity (IDENTITY_DISABLED)', async () => {
      const id = await identityWith('pump-2');
      ok(await node.mgmt.post(`/identities/${id}/disable`, { durationMinutes: 0 }, admin()));
      await refused(makeLeaf(ca, 'disabled', { emails: ['pump-2@devices.example'] }), 'IDENTITY_DISABLED');
    });

    it("refuses when the identity's auth policy does not allow certificates (CERT_NOT_ALLOWED)", async () => {
      const policyId = ok(await node.mgmt.post('/auth-policies', {
        name: unique('no-cert'),
        primary: {
          cert: { allowed: false, allowExpiredCerts: false },
          updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 },
          extJwt: { allowed: false, allowedSigners: [] },
        },
        secondary: { requireTotp: false, requireExtJwtSigner: null },
      }, admin()), 201).id;
      await identityWith('pump-3', { authPolicyId: policyId });
      await refused(makeLeaf(ca, 'no-cert', { emails: ['pump-3@devices.example'] }), 'CERT_NOT_ALLOWED');
    });

    it('falls back to the fingerprint when the certificate holds no value (as upstream)', async () => {
      const plain = makeLeaf(ca, 'plain-device');
      await refused(plain, 'UNKNOWN_CERTIFICATE');
      const id = await identityWith('pump-4');
      ok(await node.mgmt.post('/authenticators', { method: 'cert', identityId: id, certPem: plain.certPem }, admin()), 201);
      const login = await certLogin(node, plain);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      assert.equal(login.body.data.identityId, id);
    });

    it('stops once the CA no longer allows authentication', async () => {
      const id = await identityWith('pump-5');
      const device = makeLeaf(ca, 'pump-5', { emails: ['pump-5@devices.example'] });
      assert.equal((await certLogin(node, device)).body.data.identityId, id);
      ok(await node.mgmt.patch(`/cas/${caId}`, { isAuthEnabled: false }, admin()));
      try {
        await refused(device, 'UNKNOWN_CERTIFICATE');
      } finally {
        ok(await node.mgmt.patch(`/cas/${caId}`, { isAuthEnabled: true }, admin()));
      }
    });

    it('refuses a certificate with the external id from a CA without the claim', async () => {
      const other = makeCa(unique('Plain CA'));
      const otherId = ok(await node.mgmt.post('/cas', {
        name: unique('plain-ca'), certPem: other.certPem, isAutoCaEnrollmentEnabled: false, isOttCaEnrollmentEnabled: false, isAuthEnabled: true, identityRoles: [],
      }, admin()), 201).id;
      const { verificationToken } = ok(await node.mgmt.get(`/cas/${otherId}`, admin()));
      ok(await node.mgmt.request('POST', `/cas/${otherId}/verify`, { raw: makeLeaf(other, verificationToken).certPem, token: admin(), headers: { 'content-type': 'text/plain' } }));
      await identityWith('pump-6');
      await refused(makeLeaf(other, 'impostor', { emails: ['pump-6@devices.example'] }), 'UNKNOWN_CERTIFICATE');
    });
  });
});
