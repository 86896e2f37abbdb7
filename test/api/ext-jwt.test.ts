// External JWT signers and ext-jwt login over HTTP: signer CRUD and validation with real
// certificates; logins with tokens signed by a test signer, once through the signer's
// certificate and once through a JWKS endpoint served by the test (plain http on loopback);
// and every refusal (401 INVALID_AUTH) asserted by the reason in its cause.

import assert from 'node:assert/strict';
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, importPKCS8, SignJWT, type JWTPayload } from 'jose';
import { makeSelfSigned, type TestCert } from '../support/test-pki.js';
import { startTestNode, type ApiClient, type ApiResponse, type TestNode } from '../support/test-node.js';

type SigningKey = Parameters<SignJWT['sign']>[0];

let node: TestNode;
let seq = 0;
const admin = () => node.adminToken;
const unique = (prefix: string) => `${prefix}-${++seq}`;
const AUDIENCE = 'weft-api';
const now = () => Math.floor(Date.now() / 1000);

let certSigner: { id: string; issuer: string; cert: TestCert; key: SigningKey };
let jwksSigner: { id: string; issuer: string; key: SigningKey; kid: string };
let jwksServer: Server;
let jwksUrl: string;
let otherKey: SigningKey;

async function pkcs8(cert: TestCert): Promise<SigningKey> {
  const pem = createPrivateKey(cert.keyPem).export({ type: 'pkcs8', format: 'pem' }).toString();
  return importPKCS8(pem, 'RS256');
}

async function createSigner(body: Record<string, unknown>): Promise<string> {
  const res = await node.mgmt.post('/external-jwt-signers', { name: unique('signer'), audience: AUDIENCE, enabled: true, ...body }, admin());
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

async function readSigner(id: string): Promise<Record<string, any>> {
  const res = await node.mgmt.get(`/external-jwt-signers/${id}`, admin());
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function createIdentity(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await node.mgmt.post('/identities', { name: unique('jwt-identity'), type: 'User', isAdmin: false, ...extra }, admin());
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

async function createPolicy(extJwt: { allowed: boolean; allowedSigners: string[] }): Promise<string> {
  const res = await node.mgmt.post('/auth-policies', {
    name: unique('jwt-policy'),
    primary: {
      cert: { allowed: true, allowExpiredCerts: true },
      updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 },
      extJwt,
    },
    secondary: { requireTotp: false, requireExtJwtSigner: null },
  }, admin());
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

interface TokenOptions {
  iss: string;
  sub?: string;
  kid?: string | null;
  key: SigningKey;
  aud?: string | string[];
  exp?: number;
  nbf?: number;
  claims?: JWTPayload;
}

function sign(opts: TokenOptions): Promise<string> {
  const jwt = new SignJWT({ ...opts.claims })
    .setProtectedHeader(opts.kid === null ? { alg: 'RS256' } : { alg: 'RS256', kid: opts.kid })
    .setIssuer(opts.iss)
    .setAudience(opts.aud ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? now() + 300);
  if (opts.sub !== undefined) jwt.setSubject(opts.sub);
  if (opts.nbf !== undefined) jwt.setNotBefore(opts.nbf);
  return jwt.sign(opts.key);
}

function certToken(sub: string, extra: Partial<TokenOptions> = {}): Promise<string> {
  return sign({ iss: certSigner.issuer, kid: 'cert-kid', key: certSigner.key, sub, ...extra });
}

function loginWith(jwt: string | undefined, api: ApiClient = node.mgmt): Promise<ApiResponse> {
  const headers: Record<string, string> = jwt === undefined ? {} : { authorization: `Bearer ${jwt}` };
  return api.request('POST', '/authenticate?method=ext-jwt', { headers });
}

async function assertLoggedIn(res: ApiResponse, identityId: string, api: ApiClient = node.mgmt): Promise<void> {
  assert.equal(res.status, 200, res.text);
  const token = res.headers.get('zt-session');
  assert.ok(token);
  assert.equal(res.body.data.identityId, identityId);
  const me = await api.get('/current-identity', token!);
  assert.equal(me.status, 200, me.text);
  assert.equal(me.body.data.id, identityId);
}

function assertRefused(res: ApiResponse, reason: string): void {
  assert.equal(res.status, 401, res.text);
  assert.equal(res.body.error.code, 'INVALID_AUTH');
  assert.equal(res.body.error.cause.reason, reason, res.text);
  assert.equal(typeof res.body.error.cause.message, 'string');
  assert.equal(res.headers.get('zt-session'), null);
}

before(async () => {
  node = await startTestNode();
  const cert = makeSelfSigned('ext-jwt-cert-signer');
  const certIssuer = 'https://idp.test/cert';
  certSigner = { id: await createSigner({ certPem: cert.certPem, kid: 'cert-kid', issuer: certIssuer }), issuer: certIssuer, cert, key: await pkcs8(cert) };
  otherKey = await pkcs8(makeSelfSigned('someone-else'));

  const pair = await generateKeyPair('RS256', { extractable: true });
  const kid = 'jwks-kid-1';
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' }] };
  jwksServer = createServer((req, res) => {
    if (req.url !== '/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
  const jwksIssuer = 'https://idp.test/jwks';
  jwksSigner = { id: await createSigner({ jwksEndpoint: jwksUrl, issuer: jwksIssuer }), issuer: jwksIssuer, key: pair.privateKey, kid };
});
after(async () => {
  await node?.close();
  await new Promise((resolve) => jwksServer?.close(resolve));
});

function assertFieldError(res: ApiResponse, field: string): void {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
  assert.equal(res.body.error.cause.field, field);
}

describe('POST /external-jwt-signers and GET /external-jwt-signers/:id', () => {
  it('presents a certificate signer with its derived certificate fields and defaults', async () => {
    const signer = await readSigner(certSigner.id);
    const x509 = new X509Certificate(certSigner.cert.certPem);
    assert.equal(signer.fingerprint, createHash('sha1').update(x509.raw).digest('hex'));
    assert.equal(signer.commonName, 'ext-jwt-cert-signer');
    assert.equal(signer.notBefore, new Date(x509.validFrom).toISOString());
    assert.equal(signer.notAfter, new Date(x509.validTo).toISOString());
    assert.equal(signer.jwksEndpoint, null);
    assert.equal(signer.kid, 'cert-kid');
    assert.equal(signer.issuer, certSigner.issuer);
    assert.equal(signer.audience, AUDIENCE);
    assert.equal(signer.claimsProperty, 'sub');
    assert.equal(signer.useExternalId, false);
    assert.equal(signer.enabled, true);
    assert.equal(signer.externalAuthUrl, null);
    assert.deepEqual(signer.scopes, []);
    assert.equal(signer.targetToken, 'ACCESS');
  });

  it('presents a JWKS signer without certificate fields', async () => {
    const signer = await readSigner(jwksSigner.id);
    assert.equal(signer.jwksEndpoint, jwksUrl);
    assert.equal(signer.certPem, null);
    assert.equal(signer.fingerprint, '');
    assert.equal(signer.commonName, '');
    assert.equal(signer.notBefore, '0001-01-01T00:00:00.000Z');
  });

  it('requires certPem or jwksEndpoint', async () => {
    const res = await node.mgmt.post('/external-jwt-signers', { name: unique('s'), issuer: unique('iss'), audience: 'a', enabled: true }, admin());
    assertFieldError(res, 'certPem');
  });

  it('refuses both certPem and jwksEndpoint', async () => {
    const res = await node.mgmt.post('/external-jwt-signers', {
      name: unique('s'), issuer: unique('iss'), audience: 'a', enabled: true, certPem: makeSelfSigned('both').certPem, jwksEndpoint: 'https://idp.example/jwks',
    }, admin());
    assertFieldError(res, 'jwksEndpoint');
  });

  it('refuses a JWKS endpoint over plain http off loopback', async () => {
    const res = await node.mgmt.post('/external-jwt-signers', { name: unique('s'), issuer: unique('iss'), audience: 'a', enabled: true, jwksEndpoint: 'http://idp.example/jwks' }, admin());
    assertFieldError(res, 'jwksEndpoint');
  });

  it('refuses a JWKS endpoint that is not a URL', async () => {
    const res = await node.mgmt.post('/external-jwt-signers', { name: unique('s'), issuer: unique('iss'), audience: 'a', enabled: true, jwksEndpoint: 'not a url' }, admin());
    assertFieldError(res, 'jwksEndpoint');
  });

  it('refuses certPem that is not a certificate', async () => {
    const res = await node.mgmt.post('/external-jwt-signers', { name: unique('s'), issuer: unique('iss'), audience: 'a', enabled: true, certPem: 'garbage' }, admin());
    assertFieldError(res, 'certPem');
  });

  it('refuses certPem with more than one certificate', async () => {
    const pem = makeSelfSigned('one').certPem + makeSelfSigned('two').certPem;
    const res = await node.mgmt.post('/external-jwt-signers', { name: unique('s'), issuer: unique('iss'), audience: 'a', enabled: true, certPem: pem }, admin());
    assertFieldError(res, 'certPem');
  });

  it('requires a unique issuer', async () => {
    const res = await node.mgmt.post('/external-jwt-signers', { name: unique('s'), issuer: certSigner.issuer, audience: 'a', enabled: true, jwksEndpoint: 'https://idp.example/jwks' }, admin());
    assertFieldError(res, 'issuer');
  });

  it('requires an audience', async () => {
    const res = await node.mgmt.post('/external-jwt-signers', { name: unique('s'), issuer: unique('iss'), enabled: true, jwksEndpoint: 'https://idp.example/jwks' }, admin());
    assertFieldError(res, 'audience');
  });

  it('stores a blank claimsProperty as sub', async () => {
    const id = await createSigner({ issuer: unique('blank-claims'), jwksEndpoint: 'https://idp.example/jwks', claimsProperty: '' });
    assert.equal((await readSigner(id)).claimsProperty, 'sub');
  });

  it('switches from a certificate to a JWKS endpoint when certPem is cleared in the same patch', async () => {
    const id = await createSigner({ issuer: unique('switch'), certPem: makeSelfSigned('switch').certPem });
    assertFieldError(await node.mgmt.patch(`/external-jwt-signers/${id}`, { jwksEndpoint: 'https://idp.example/jwks' }, admin()), 'jwksEndpoint');
    const res = await node.mgmt.patch(`/external-jwt-signers/${id}`, { jwksEndpoint: 'https://idp.example/jwks', certPem: null }, admin());
    assert.equal(res.status, 200, res.text);
    const signer = await readSigner(id);
    assert.equal(signer.fingerprint, '');
    assert.equal(signer.jwksEndpoint, 'https://idp.example/jwks');
  });

  it('is admin only', async () => {
    const user = await node.createUser(unique('signer-user'));
    assert.equal((await node.mgmt.get('/external-jwt-signers', user.token)).status, 401);
  });

  it('deletes an unreferenced signer', async () => {
    const id = await createSigner({ issuer: unique('delete-me'), jwksEndpoint: 'https://idp.example/jwks' });
    assert.equal((await node.mgmt.delete(`/external-jwt-signers/${id}`, admin())).status, 200);
    assert.equal((await node.mgmt.get(`/external-jwt-signers/${id}`, admin())).status, 404);
  });
});

describe('POST /authenticate?method=ext-jwt', () => {
  it('logs in with a token verified by the signer certificate', async () => {
    const identity = await createIdentity();
    await assertLoggedIn(await loginWith(await certToken(identity)), identity);
  });

  it('logs in with a token verified through the JWKS endpoint', async () => {
    const identity = await createIdentity();
    const jwt = await sign({ iss: jwksSigner.issuer, kid: jwksSigner.kid, key: jwksSigner.key, sub: identity });
    await assertLoggedIn(await loginWith(jwt), identity);
  });

  it('logs in on the client API too', async () => {
    const identity = await createIdentity();
    await assertLoggedIn(await loginWith(await certToken(identity), node.client), identity, node.client);
  });

  it('accepts an audience list that contains the signer audience', async () => {
    const identity = await createIdentity();
    await assertLoggedIn(await loginWith(await certToken(identity, { aud: ['other', AUDIENCE] })), identity);
  });

  it('uses the certificate fingerprint as kid when the signer has none', async () => {
    const cert = makeSelfSigned('no-kid-signer');
    const issuer = unique('https://idp.test/no-kid');
    await createSigner({ issuer, certPem: cert.certPem });
    const identity = await createIdentity();
    const fingerprint = createHash('sha1').update(new X509Certificate(cert.certPem).raw).digest('hex');
    await assertLoggedIn(await loginWith(await sign({ iss: issuer, kid: fingerprint, key: await pkcs8(cert), sub: identity })), identity);
  });

  it('matches the claim against externalId when the signer says so', async () => {
    const cert = makeSelfSigned('external-id-signer');
    const issuer = unique('https://idp.test/external');
    await createSigner({ issuer, certPem: cert.certPem, kid: unique('ext-kid'), useExternalId: true, claimsProperty: 'email' });
    const signer = (await node.mgmt.get(`/external-jwt-signers?filter=${encodeURIComponent(`issuer = "${issuer}"`)}`, admin())).body.data[0];
    const email = `${unique('person')}@example.test`;
    const identity = await createIdentity({ externalId: email });
    const key = await pkcs8(cert);
    await assertLoggedIn(await loginWith(await sign({ iss: issuer, kid: signer.kid, key, sub: 'ignored', claims: { email } })), identity);
    assertRefused(await loginWith(await sign({ iss: issuer, kid: signer.kid, key, sub: identity })), 'NO_MATCHING_IDENTITY');
  });

  it('honours an auth policy whose allowed signers list the signer', async () => {
    const identity = await createIdentity({ authPolicyId: await createPolicy({ allowed: true, allowedSigners: [certSigner.id] }) });
    await assertLoggedIn(await loginWith(await certToken(identity)), identity);
  });
});

describe('ext-jwt refusals (401 INVALID_AUTH, reason in the cause)', () => {
  let identity: string;
  before(async () => {
    identity = await createIdentity();
  });

  it('no bearer token', async () => {
    assertRefused(await loginWith(undefined), 'MISSING_TOKEN');
  });

  it('a bearer token that is not a JWT', async () => {
    assertRefused(await loginWith('not-a-jwt'), 'MALFORMED_TOKEN');
  });

  it('no kid in the token header', async () => {
    assertRefused(await loginWith(await certToken(identity, { kid: null })), 'MISSING_KID');
  });

  it('unknown issuer', async () => {
    assertRefused(await loginWith(await certToken(identity, { iss: 'https://nobody.test' })), 'UNKNOWN_ISSUER');
  });

  it('bad audience', async () => {
    assertRefused(await loginWith(await certToken(identity, { aud: 'someone-else' })), 'BAD_AUDIENCE');
  });

  it('unknown kid for a certificate signer', async () => {
    assertRefused(await loginWith(await certToken(identity, { kid: 'other-kid' })), 'UNKNOWN_KID');
  });

  it('unknown kid for a JWKS signer', async () => {
    const jwt = await sign({ iss: jwksSigner.issuer, kid: 'not-in-jwks', key: jwksSigner.key, sub: identity });
    assertRefused(await loginWith(jwt), 'UNKNOWN_KID');
  });

  it('expired token', async () => {
    assertRefused(await loginWith(await certToken(identity, { exp: now() - 60 })), 'EXPIRED');
  });

  it('token not valid yet', async () => {
    assertRefused(await loginWith(await certToken(identity, { nbf: now() + 3600 })), 'NOT_YET_VALID');
  });

  it('bad signature (certificate signer)', async () => {
    assertRefused(await loginWith(await certToken(identity, { key: otherKey })), 'BAD_SIGNATURE');
  });

  it('bad signature (JWKS signer)', async () => {
    const jwt = await sign({ iss: jwksSigner.issuer, kid: jwksSigner.kid, key: otherKey, sub: identity });
    assertRefused(await loginWith(jwt), 'BAD_SIGNATURE');
  });

  it('bad signature wins over expiry', async () => {
    assertRefused(await loginWith(await certToken(identity, { key: otherKey, exp: now() - 60 })), 'BAD_SIGNATURE');
  });

  it('no identity matches the claim', async () => {
    assertRefused(await loginWith(await certToken('no-such-identity')), 'NO_MATCHING_IDENTITY');
  });

  it('the claim is missing', async () => {
    assertRefused(await loginWith(await certToken(identity, { sub: undefined })), 'NO_MATCHING_IDENTITY');
  });

  it('disabled signer', async () => {
    const cert = makeSelfSigned('disabled-signer');
    const issuer = unique('https://idp.test/disabled');
    const id = await createSigner({ issuer, certPem: cert.certPem, kid: unique('disabled-kid'), enabled: false });
    const { kid } = await readSigner(id);
    assertRefused(await loginWith(await sign({ iss: issuer, kid, key: await pkcs8(cert), sub: identity })), 'SIGNER_DISABLED');
  });

  it('disabled identity', async () => {
    const disabled = await createIdentity();
    assert.equal((await node.mgmt.post(`/identities/${disabled}/disable`, { durationMinutes: 0 }, admin())).status, 200);
    assertRefused(await loginWith(await certToken(disabled)), 'IDENTITY_DISABLED');
  });

  it('auth policy does not allow ext-jwt', async () => {
    const denied = await createIdentity({ authPolicyId: await createPolicy({ allowed: false, allowedSigners: [] }) });
    assertRefused(await loginWith(await certToken(denied)), 'EXT_JWT_NOT_ALLOWED');
  });

  it('auth policy allows other signers only', async () => {
    const denied = await createIdentity({ authPolicyId: await createPolicy({ allowed: true, allowedSigners: [jwksSigner.id] }) });
    assertRefused(await loginWith(await certToken(denied)), 'SIGNER_NOT_ALLOWED');
  });

  it('an unreachable JWKS endpoint', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks.json`;
    await new Promise((resolve) => closed.close(resolve));
    const issuer = unique('https://idp.test/gone');
    await createSigner({ issuer, jwksEndpoint: url });
    assertRefused(await loginWith(await sign({ iss: issuer, kid: 'k', key: jwksSigner.key, sub: identity })), 'JWKS_UNAVAILABLE');
  });
});
