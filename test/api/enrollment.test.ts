// Enrollment over HTTPS with real keys and certificates: enrollment records and JWTs, ott (CSR
// → certificate), updb, refusals (unknown, expired, used, wrong method), one outstanding per
// method, refresh, re-enroll, edge router enrollment and extension, ottca and CA auto-enrollment.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { createCsr, newKey } from '../support/csr.js';
import { certLogin, mtlsClients } from '../support/mtls.js';
import { startTestNode, type TestNode } from '../support/test-node.js';
import { makeCa, makeLeaf, type TestCert } from '../support/test-pki.js';
import { ok, fails, fingerprintOf } from '../support/assertions.js';

const MINUTE = 60_000;

describe('enrollment', () => {
  let node: TestNode;
  let issuer: string;
  let names = 0;
  before(async () => {
    node = await startTestNode();
    issuer = node.handle.url;
  });
  after(async () => {
    await node.close();
  });

  const admin = () => node.adminToken;
  const createIdentity = async (enrollment?: Record<string, unknown>) => {
    const body = { name: `enrollee-${++names}`, type: 'Device', isAdmin: false, ...(enrollment ? { enrollment } : {}) };
    return ok(await node.mgmt.post('/identities', body, admin()), 201).id as string;
  };
  const identity = async (id: string) => ok(await node.mgmt.get(`/identities/${id}`, admin()));
  const inMinutes = (minutes: number) => new Date(Date.now() + minutes * MINUTE).toISOString();
  const enrollOtt = (token: string, csr: string) => node.client.post('/enroll/ott', { token, clientCsr: csr });

  describe('enrollment records and JWTs', () => {
    it('creates an ott enrollment with the identity and shows it on the identity detail', async () => {
      const id = await createIdentity({ ott: true });
      const detail = await identity(id);
      const ott = detail.enrollment.ott;
      assert.deepEqual(Object.keys(ott).sort(), ['expiresAt', 'id', 'jwt', 'token']);
      assert.match(ott.token, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const minutes = (Date.parse(ott.expiresAt) - Date.parse(detail.createdAt)) / MINUTE;
      assert.equal(minutes, 180);
      const record = ok(await node.mgmt.get(`/enrollments/${ott.id}`, admin()));
      assert.equal(record.method, 'ott');
      assert.equal(record.identityId, id);
      assert.equal(record.identity.id, id);
      assert.equal(record.token, ott.token);
      assert.equal(record.jwt, ott.jwt);
    });

    it('signs the JWT with the node CA: em, iss without trailing slash, sub, jti, aud [""], exp, ctrls, kid', async () => {
      const id = await createIdentity({ ott: true });
      const { jwt, token, expiresAt } = (await identity(id)).enrollment.ott;
      const { payload } = await jwtVerify(jwt, await importX509(node.handle.caPem, 'RS256'), { issuer });
      assert.equal(payload.em, 'ott');
      assert.equal(payload.iss, issuer);
      assert.ok(!String(payload.iss).endsWith('/'));
      assert.equal(payload.sub, id);
      assert.equal(payload.jti, token);
      assert.deepEqual(payload.aud, ['']);
      assert.equal(payload.exp, Math.floor(Date.parse(expiresAt) / 1000));
      assert.deepEqual(payload.ctrls, [issuer]);
      assert.equal(payload.iat, undefined);
      const header = decodeProtectedHeader(jwt);
      assert.equal(header.alg, 'RS256');
      assert.equal(header.kid, fingerprintOf(node.handle.caPem));
    });

    it('creates updb and ottca enrollments from the identity body', async () => {
      const username = `user-${names}-updb`;
      const updbId = await createIdentity({ updb: username });
      const updb = (await identity(updbId)).enrollment.updb;
      assert.equal(updb.username, username);
      const { payload } = await jwtVerify(updb.jwt, await importX509(node.handle.caPem, 'RS256'));
      assert.equal(payload.em, 'updb');
      const res = await node.mgmt.post('/identities', { name: 'bad-ottca', type: 'User', isAdmin: false, enrollment: { ottca: 'no-such-ca' } }, admin());
      fails(res, 400, 'COULD_NOT_VALIDATE');
      assert.equal(res.body.error.cause.field, 'enrollment.ottca');
    });

    it('lists enrollments with filters and under /identities/{id}/enrollments', async () => {
      const id = await createIdentity({ ott: true });
      const list = ok(await node.mgmt.get(`/enrollments?filter=${encodeURIComponent(`identityId = "${id}"`)}`, admin()));
      assert.equal(list.length, 1);
      assert.equal(list[0].method, 'ott');
      const related = ok(await node.mgmt.get(`/identities/${id}/enrollments`, admin()));
      assert.deepEqual(related.map((e: { id: string }) => e.id), [list[0].id]);
    });

    it('POST /enrollments creates one per method and answers 409 ENROLLMENT_EXISTS for a second', async () => {
      const id = await createIdentity();
      const created = ok(await node.mgmt.post('/enrollments', { method: 'ott', identityId: id, expiresAt: inMinutes(30) }, admin()), 201);
      const detail = await identity(id);
      assert.equal(detail.enrollment.ott.id, created.id);
      fails(await node.mgmt.post('/enrollments', { method: 'ott', identityId: id, expiresAt: inMinutes(30) }, admin()), 409, 'ENROLLMENT_EXISTS');
      ok(await node.mgmt.post('/enrollments', { method: 'updb', identityId: id, username: `second-${id}`, expiresAt: inMinutes(30) }, admin()), 201);
    });

    it('POST /enrollments validates identity, expiry, method, username and CA', async () => {
      const id = await createIdentity();
      const field = async (body: Record<string, unknown>, name: string) => {
        const res = await node.mgmt.post('/enrollments', body, admin());
        fails(res, 400, 'COULD_NOT_VALIDATE');
        assert.equal(res.body.error.cause.field, name);
      };
      await field({ method: 'ott', expiresAt: inMinutes(5) }, 'identityId');
      await field({ method: 'ott', identityId: 'missing', expiresAt: inMinutes(5) }, 'identityId');
      await field({ method: 'ott', identityId: id }, 'expiresAt');
      await field({ method: 'ott', identityId: id, expiresAt: inMinutes(-5) }, 'expiresAt');
      await field({ method: 'erott', identityId: id, expiresAt: inMinutes(5) }, 'method');
      await field({ method: 'updb', identityId: id, expiresAt: inMinutes(5) }, 'username');
      await field({ method: 'ottca', identityId: id, expiresAt: inMinutes(5) }, 'caId');
      await field({ method: 'ottca', identityId: id, caId: 'nope', expiresAt: inMinutes(5) }, 'caId');
    });

    it('refresh issues a new token, JWT and expiry; the old token no longer enrolls', async () => {
      const id = await createIdentity({ ott: true });
      const before = (await identity(id)).enrollment.ott;
      const expiresAt = inMinutes(600);
      const res = ok(await node.mgmt.post(`/enrollments/${before.id}/refresh`, { expiresAt }, admin()));
      assert.equal(res.id, before.id);
      const after = ok(await node.mgmt.get(`/enrollments/${before.id}`, admin()));
      assert.notEqual(after.token, before.token);
      assert.notEqual(after.jwt, before.jwt);
      assert.equal(Date.parse(after.expiresAt), Date.parse(expiresAt));
      const { payload } = await jwtVerify(after.jwt, await importX509(node.handle.caPem, 'RS256'));
      assert.equal(payload.jti, after.token);
      fails(await enrollOtt(before.token, createCsr(newKey('ec'), 'x')), 400, 'INVALID_ENROLLMENT_TOKEN');
      fails(await node.mgmt.post(`/enrollments/${before.id}/refresh`, { expiresAt: inMinutes(-1) }, admin()), 400, 'COULD_NOT_VALIDATE');
      fails(await node.mgmt.post('/enrollments/nope/refresh', { expiresAt }, admin()), 404, 'NOT_FOUND');
    });

    it('deleting the identity deletes its enrollments; deleting an enrollment leaves the identity', async () => {
      const id = await createIdentity({ ott: true });
      const enrollmentId = (await identity(id)).enrollment.ott.id;
      ok(await node.mgmt.delete(`/identities/${id}`, admin()));
      fails(await node.mgmt.get(`/enrollments/${enrollmentId}`, admin()), 404, 'NOT_FOUND');
      const other = await createIdentity({ ott: true });
      ok(await node.mgmt.delete(`/enrollments/${(await identity(other)).enrollment.ott.id}`, admin()));
      assert.deepEqual((await identity(other)).enrollment, {});
    });
  });

  describe('ott', () => {
    it('signs the CSR, returns the certificate, creates a network-issued cert authenticator and uses up the token', async () => {
      const id = await createIdentity({ ott: true });
      const { token } = (await identity(id)).enrollment.ott;
      const key = newKey('rsa');
      const data = ok(await enrollOtt(token, createCsr(key, 'my-laptop')));
      const cert = new X509Certificate(data.cert);
      assert.ok(cert.verify(new X509Certificate(node.handle.caPem).publicKey));
      assert.ok(cert.checkPrivateKey(key.privateKey));
      assert.equal(data.ca, node.handle.caPem);
      const detail = await identity(id);
      assert.deepEqual(detail.enrollment, {});
      assert.equal(detail.authenticators.cert.fingerprint, fingerprintOf(data.cert));
      const auth = ok(await node.mgmt.get(`/authenticators/${detail.authenticators.cert.id}`, admin()));
      assert.equal(auth.method, 'cert');
      assert.equal(auth.isIssuedByNetwork, true);
      assert.equal(auth.certPem, cert.toString());
      fails(await enrollOtt(token, createCsr(newKey('ec'), 'again')), 400, 'INVALID_ENROLLMENT_TOKEN');
    });

    it('accepts a PEM body on /enroll?method=ott and answers PEM to Accept: application/x-pem-file', async () => {
      const id = await createIdentity({ ott: true });
      const { token } = (await identity(id)).enrollment.ott;
      const res = await node.client.request('POST', `/enroll?method=ott&token=${token}`, {
        raw: createCsr(newKey('ec'), 'pem-body'),
        headers: { 'content-type': 'application/x-pem-file', accept: 'application/x-pem-file' },
      });
      assert.equal(res.status, 200, res.text);
      assert.match(res.headers.get('content-type') ?? '', /application\/x-pem-file/);
      assert.equal(new X509Certificate(res.text).subject, 'CN=pem-body');
    });

    it('refuses an unknown token, a malformed CSR and the wrong method', async () => {
      fails(await enrollOtt('6f1b5a4c-0000-4000-8000-000000000000', createCsr(newKey('ec'), 'x')), 400, 'INVALID_ENROLLMENT_TOKEN');
      fails(await enrollOtt('', createCsr(newKey('ec'), 'x')), 400, 'INVALID_ENROLLMENT_TOKEN');
      const id = await createIdentity({ ott: true });
      const { token } = (await identity(id)).enrollment.ott;
      fails(await enrollOtt(token, 'not a csr'), 400, 'COULD_NOT_PROCESS_CSR');
      fails(await node.client.post(`/enroll/updb?token=${token}`, { password: 'whatever-1' }), 400, 'INVALID_ENROLL_METHOD');
      assert.ok((await identity(id)).enrollment.ott, 'a refused attempt leaves the enrollment');
    });

    it('refuses an expired enrollment with 400 ENROLLMENT_EXPIRED', async () => {
      const id = await createIdentity();
      const expiresAt = new Date(Date.now() + 1500).toISOString();
      const created = ok(await node.mgmt.post('/enrollments', { method: 'ott', identityId: id, expiresAt }, admin()), 201);
      const { token } = ok(await node.mgmt.get(`/enrollments/${created.id}`, admin()));
      await new Promise((r) => setTimeout(r, 1700));
      fails(await enrollOtt(token, createCsr(newKey('ec'), 'late')), 400, 'ENROLLMENT_EXPIRED');
    });
  });

  describe('updb', () => {
    it('sets the password (policy rules apply) and the identity logs in with it', async () => {
      const username = `updb-user-${names}`;
      const id = await createIdentity({ updb: username });
      const { token } = (await identity(id)).enrollment.updb;
      const weak = await node.client.post(`/enroll/updb?token=${token}`, { password: 'abc' });
      fails(weak, 400, 'COULD_NOT_VALIDATE');
      assert.equal(weak.body.error.cause.field, 'password');
      const data = ok(await node.client.post(`/enroll/updb?token=${token}`, { password: 'updb-password-1' }));
      assert.equal(data.username, username);
      const detail = await identity(id);
      assert.deepEqual(detail.enrollment, {});
      assert.equal(detail.authenticators.updb.username, username);
      const sessionToken = await node.client.login(username, 'updb-password-1');
      assert.equal(ok(await node.client.get('/current-api-session', sessionToken)).identityId, id);
    });

    it('also enrolls through /enroll?method=updb', async () => {
      const username = `updb-generic-${names}`;
      const id = await createIdentity({ updb: username });
      const { token } = (await identity(id)).enrollment.updb;
      ok(await node.client.post(`/enroll?method=updb&token=${token}`, { password: 'generic-pass-1' }));
      await node.client.login(username, 'generic-pass-1');
    });
  });

  describe('re-enroll', () => {
    it('turns a updb authenticator into a updb enrollment and a certificate into an ott enrollment', async () => {
      const user = await node.createUser(`re-enroll-${++names}`);
      const auths = ok(await node.mgmt.get(`/identities/${user.id}/authenticators`, admin()));
      const created = ok(await node.mgmt.post(`/authenticators/${auths[0].id}/re-enroll`, { expiresAt: inMinutes(60) }, admin()), 201);
      const enrollment = ok(await node.mgmt.get(`/enrollments/${created.id}`, admin()));
      assert.equal(enrollment.method, 'updb');
      assert.equal(enrollment.username, user.username);
      fails(await node.mgmt.get(`/authenticators/${auths[0].id}`, admin()), 404, 'NOT_FOUND');
      fails(await node.client.get('/current-api-session', user.token), 401, 'UNAUTHORIZED');

      const id = await createIdentity({ ott: true });
      ok(await enrollOtt((await identity(id)).enrollment.ott.token, createCsr(newKey('ec'), 'reenroll-cert')));
      const certAuth = (await identity(id)).authenticators.cert;
      const again = ok(await node.mgmt.post(`/authenticators/${certAuth.id}/re-enroll`, { expiresAt: inMinutes(60) }, admin()), 201);
      assert.equal(ok(await node.mgmt.get(`/enrollments/${again.id}`, admin())).method, 'ott');
      assert.equal((await identity(id)).authenticators.cert, undefined);
    });

    it('needs a future expiresAt and an existing authenticator', async () => {
      const user = await node.createUser(`re-enroll-bad-${++names}`);
      const [auth] = ok(await node.mgmt.get(`/identities/${user.id}/authenticators`, admin()));
      fails(await node.mgmt.post(`/authenticators/${auth.id}/re-enroll`, {}, admin()), 400, 'COULD_NOT_VALIDATE');
      fails(await node.mgmt.post('/authenticators/nope/re-enroll', { expiresAt: inMinutes(5) }, admin()), 404, 'NOT_FOUND');
      fails(await node.mgmt.post(`/authenticators/${auth.id}/re-enroll`, { expiresAt: inMinutes(5) }, user.token), 401, 'UNAUTHORIZED');
    });
  });

  describe('edge routers', () => {
    const createRouter = async () => {
      const id = ok(await node.mgmt.post('/edge-routers', { name: `er-${++names}` }, admin()), 201).id as string;
      return { id, token: ok(await node.mgmt.get(`/edge-routers/${id}`, admin())).enrollmentToken as string };
    };

    it('signs a server and a client certificate; the router is verified and its token cleared', async () => {
      const { id, token } = await createRouter();
      const serverCsr = createCsr(newKey('ec'), 'router-host', { dnsNames: ['router.example'], ips: ['127.0.0.1'] });
      const clientKey = newKey('ec');
      const data = ok(await node.client.post('/enroll/erott', { token, serverCsr, clientCsr: createCsr(clientKey, id) }));
      const server = new X509Certificate(data.serverCert);
      const client = new X509Certificate(data.cert);
      assert.equal(server.subjectAltName, 'DNS:router.example, IP Address:127.0.0.1');
      assert.deepEqual(server.keyUsage, ['1.3.6.1.5.5.7.3.1']);
      assert.equal(client.subject, `CN=${id}`);
      assert.deepEqual(client.keyUsage, ['1.3.6.1.5.5.7.3.2']);
      assert.equal(data.ca, node.handle.caPem);
      const router = ok(await node.mgmt.get(`/edge-routers/${id}`, admin()));
      assert.equal(router.isVerified, true);
      assert.equal(router.fingerprint, fingerprintOf(data.cert));
      assert.equal(router.enrollmentToken, null);
      assert.equal(router.enrollmentJwt, null);
      fails(await node.client.post('/enroll/erott', { token, serverCsr, clientCsr: createCsr(clientKey, id) }), 400, 'INVALID_ENROLLMENT_TOKEN');
    });

    it('needs both CSRs and the router id as the client common name', async () => {
      const { id, token } = await createRouter();
      const serverCsr = createCsr(newKey('ec'), 'host');
      fails(await node.client.post('/enroll/erott', { token, clientCsr: createCsr(newKey('ec'), id) }), 400, 'MISSING_OR_INVALID_CSR');
      fails(await node.client.post('/enroll/erott', { token, serverCsr }), 400, 'MISSING_OR_INVALID_CSR');
      fails(await node.client.post('/enroll/erott', { token, serverCsr, clientCsr: createCsr(newKey('ec'), 'not-the-id') }), 400, 'EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID');
      ok(await node.client.post(`/enroll?method=erott&token=${token}`, { serverCertCsr: serverCsr, certCsr: createCsr(newKey('rsa'), id) }));
    });

    it('enrolls a transit router with trott through /enroll', async () => {
      const id = ok(await node.mgmt.post('/transit-routers', { name: `tr-${++names}` }, admin()), 201).id as string;
      const { enrollmentToken } = ok(await node.mgmt.get(`/transit-routers/${id}`, admin()));
      const body = { serverCertCsr: createCsr(newKey('ec'), 'tr-host'), certCsr: createCsr(newKey('ec'), id) };
      fails(await node.client.post(`/enroll?method=erott&token=${enrollmentToken}`, body), 400, 'INVALID_ENROLL_METHOD');
      const data = ok(await node.client.post(`/enroll?method=trott&token=${enrollmentToken}`, body));
      const router = ok(await node.mgmt.get(`/transit-routers/${id}`, admin()));
      assert.equal(router.isVerified, true);
      assert.equal(router.fingerprint, fingerprintOf(data.cert));
    });

    it('extends with the current certificate; after re-enroll that certificate no longer authenticates', async () => {
      const { id, token } = await createRouter();
      const clientKey = newKey('ec');
      const csrs = () => ({ serverCertCsr: createCsr(newKey('ec'), 'host'), certCsr: createCsr(clientKey, id) });
      const enrolled = ok(await node.client.post('/enroll/erott', { token, serverCsr: csrs().serverCertCsr, clientCsr: csrs().certCsr }));
      const router = mtlsClients(node, { certPem: enrolled.cert, keyPem: clientKey.keyPem });
      try {
        const extended = ok(await router.client.post('/enroll/extend/router', csrs()));
        assert.equal(ok(await node.mgmt.get(`/edge-routers/${id}`, admin())).fingerprint, fingerprintOf(extended.cert));
        const renewed = mtlsClients(node, { certPem: extended.cert, keyPem: clientKey.keyPem });
        try {
          fails(await router.client.post('/enroll/extend/router', csrs()), 401, 'UNAUTHORIZED');
          ok(await node.mgmt.post(`/edge-routers/${id}/re-enroll`, {}, admin()));
          assert.equal(ok(await node.mgmt.get(`/edge-routers/${id}`, admin())).fingerprint, '');
          fails(await renewed.client.post('/enroll/extend/router', csrs()), 401, 'UNAUTHORIZED');
        } finally {
          await renewed.close();
        }
      } finally {
        await router.close();
      }
    });
  });

  describe('third-party CAs', () => {
    let ca: TestCert;
    let caId: string;
    let caName: string;
    before(async () => {
      ca = makeCa('Enrollment Test CA');
      caName = `test-ca-${++names}`;
      const body = {
        name: caName, certPem: ca.certPem, isAutoCaEnrollmentEnabled: true, isOttCaEnrollmentEnabled: true, isAuthEnabled: true,
        identityRoles: ['from-ca'],
      };
      caId = ok(await node.mgmt.post('/cas', body, admin()), 201).id;
    });

    const verifyCa = async () => {
      const { verificationToken } = ok(await node.mgmt.get(`/cas/${caId}`, admin()));
      const proof = makeLeaf(ca, verificationToken);
      const res = await node.mgmt.request('POST', `/cas/${caId}/verify`, { raw: proof.certPem, token: admin(), headers: { 'content-type': 'text/plain' } });
      ok(res);
    };

    it('ottca needs a verified CA, then takes a client certificate from it', async () => {
      const id = await createIdentity({ ottca: caId });
      const { token, caId: enrollmentCaId, ca: caRef } = (await identity(id)).enrollment.ottca;
      assert.equal(enrollmentCaId, caId);
      assert.equal(caRef.id, caId);
      const device = makeLeaf(ca, 'device-7');
      const clients = mtlsClients(node, device);
      try {
        fails(await clients.client.post('/enroll/ottca', { token }), 400, 'ENROLLMENT_CA_NOT_VALID');
        await verifyCa();
        fails(await node.client.post('/enroll/ottca', { token }), 400, 'CERT_FAILED_VALIDATION');
        const stranger = mtlsClients(node, makeLeaf(makeCa('Other CA'), 'device-7'));
        try {
          fails(await stranger.client.post('/enroll/ottca', { token }), 400, 'CERT_FAILED_VALIDATION');
        } finally {
          await stranger.close();
        }
        ok(await clients.client.post('/enroll/ottca', { token }));
      } finally {
        await clients.close();
      }
      const detail = await identity(id);
      assert.deepEqual(detail.enrollment, {});
      assert.equal(detail.authenticators.cert.fingerprint, fingerprintOf(device.certPem));
      const login = await certLogin(node, device);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      assert.equal(login.body.data.identityId, id);
    });

    it('CA auto-enrollment creates a named identity with the CA roles and a cert authenticator', async () => {
      const sensor = makeLeaf(ca, 'sensor-1');
      const clients = mtlsClients(node, sensor);
      try {
        ok(await clients.client.post('/enroll?method=ca', {}));
        fails(await clients.client.post('/enroll/ca', {}), 409, 'CERT_IN_USE');
      } finally {
        await clients.close();
      }
      const found = ok(await node.mgmt.get(`/identities?filter=${encodeURIComponent(`name = "${caName}-sensor-1"`)}`, admin()));
      assert.equal(found.length, 1);
      assert.deepEqual(found[0].roleAttributes, ['from-ca']);
      assert.equal(found[0].authenticators.cert.fingerprint, fingerprintOf(sensor.certPem));
      const twin = mtlsClients(node, makeLeaf(ca, 'sensor-1'));
      try {
        ok(await twin.client.post('/enroll/ca', {}));
      } finally {
        await twin.close();
      }
      const second = ok(await node.mgmt.get(`/identities?filter=${encodeURIComponent(`name = "${caName}-sensor-1000001"`)}`, admin()));
      assert.equal(second.length, 1);
      const login = await certLogin(node, sensor);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      assert.equal(login.body.data.identityId, found[0].id);
    });

    it('CA auto-enrollment refuses certificates no auto-enrolling CA vouches for', async () => {
      const clients = mtlsClients(node, makeLeaf(makeCa('Unknown CA'), 'sensor-x'));
      try {
        fails(await clients.client.post('/enroll/ca', {}), 400, 'CERT_FAILED_VALIDATION');
      } finally {
        await clients.close();
      }
      fails(await node.client.post('/enroll/ca', {}), 400, 'CERT_FAILED_VALIDATION');
    });

    it('re-enrolling a certificate from the CA gives an ottca enrollment; deleting the CA deletes it', async () => {
      const device = makeLeaf(ca, 'device-re');
      const id = await createIdentity({ ottca: caId });
      const clients = mtlsClients(node, device);
      try {
        ok(await clients.client.post('/enroll/ottca', { token: (await identity(id)).enrollment.ottca.token }));
      } finally {
        await clients.close();
      }
      const created = ok(await node.mgmt.post(`/authenticators/${(await identity(id)).authenticators.cert.id}/re-enroll`, { expiresAt: inMinutes(60) }, admin()), 201);
      const enrollment = ok(await node.mgmt.get(`/enrollments/${created.id}`, admin()));
      assert.equal(enrollment.method, 'ottca');
      assert.equal(enrollment.caId, caId);
      ok(await node.mgmt.delete(`/cas/${caId}`, admin()));
      fails(await node.mgmt.get(`/enrollments/${created.id}`, admin()), 404, 'NOT_FOUND');
    });
  });
});
