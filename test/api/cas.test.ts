// Third-party certificate authorities over HTTP: CRUD with real certificates, the CA checks,
// identity roles, name format and external-id claim rules, proof-of-possession verification
// with upstream's error codes, the CA enrollment JWT, and delete (record and ottca enrollments).

import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { makeCa, makeLeaf, makeSelfSigned, type TestCert } from '../support/test-pki.js';
import { startTestNode, type ApiResponse, type TestNode } from '../support/test-node.js';

let node: TestNode;
let seq = 0;
const admin = () => node.adminToken;
const unique = (prefix: string) => `${prefix}-${++seq}`;

before(async () => {
  node = await startTestNode();
});
after(async () => {
  await node?.close();
});

function caBody(ca: TestCert, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: unique('ca'),
    certPem: ca.certPem,
    isAutoCaEnrollmentEnabled: true,
    isOttCaEnrollmentEnabled: true,
    isAuthEnabled: true,
    identityRoles: ['from-ca'],
    ...extra,
  };
}

async function createCa(ca: TestCert = makeCa(unique('root')), extra: Record<string, unknown> = {}): Promise<string> {
  const res = await node.mgmt.post('/cas', caBody(ca, extra), admin());
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

async function readCa(id: string): Promise<Record<string, any>> {
  const res = await node.mgmt.get(`/cas/${id}`, admin());
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

function assertFieldError(res: ApiResponse, field: string): void {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
  assert.equal(res.body.error.cause.field, field);
}

function verify(id: string, pem: string, contentType = 'text/plain'): Promise<ApiResponse> {
  return node.mgmt.request('POST', `/cas/${id}/verify`, { raw: pem, token: admin(), headers: { 'content-type': contentType } });
}

const sha1 = (pem: string) => createHash('sha1').update(new X509Certificate(pem).raw).digest('hex');

describe('POST /cas and GET /cas/:id', () => {
  it('creates an unverified CA with its SHA-1 fingerprint, a verification token and the default name format', async () => {
    const root = makeCa('create-root');
    const id = await createCa(root);
    const ca = await readCa(id);
    assert.equal(ca.fingerprint, sha1(root.certPem));
    assert.match(ca.fingerprint, /^[0-9a-f]{40}$/);
    assert.equal(ca.isVerified, false);
    assert.equal(typeof ca.verificationToken, 'string');
    assert.match(ca.verificationToken, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a UUID, as the spec says');
    assert.equal(ca.identityNameFormat, '[caName]-[commonName]');
    assert.deepEqual(ca.identityRoles, ['from-ca']);
    assert.equal(ca.certPem, root.certPem);
    assert.equal(ca.isAuthEnabled, true);
    assert.equal('externalIdClaim' in ca, false);
    assert.deepEqual(ca._links.verify, { href: `./cas/${id}/verify` });
    assert.deepEqual(ca._links.jwt, { href: `./cas/${id}/jwt` });
  });

  it('refuses a certificate that is not a CA', async () => {
    assertFieldError(await node.mgmt.post('/cas', caBody(makeSelfSigned('not-a-ca')), admin()), 'certPem');
  });

  it('refuses certPem that is not a PEM certificate', async () => {
    assertFieldError(await node.mgmt.post('/cas', caBody({ certPem: 'hello', keyPem: '' }), admin()), 'certPem');
  });

  it('refuses a certificate already used by another CA', async () => {
    const root = makeCa('twice');
    const first = await createCa(root);
    const res = await node.mgmt.post('/cas', caBody(root), admin());
    assertFieldError(res, 'certPem');
    assert.match(res.body.error.cause.reason, new RegExp(`certificate already used as CA ${first}`));
  });

  it('requires isAuthEnabled', async () => {
    const body = caBody(makeCa('no-auth-flag'));
    delete body.isAuthEnabled;
    assertFieldError(await node.mgmt.post('/cas', body, admin()), 'isAuthEnabled');
  });

  it('refuses identity roles that look like selectors', async () => {
    assertFieldError(await node.mgmt.post('/cas', caBody(makeCa('roles'), { identityRoles: ['#sales'] }), admin()), 'identityRoles');
    assertFieldError(await node.mgmt.post('/cas', caBody(makeCa('roles2'), { identityRoles: ['@someone'] }), admin()), 'identityRoles');
  });

  it('replaces an empty identityNameFormat with the default', async () => {
    const id = await createCa(makeCa('format'), { identityNameFormat: '' });
    assert.equal((await readCa(id)).identityNameFormat, '[caName]-[commonName]');
    await node.mgmt.patch(`/cas/${id}`, { identityNameFormat: '[caId]-[requestedName]' }, admin());
    assert.equal((await readCa(id)).identityNameFormat, '[caId]-[requestedName]');
    await node.mgmt.patch(`/cas/${id}`, { identityNameFormat: '' }, admin());
    assert.equal((await readCa(id)).identityNameFormat, '[caName]-[commonName]');
  });

  it('is admin only', async () => {
    const user = await node.createUser(unique('ca-user'));
    assert.equal((await node.mgmt.get('/cas', user.token)).status, 401);
    assert.equal((await node.mgmt.post('/cas', caBody(makeCa('by-user')), user.token)).status, 401);
  });
});

describe('externalIdClaim', () => {
  const claim = { location: 'SAN_URI', matcher: 'SCHEME', matcherCriteria: 'spiffe', parser: 'SPLIT', parserCriteria: '/', index: 1 };

  it('stores a complete claim', async () => {
    const id = await createCa(makeCa('claim'), { externalIdClaim: claim });
    assert.deepEqual((await readCa(id)).externalIdClaim, claim);
  });

  it('defaults criteria to empty strings and index to 0', async () => {
    const id = await createCa(makeCa('claim-defaults'), { externalIdClaim: { location: 'COMMON_NAME', matcher: 'ALL', parser: 'NONE' } });
    assert.deepEqual((await readCa(id)).externalIdClaim, { location: 'COMMON_NAME', matcher: 'ALL', matcherCriteria: '', parser: 'NONE', parserCriteria: '', index: 0 });
  });

  it('refuses an unknown location', async () => {
    assertFieldError(await node.mgmt.post('/cas', caBody(makeCa('c1'), { externalIdClaim: { ...claim, location: 'SUBJECT' } }), admin()), 'externalIdClaim.location');
  });

  it('requires a matcher', async () => {
    const { matcher: _m, ...rest } = claim;
    assertFieldError(await node.mgmt.post('/cas', caBody(makeCa('c2'), { externalIdClaim: rest }), admin()), 'externalIdClaim.matcher');
  });

  it('refuses a matcher that does not fit the location', async () => {
    const body = caBody(makeCa('c3'), { externalIdClaim: { ...claim, location: 'COMMON_NAME', matcher: 'SCHEME' } });
    assertFieldError(await node.mgmt.post('/cas', body, admin()), 'externalIdClaim.matcher');
  });

  it('requires matcher criteria for PREFIX', async () => {
    const body = caBody(makeCa('c4'), { externalIdClaim: { ...claim, location: 'SAN_EMAIL', matcher: 'PREFIX', matcherCriteria: '' } });
    assertFieldError(await node.mgmt.post('/cas', body, admin()), 'externalIdClaim.matcherCriteria');
  });

  it('requires parser criteria for SPLIT', async () => {
    const body = caBody(makeCa('c5'), { externalIdClaim: { ...claim, parserCriteria: '' } });
    assertFieldError(await node.mgmt.post('/cas', body, admin()), 'externalIdClaim.parserCriteria');
  });

  it('refuses a negative index', async () => {
    assertFieldError(await node.mgmt.post('/cas', caBody(makeCa('c6'), { externalIdClaim: { ...claim, index: -1 } }), admin()), 'externalIdClaim.index');
  });

  it('patches the claim property by property and clears it with null', async () => {
    const id = await createCa(makeCa('claim-patch'), { externalIdClaim: claim });
    const res = await node.mgmt.patch(`/cas/${id}`, { externalIdClaim: { index: 0 } }, admin());
    assert.equal(res.status, 200, res.text);
    assert.deepEqual((await readCa(id)).externalIdClaim, { ...claim, index: 0 });
    await node.mgmt.patch(`/cas/${id}`, { externalIdClaim: null }, admin());
    assert.equal('externalIdClaim' in (await readCa(id)), false);
  });
});

describe('PUT and PATCH /cas/:id', () => {
  it('keeps certPem, fingerprint, verification state and token on replace', async () => {
    const root = makeCa('replace');
    const id = await createCa(root);
    const before = await readCa(id);
    const res = await node.mgmt.put(`/cas/${id}`, {
      name: unique('replaced'),
      certPem: makeCa('ignored').certPem,
      isAutoCaEnrollmentEnabled: false,
      isOttCaEnrollmentEnabled: false,
      isAuthEnabled: false,
      identityRoles: [],
      identityNameFormat: '[commonName]',
      isVerified: true,
    }, admin());
    assert.equal(res.status, 200, res.text);
    const after = await readCa(id);
    assert.equal(after.certPem, root.certPem);
    assert.equal(after.fingerprint, before.fingerprint);
    assert.equal(after.verificationToken, before.verificationToken);
    assert.equal(after.isVerified, false);
    assert.equal(after.isAuthEnabled, false);
    assert.equal(after.identityNameFormat, '[commonName]');
    assert.equal(after._links.jwt, undefined);
  });

  it('requires identityNameFormat on replace', async () => {
    const id = await createCa(makeCa('replace-format'));
    const res = await node.mgmt.put(`/cas/${id}`, {
      name: unique('r'), isAutoCaEnrollmentEnabled: false, isOttCaEnrollmentEnabled: false, isAuthEnabled: false, identityRoles: [],
    }, admin());
    assertFieldError(res, 'identityNameFormat');
  });

  it('ignores isVerified on patch', async () => {
    const id = await createCa(makeCa('patch-verified'));
    assert.equal((await node.mgmt.patch(`/cas/${id}`, { isVerified: true, isAuthEnabled: false }, admin())).status, 200);
    const ca = await readCa(id);
    assert.equal(ca.isVerified, false);
    assert.equal(ca.isAuthEnabled, false);
  });
});

describe('POST /cas/:id/verify', () => {
  it('verifies with a certificate whose CN is the verification token, signed by the CA', async () => {
    const root = makeCa('verify-ok');
    const id = await createCa(root);
    const { verificationToken } = await readCa(id);
    const res = await verify(id, makeLeaf(root, verificationToken).certPem);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, {});
    const ca = await readCa(id);
    assert.equal(ca.isVerified, true);
    assert.equal(ca._links.verify, undefined);
  });

  it('accepts application/x-pem-file', async () => {
    const root = makeCa('verify-pem-file');
    const id = await createCa(root);
    const res = await verify(id, makeLeaf(root, (await readCa(id)).verificationToken).certPem, 'application/x-pem-file');
    assert.equal(res.status, 200, res.text);
    assert.equal((await readCa(id)).isVerified, true);
  });

  it('answers 409 CA_ALREADY_VERIFIED once verified', async () => {
    const root = makeCa('verify-twice');
    const id = await createCa(root);
    const leaf = makeLeaf(root, (await readCa(id)).verificationToken);
    assert.equal((await verify(id, leaf.certPem)).status, 200);
    const res = await verify(id, leaf.certPem);
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'CA_ALREADY_VERIFIED');
  });

  it('answers 400 COULD_NOT_PARSE_BODY for a body that is not PEM', async () => {
    const id = await createCa();
    const res = await verify(id, 'not a certificate');
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'COULD_NOT_PARSE_BODY');
  });

  it('answers 400 COULD_NOT_PARSE_BODY for a PEM block that is not a certificate', async () => {
    const root = makeCa('verify-key');
    const id = await createCa(root);
    const res = await verify(id, root.keyPem);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'COULD_NOT_PARSE_BODY');
  });

  it('answers 400 INVALID_COMMON_NAME when the CN is not the verification token', async () => {
    const root = makeCa('verify-cn');
    const id = await createCa(root);
    const res = await verify(id, makeLeaf(root, 'someone-else').certPem);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'INVALID_COMMON_NAME');
    assert.equal((await readCa(id)).isVerified, false);
  });

  it('answers 400 CERTIFICATE_FAILED_VALIDATION when another CA signed the certificate', async () => {
    const id = await createCa(makeCa('verify-chain'));
    const res = await verify(id, makeLeaf(makeCa('impostor'), (await readCa(id)).verificationToken).certPem);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'CERTIFICATE_FAILED_VALIDATION');
    assert.equal((await readCa(id)).isVerified, false);
  });

  it('answers 400 CERTIFICATE_FAILED_VALIDATION for an expired certificate', async () => {
    const root = makeCa('verify-expired');
    const id = await createCa(root);
    const leaf = makeLeaf(root, (await readCa(id)).verificationToken, { fromDays: -10, toDays: -1 });
    const res = await verify(id, leaf.certPem);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'CERTIFICATE_FAILED_VALIDATION');
  });

  it('answers 404 for an unknown CA', async () => {
    const res = await verify('no-such-ca', makeSelfSigned('x').certPem);
    assert.equal(res.status, 404, res.text);
  });
});

describe('GET /cas/:id/jwt', () => {
  it('answers the CA enrollment JWT signed by the node CA', async () => {
    const id = await createCa();
    const res = await node.mgmt.request('GET', `/cas/${id}/jwt`, { token: admin() });
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/jwt/);
    const jwt = res.text;
    const header = decodeProtectedHeader(jwt);
    assert.equal(header.kid, sha1(node.handle.caPem));
    const key = await importX509(node.handle.caPem, String(header.alg));
    const { payload } = await jwtVerify(jwt, key);
    const version = await node.mgmt.get('/version');
    const base = String(version.body.data.apiVersions['edge-management'].v1.apiBaseUrls[0]).replace('/edge/management/v1', '');
    assert.equal(payload.iss, `${base}/`);
    assert.deepEqual(payload.aud, ['openziti-enroller']);
    assert.equal(payload.sub, id);
    assert.equal(payload.jti, id);
    assert.equal(payload.em, 'ca');
    assert.equal(payload.exp, undefined);
    assert.equal(payload.iat, undefined);
  });

  it('answers 404 for an unknown CA', async () => {
    assert.equal((await node.mgmt.get('/cas/no-such-ca/jwt', admin())).status, 404);
  });
});

describe('DELETE /cas/:id', () => {
  it('removes the CA record', async () => {
    const id = await createCa();
    assert.equal((await node.mgmt.delete(`/cas/${id}`, admin())).status, 200);
    assert.equal((await node.mgmt.get(`/cas/${id}`, admin())).status, 404);
    const list = await node.mgmt.get(`/cas?filter=${encodeURIComponent(`id = "${id}"`)}`, admin());
    assert.equal(list.body.meta.pagination.totalCount, 0);
  });

  it('removes the outstanding ottca enrollments of the CA', async () => {
    const root = makeCa('delete-enrollments');
    const id = await createCa(root);
    assert.equal((await verify(id, makeLeaf(root, (await readCa(id)).verificationToken).certPem)).status, 200);
    const identity = await node.mgmt.post('/identities', { name: unique('ottca-identity'), type: 'User', isAdmin: false }, admin());
    assert.equal(identity.status, 201, identity.text);
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const enrollment = await node.mgmt.post('/enrollments', { method: 'ottca', identityId: identity.body.data.id, caId: id, expiresAt }, admin());
    assert.equal(enrollment.status, 201, enrollment.text);
    const enrollmentId = enrollment.body.data.id as string;
    assert.equal((await node.mgmt.get(`/enrollments/${enrollmentId}`, admin())).status, 200);
    assert.equal((await node.mgmt.delete(`/cas/${id}`, admin())).status, 200);
    assert.equal((await node.mgmt.get(`/enrollments/${enrollmentId}`, admin())).status, 404);
    assert.equal((await node.mgmt.get(`/identities/${identity.body.data.id}`, admin())).status, 200);
  });

  it('answers 404 for an unknown CA', async () => {
    assert.equal((await node.mgmt.delete('/cas/no-such-ca', admin())).status, 404);
  });
});
