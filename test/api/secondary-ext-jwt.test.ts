// The auth policy's secondary.requireExtJwtSigner over HTTPS: a password or certificate login
// makes a partial session with the EXT-JWT auth query; as upstream, each request passes the
// factor by carrying a valid bearer token of that signer for the same identity; with
// secondary.requireTotp both factors must be satisfied.

import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importPKCS8, SignJWT } from 'jose';
import { createGuardrails, generateSync } from 'otplib';
import { setMfaClock } from '../../src/domain/mfa-clock.js';
import { certLogin } from '../support/mtls.js';
import { startTestNode, type ApiClient, type ApiResponse, type TestNode } from '../support/test-node.js';
import { makeLeaf, makeSelfSigned, type TestCert } from '../support/test-pki.js';

type SigningKey = Parameters<SignJWT['sign']>[0];

const AUDIENCE = 'weft-secondary';
const PASSWORD = 'secondary-pw-1';
const NOW = Date.UTC(2024, 5, 1, 8, 0, 10);
const MFA_QUERY = { typeId: 'MFA', provider: 'ziti', format: 'alphaNumeric', httpMethod: 'POST', httpUrl: './authenticate/mfa', minLength: 4, maxLength: 6 };

let node: TestNode;
let seq = 0;
const unique = (prefix: string) => `${prefix}-${++seq}`;
const admin = () => node.adminToken;

interface Signer {
  id: string;
  issuer: string;
  kid: string;
  key: SigningKey;
}
let required: Signer;
let other: Signer;
let extJwtQuery: Record<string, unknown>;

async function createSigner(issuer: string, extra: Record<string, unknown> = {}): Promise<Signer> {
  const cert = makeSelfSigned(unique('secondary-signer'));
  const kid = unique('kid');
  const res = await node.mgmt.post('/external-jwt-signers', {
    name: unique('signer'), audience: AUDIENCE, enabled: true, certPem: cert.certPem, kid, issuer, ...extra,
  }, admin());
  assert.equal(res.status, 201, res.text);
  const pem = createPrivateKey(cert.keyPem).export({ type: 'pkcs8', format: 'pem' }).toString();
  return { id: res.body.data.id as string, issuer, kid, key: await importPKCS8(pem, 'RS256') };
}

function signToken(signer: Signer, sub: string, expiresIn = 300): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: signer.kid })
    .setIssuer(signer.issuer)
    .setAudience(AUDIENCE)
    .setSubject(sub)
    .setIssuedAt(now - 600)
    .setExpirationTime(now + expiresIn)
    .sign(signer.key);
}

/** A valid token of the required signer naming `sub`. */
function requiredToken(sub: string): Promise<string> {
  return signToken(required, sub);
}

async function createPolicy(secondary: { requireTotp: boolean; requireExtJwtSigner: string | null }): Promise<string> {
  const res = await node.mgmt.post('/auth-policies', {
    name: unique('secondary-policy'),
    primary: {
      cert: { allowed: true, allowExpiredCerts: true },
      updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 },
      extJwt: { allowed: true, allowedSigners: [] },
    },
    secondary,
  }, admin());
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

/** An identity under `policyId` with a updb authenticator. */
async function createUser(policyId: string): Promise<{ id: string; username: string }> {
  const created = await node.mgmt.post('/identities', { name: unique('secondary-user'), type: 'User', isAdmin: false, authPolicyId: policyId }, admin());
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id as string;
  const username = unique('secondary-login');
  const auth = await node.mgmt.post('/authenticators', { method: 'updb', identityId: id, username, password: PASSWORD }, admin());
  assert.equal(auth.status, 201, auth.text);
  return { id, username };
}

async function passwordLogin(username: string, headers: Record<string, string> = {}, api: ApiClient = node.mgmt): Promise<{ token: string; session: any }> {
  const res = await api.request('POST', '/authenticate?method=password', { body: { username, password: PASSWORD }, headers });
  assert.equal(res.status, 200, res.text);
  return { token: res.headers.get('zt-session')!, session: res.body.data };
}

/** A request with the session token and, when given, the bearer token. */
function call(method: string, path: string, session: string, bearer?: string, api: ApiClient = node.mgmt): Promise<ApiResponse> {
  return api.request(method, path, { token: session, headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` } });
}

function assertUnauthorized(res: ApiResponse): void {
  assert.equal(res.status, 401, res.text);
  assert.equal(res.body.error.code, 'UNAUTHORIZED');
}

before(async () => {
  node = await startTestNode();
  required = await createSigner('https://idp.test/secondary', { externalAuthUrl: 'https://idp.test/authorize', clientId: 'weft-cli', scopes: ['openid', 'profile'] });
  other = await createSigner('https://idp.test/other');
  extJwtQuery = { typeId: 'EXT-JWT', provider: 'url', id: required.id, httpUrl: 'https://idp.test/authorize', clientId: 'weft-cli', scopes: ['openid', 'profile'] };
});
after(async () => {
  await node?.close();
});

describe('secondary.requireExtJwtSigner', () => {
  let user: { id: string; username: string };
  before(async () => {
    user = await createUser(await createPolicy({ requireTotp: false, requireExtJwtSigner: required.id }));
  });

  it('makes a password login partial with the EXT-JWT auth query', async () => {
    const { token, session } = await passwordLogin(user.username);
    assert.deepEqual(session.authQueries, [extJwtQuery]);
    assert.equal(session.isMfaRequired, false);
    assertUnauthorized(await call('GET', '/current-identity', token));
    assertUnauthorized(await node.client.get('/services', token));
    const current = await call('GET', '/current-api-session', token);
    assert.equal(current.status, 200, current.text);
    assert.deepEqual(current.body.data.authQueries, [extJwtQuery]);
  });

  it('allows each request that carries a valid token of the signer, and only those', async () => {
    const { token } = await passwordLogin(user.username);
    const jwt = await requiredToken(user.id);
    const me = await call('GET', '/current-identity', token, jwt);
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.data.id, user.id);
    assert.equal((await call('GET', '/services', token, jwt, node.client)).status, 200);
    const current = await call('GET', '/current-api-session', token, jwt);
    assert.deepEqual(current.body.data.authQueries, []);
    assertUnauthorized(await call('GET', '/current-identity', token));
    assert.equal((await call('GET', '/controllers', token, jwt)).status, 200, 'an authenticated read with the token');
    assertUnauthorized(await call('GET', '/controllers', token));
  });

  it('completes the session at login when the login request carries the token', async () => {
    const { token, session } = await passwordLogin(user.username, { authorization: `Bearer ${await requiredToken(user.id)}` });
    assert.deepEqual(session.authQueries, []);
    assert.equal((await call('GET', '/current-identity', token, await requiredToken(user.id))).status, 200);
  });

  it('refuses a token for another identity, from another signer, expired, or not a JWT', async () => {
    const { token } = await passwordLogin(user.username);
    const stranger = await createUser(await createPolicy({ requireTotp: false, requireExtJwtSigner: null }));
    assertUnauthorized(await call('GET', '/current-identity', token, await requiredToken(stranger.id)));
    assertUnauthorized(await call('GET', '/current-identity', token, await signToken(other, user.id)));
    assertUnauthorized(await call('GET', '/current-identity', token, await signToken(required, user.id, -60)));
    assertUnauthorized(await call('GET', '/current-identity', token, 'not-a-jwt'));
    assert.deepEqual((await call('GET', '/current-api-session', token, await signToken(other, user.id))).body.data.authQueries, [extJwtQuery]);
  });

  it('makes a certificate login partial too', async () => {
    const nodeCa: TestCert = { certPem: node.handle.caPem, keyPem: await readFile(join(node.dataDir, 'pki', 'ca.key.pem'), 'utf8') };
    const device = makeLeaf(nodeCa, unique('secondary-device'));
    assert.equal((await node.mgmt.post('/authenticators', { method: 'cert', identityId: user.id, certPem: device.certPem }, admin())).status, 201);
    const login = await certLogin(node, device);
    assert.equal(login.status, 200, JSON.stringify(login.body));
    assert.deepEqual(login.body.data.authQueries, [extJwtQuery]);
    assertUnauthorized(await call('GET', '/current-identity', login.token!, undefined, node.client));
    assert.equal((await call('GET', '/current-identity', login.token!, await requiredToken(user.id), node.client)).status, 200);
  });

  it('leaves identities whose policy requires no signer unaffected', async () => {
    const plain = await createUser(await createPolicy({ requireTotp: false, requireExtJwtSigner: null }));
    const { token, session } = await passwordLogin(plain.username);
    assert.deepEqual(session.authQueries, []);
    assert.equal((await call('GET', '/current-identity', token)).status, 200);
  });
});

describe('secondary.requireExtJwtSigner with secondary.requireTotp', () => {
  const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });
  let user: { id: string; username: string };
  before(async () => {
    setMfaClock(() => NOW);
    user = await createUser(await createPolicy({ requireTotp: true, requireExtJwtSigner: required.id }));
  });
  after(() => {
    setMfaClock();
  });

  it('needs both: the TOTP code once, the token on every request', async () => {
    const { token, session } = await passwordLogin(user.username);
    assert.deepEqual(session.authQueries, [MFA_QUERY, extJwtQuery]);
    const jwt = await requiredToken(user.id);
    assertUnauthorized(await call('GET', '/current-identity', token, jwt));
    assert.deepEqual((await call('GET', '/current-api-session', token, jwt)).body.data.authQueries, [MFA_QUERY]);

    assert.equal((await call('POST', '/current-identity/mfa', token)).status, 201);
    const detail = (await call('GET', '/current-identity/mfa', token)).body.data;
    const secret = new URL(detail.provisioningUrl).searchParams.get('secret')!;
    const code = generateSync({ secret, epoch: Math.floor(NOW / 1000), guardrails });
    const verified = await node.mgmt.post('/current-identity/mfa/verify', { code }, token);
    assert.equal(verified.status, 200, verified.text);

    assertUnauthorized(await call('GET', '/current-identity', token));
    assert.deepEqual((await call('GET', '/current-api-session', token)).body.data.authQueries, [extJwtQuery]);
    assert.equal((await call('GET', '/current-identity', token, jwt)).status, 200);
  });
});
