// TOTP MFA over HTTPS, with real codes computed here: enrollment and its statuses, the QR
// code, verification, partially authenticated sessions and their allow-list, /authenticate/mfa
// with TOTP and single-use recovery codes, recovery-code views and regeneration, deletes, and
// the auth policy's secondary.requireTotp. The TOTP clock is pinned (no test waits 30 s).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inflateSync } from 'node:zlib';
import { createGuardrails, generateSync } from 'otplib';
import { Agent, request } from 'undici';
import { setMfaClock } from '../../src/domain/mfa-clock.js';
import { startTestNode, type ApiClient, type ApiResponse, type TestNode } from '../support/test-node.js';

const MFA_QUERY = { typeId: 'MFA', provider: 'ziti', format: 'alphaNumeric', httpMethod: 'POST', httpUrl: './authenticate/mfa', minLength: 4, maxLength: 6 };
const PASSWORD = 'user-password-1';
/** The pinned TOTP time: 10 s into a 30 s step. */
const NOW = Date.UTC(2024, 5, 1, 8, 0, 10);
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });

let node: TestNode;
let dispatcher: Agent;

before(async () => {
  node = await startTestNode();
  dispatcher = new Agent({ connect: { ca: node.handle.caPem } });
  setMfaClock(() => NOW);
});
after(async () => {
  setMfaClock();
  await dispatcher?.close();
  await node?.close();
});

/** The TOTP code of `secret`, `steps` periods from the pinned time. */
function totp(secret: string, steps = 0): string {
  return generateSync({ secret, epoch: Math.floor(NOW / 1000) + steps * 30, guardrails });
}

/** A six-digit code that is valid nowhere in the ±2-step window. */
function wrongCode(secret: string): string {
  const valid = new Set([-2, -1, 0, 1, 2].map((s) => totp(secret, s)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

function withCode(api: ApiClient, method: string, path: string, token: string, code: string) {
  return api.request(method, path, { token, headers: { 'mfa-validation-code': code } });
}

async function login(api: ApiClient, username: string): Promise<{ token: string; session: any }> {
  const res = await api.post('/authenticate?method=password', { username, password: PASSWORD });
  assert.equal(res.status, 200, res.text);
  return { token: res.headers.get('zt-session')!, session: res.body.data };
}

/** Enrolls and verifies MFA for the token's identity; returns the secret and recovery codes. */
async function enrollVerified(token: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  assert.equal((await node.mgmt.post('/current-identity/mfa', undefined, token)).status, 201);
  const detail = (await node.mgmt.get('/current-identity/mfa', token)).body.data;
  const secret = new URL(detail.provisioningUrl).searchParams.get('secret')!;
  assert.equal((await node.mgmt.post('/current-identity/mfa/verify', { code: totp(secret) }, token)).status, 200);
  return { secret, recoveryCodes: detail.recoveryCodes };
}

async function rawGet(path: string, token: string): Promise<{ status: number; type: string; body: Buffer }> {
  const res = await fetch(`${node.mgmt.base}${path}`, { headers: { 'zt-session': token }, dispatcher } as RequestInit);
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

describe('MFA: not enrolled', () => {
  let user: { id: string; token: string };
  before(async () => {
    user = await node.createUser('mfa-none');
  });

  for (const [method, path, body] of [
    ['GET', '/current-identity/mfa', undefined],
    ['DELETE', '/current-identity/mfa', undefined],
    ['POST', '/current-identity/mfa/verify', { code: '123456' }],
    ['GET', '/current-identity/mfa/qr-code', undefined],
    ['GET', '/current-identity/mfa/recovery-codes', undefined],
    ['POST', '/current-identity/mfa/recovery-codes', { code: '123456' }],
  ] as const) {
    it(`${method} ${path} answers 404 NOT_FOUND`, async () => {
      assertError(await node.mgmt.request(method, path, { token: user.token, body }), 404, 'NOT_FOUND');
    });
  }

  it('POST /authenticate/mfa answers 409 MFA_NOT_ENROLLED', async () => {
    assertError(await node.mgmt.post('/authenticate/mfa', { code: '123456' }, user.token), 409, 'MFA_NOT_ENROLLED');
  });

  it('needs a session (401)', async () => {
    assertError(await node.mgmt.get('/current-identity/mfa'), 401, 'UNAUTHORIZED');
    assertError(await node.mgmt.post('/current-identity/mfa', undefined), 401, 'UNAUTHORIZED');
  });

  it('shows isMfaEnabled false on the identity', async () => {
    assert.equal((await node.mgmt.get(`/identities/${user.id}`, node.adminToken)).body.data.isMfaEnabled, false);
  });
});

describe('MFA: enrollment and verification', () => {
  let user: { id: string; token: string; username: string };
  let detail: any;
  let secret: string;
  before(async () => {
    user = await node.createUser('mfa-enroll');
  });

  it('POST /current-identity/mfa answers 201 with the id, a second time 409 MFA_EXISTS', async () => {
    const res = await node.mgmt.post('/current-identity/mfa', undefined, user.token);
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.data.id, /^[0-9a-zA-Z.-]+$/);
    assert.equal(res.body.data._links.self.href, './current-identity/mfa');
    assertError(await node.mgmt.post('/current-identity/mfa', undefined, user.token), 409, 'MFA_EXISTS');
    assertError(await node.client.post('/current-identity/mfa', undefined, user.token), 409, 'MFA_EXISTS');
  });

  it('shows an unverified MFA with 20 recovery codes and the provisioning URL', async () => {
    const res = await node.mgmt.get('/current-identity/mfa', user.token);
    assert.equal(res.status, 200, res.text);
    detail = res.body.data;
    assert.equal(detail.isVerified, false);
    assert.ok(Date.parse(detail.createdAt) > 0 && Date.parse(detail.updatedAt) > 0);
    assert.equal(detail._links.self.href, './current-identity/mfa');
    assert.equal(detail.recoveryCodes.length, 20);
    for (const code of detail.recoveryCodes) assert.match(code, /^[A-Z2-7]{6}$/);
    const url = new URL(detail.provisioningUrl);
    assert.equal(url.protocol, 'otpauth:');
    assert.equal(url.host, 'totp');
    assert.equal(url.pathname, '/openziti.io:mfa-enroll');
    assert.equal(url.searchParams.get('issuer'), 'openziti.io');
    secret = url.searchParams.get('secret')!;
    assert.match(secret, /^[A-Z2-7]{16}$/);
    assert.equal(detail.secret, undefined);
    assert.deepEqual((await node.client.get('/current-identity/mfa', user.token)).body.data.recoveryCodes, detail.recoveryCodes);
  });

  it('keeps isMfaEnabled false and logins unchallenged until verified', async () => {
    assert.equal((await node.mgmt.get(`/identities/${user.id}`, node.adminToken)).body.data.isMfaEnabled, false);
    const { session } = await login(node.mgmt, user.username);
    assert.equal(session.isMfaRequired, false);
    assert.deepEqual(session.authQueries, []);
  });

  it('GET /current-identity/mfa/qr-code answers a 256 px PNG', async () => {
    const res = await rawGet('/current-identity/mfa/qr-code', user.token);
    assert.equal(res.status, 200);
    assert.equal(res.type, 'image/png');
    assert.deepEqual([...res.body.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(res.body.toString('ascii', 12, 16), 'IHDR');
    assert.equal(res.body.readUInt32BE(16), 256);
    assert.equal(res.body.readUInt32BE(20), 256);
    const idatLength = res.body.readUInt32BE(33);
    assert.equal(res.body.toString('ascii', 37, 41), 'IDAT');
    assert.equal(inflateSync(res.body.subarray(41, 41 + idatLength)).length, 256 * 33);
  });

  it('POST verify without a code answers 400 COULD_NOT_VALIDATE', async () => {
    const res = await node.mgmt.post('/current-identity/mfa/verify', {}, user.token);
    assertError(res, 400, 'COULD_NOT_VALIDATE');
    assert.equal(res.body.error.cause.field, 'code');
  });

  for (const [what, code] of [
    ['an empty code', () => ''],
    ['a wrong code', () => wrongCode(secret)],
    ['a code three steps old', () => totp(secret, -3)],
    ['a recovery code', () => detail.recoveryCodes[0] as string],
  ] as const) {
    it(`POST verify with ${what} answers 400 MFA_INVALID_TOKEN`, async () => {
      assertError(await node.mgmt.post('/current-identity/mfa/verify', { code: code() }, user.token), 400, 'MFA_INVALID_TOKEN');
    });
  }

  it('POST verify with a TOTP code verifies and completes the current session', async () => {
    const res = await node.mgmt.post('/current-identity/mfa/verify', { code: totp(secret, -2) }, user.token);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, {});
    const session = (await node.mgmt.get('/current-api-session', user.token)).body.data;
    assert.equal(session.isMfaRequired, true);
    assert.equal(session.isMfaComplete, true);
    assert.deepEqual(session.authQueries, []);
    assert.equal(session.mfaPassedAt, undefined);
    const stored = await node.handle.replica.get('api-sessions', session.id);
    assert.ok(Date.parse(String(stored?.mfaPassedAt)) > 0, 'mfaPassedAt is stored for the posture checks');
  });

  it('shows a verified MFA without secrets; verify and the QR code then answer 404', async () => {
    const res = await node.mgmt.get('/current-identity/mfa', user.token);
    assert.equal(res.body.data.isVerified, true);
    assert.equal(res.body.data.recoveryCodes, undefined);
    assert.equal(res.body.data.provisioningUrl, undefined);
    assertError(await node.mgmt.post('/current-identity/mfa/verify', { code: totp(secret) }, user.token), 404, 'NOT_FOUND');
    assertError(await node.mgmt.get('/current-identity/mfa/qr-code', user.token), 404, 'NOT_FOUND');
    assert.equal((await node.mgmt.get(`/identities/${user.id}`, node.adminToken)).body.data.isMfaEnabled, true);
    assert.equal((await node.mgmt.get('/current-identity', user.token)).body.data.isMfaEnabled, true);
  });
});

describe('MFA: login with a verified MFA', () => {
  let user: { id: string; token: string; username: string };
  let secret: string;
  let recoveryCodes: string[];
  let partial: string;
  before(async () => {
    user = await node.createUser('mfa-login');
    ({ secret, recoveryCodes } = await enrollVerified(user.token));
  });

  it('creates a partial session with the MFA auth query', async () => {
    const { token, session } = await login(node.mgmt, user.username);
    partial = token;
    assert.equal(session.isMfaRequired, true);
    assert.equal(session.isMfaComplete, false);
    assert.deepEqual(session.authQueries, [MFA_QUERY]);
  });

  it('lets the partial session reach the upstream allow-list', async () => {
    assert.equal((await node.mgmt.get('/current-api-session', partial)).status, 200);
    assert.equal((await node.mgmt.get('/current-identity/mfa', partial)).status, 200);
    assert.equal((await node.client.get('/current-identity/mfa', partial)).status, 200);
    assertError(await node.mgmt.post('/current-identity/mfa', undefined, partial), 409, 'MFA_EXISTS');
    assertError(await node.mgmt.post('/current-identity/mfa/verify', { code: totp(secret) }, partial), 404, 'NOT_FOUND');
    assertError(await node.mgmt.get('/current-identity/mfa/qr-code', partial), 404, 'NOT_FOUND');
  });

  it('refuses the partial session an entity read that any full session may make', async () => {
    assertError(await node.mgmt.get('/identity-types/Default', partial), 401, 'UNAUTHORIZED');
    assert.equal((await node.mgmt.get('/identity-types/Default', node.adminToken)).status, 200);
  });

  it('refuses the partial session everywhere else with 401 UNAUTHORIZED', async () => {
    for (const [api, method, path, contrast] of [
      [node.mgmt, 'GET', '/current-identity', true],
      [node.client, 'GET', '/current-identity', true],
      [node.mgmt, 'GET', '/current-identity/mfa/recovery-codes', true],
      [node.mgmt, 'POST', '/current-identity/mfa/recovery-codes', true],
      [node.mgmt, 'DELETE', '/current-identity/mfa', false],
    ] as const) {
      const res = await withCode(api, method, path, partial, totp(secret));
      assertError(res, 401, 'UNAUTHORIZED');
      assert.match(res.headers.get('www-authenticate') ?? '', /zt-session/);
      // The same (harmless) request with the full session of the same identity is served.
      if (contrast) assert.notEqual((await withCode(api, method, path, user.token, totp(secret))).status, 401, `${method} ${path}`);
    }
  });

  it('POST /authenticate/mfa refuses a bad code (400) and a missing one', async () => {
    assertError(await node.mgmt.post('/authenticate/mfa', { code: wrongCode(secret) }, partial), 400, 'MFA_INVALID_TOKEN');
    assertError(await node.mgmt.post('/authenticate/mfa', { code: '' }, partial), 400, 'MFA_INVALID_TOKEN');
    const missing = await node.mgmt.post('/authenticate/mfa', {}, partial);
    assertError(missing, 400, 'COULD_NOT_VALIDATE');
    assert.equal(missing.body.error.cause.field, 'code');
    assertError(await node.mgmt.get('/current-identity', partial), 401, 'UNAUTHORIZED');
  });

  it('POST /authenticate/mfa with a recovery code completes the session', async () => {
    const res = await node.mgmt.post('/authenticate/mfa', { code: recoveryCodes[0] }, partial);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, {});
    assert.equal((await node.mgmt.get('/current-identity', partial)).status, 200);
    const session = (await node.mgmt.get('/current-api-session', partial)).body.data;
    assert.equal(session.isMfaComplete, true);
    assert.deepEqual(session.authQueries, []);
    const stored = await node.handle.replica.get('api-sessions', session.id);
    assert.ok(Date.parse(String(stored?.mfaPassedAt)) > 0);
  });

  it('refuses a used recovery code and accepts a TOTP code', async () => {
    const { token } = await login(node.mgmt, user.username);
    assertError(await node.mgmt.post('/authenticate/mfa', { code: recoveryCodes[0] }, token), 400, 'MFA_INVALID_TOKEN');
    assert.equal((await node.mgmt.post('/authenticate/mfa', { code: totp(secret, 2) }, token)).status, 200);
    assert.equal((await node.mgmt.get('/current-identity', token)).status, 200);
  });

  it('works the same on the client API, and the partial session may log out', async () => {
    const { token, session } = await login(node.client, user.username);
    assert.deepEqual(session.authQueries, [MFA_QUERY]);
    assertError(await node.client.get('/current-identity', token), 401, 'UNAUTHORIZED');
    assert.equal((await node.client.post('/authenticate/mfa', { code: totp(secret) }, token)).status, 200);
    assert.equal((await node.client.get('/current-identity', token)).status, 200);
    const other = await login(node.client, user.username);
    assert.equal((await node.client.delete('/current-api-session', other.token)).status, 200);
    assertError(await node.client.get('/current-api-session', other.token), 401, 'UNAUTHORIZED');
  });
});

describe('MFA: recovery codes', () => {
  let user: { id: string; token: string };
  let secret: string;
  let recoveryCodes: string[];
  before(async () => {
    user = await node.createUser('mfa-codes');
    ({ secret, recoveryCodes } = await enrollVerified(user.token));
  });

  it('GET needs a TOTP code: none, a wrong one or a recovery code answer 400 MFA_INVALID_TOKEN', async () => {
    assertError(await node.mgmt.get('/current-identity/mfa/recovery-codes', user.token), 400, 'MFA_INVALID_TOKEN');
    for (const code of [wrongCode(secret), recoveryCodes[1]!]) {
      assertError(await withCode(node.mgmt, 'GET', '/current-identity/mfa/recovery-codes', user.token, code), 400, 'MFA_INVALID_TOKEN');
    }
  });

  it('GET with the code in the mfa-validation-code header shows the codes (a recovery code was not used up)', async () => {
    const res = await withCode(node.mgmt, 'GET', '/current-identity/mfa/recovery-codes', user.token, totp(secret));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.recoveryCodes, recoveryCodes);
    assert.equal(res.body.data._links.self.href, './current-identity/mfa');
  });

  it('GET with the code in a JSON body shows the codes too', async () => {
    const res = await request(`${node.client.base}/current-identity/mfa/recovery-codes`, {
      method: 'GET',
      dispatcher,
      headers: { 'zt-session': user.token, 'content-type': 'application/json' },
      body: JSON.stringify({ code: totp(secret) }),
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(((await res.body.json()) as any).data.recoveryCodes, recoveryCodes);
  });

  it('GET reads its body by the rules of every body: another content type is 415', async () => {
    const res = await request(`${node.client.base}/current-identity/mfa/recovery-codes`, {
      method: 'GET',
      dispatcher,
      headers: { 'zt-session': user.token, 'content-type': 'application/xml' },
      body: '<code>123456</code>',
    });
    assert.equal(res.statusCode, 415);
    assert.equal(((await res.body.json()) as any).error.code, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('POST regenerates them with a TOTP code, and with a recovery code', async () => {
    const missing = await node.mgmt.post('/current-identity/mfa/recovery-codes', {}, user.token);
    assertError(missing, 400, 'COULD_NOT_VALIDATE');
    assertError(await node.mgmt.post('/current-identity/mfa/recovery-codes', { code: wrongCode(secret) }, user.token), 400, 'MFA_INVALID_TOKEN');
    assert.equal((await node.mgmt.post('/current-identity/mfa/recovery-codes', { code: totp(secret) }, user.token)).status, 200);
    const view = async () => (await withCode(node.mgmt, 'GET', '/current-identity/mfa/recovery-codes', user.token, totp(secret))).body.data.recoveryCodes as string[];
    const fresh = await view();
    assert.equal(fresh.length, 20);
    assert.ok(fresh.every((c) => !recoveryCodes.includes(c)), 'all codes replaced');
    assertError(await node.mgmt.post('/current-identity/mfa/recovery-codes', { code: recoveryCodes[0] }, user.token), 400, 'MFA_INVALID_TOKEN');
    assert.equal((await node.mgmt.post('/current-identity/mfa/recovery-codes', { code: fresh[0] }, user.token)).status, 200);
    assert.ok((await view()).every((c) => !fresh.includes(c)));
  });
});

describe('MFA: delete', () => {
  let user: { id: string; token: string; username: string };
  let secret: string;
  before(async () => {
    user = await node.createUser('mfa-delete');
    ({ secret } = await enrollVerified(user.token));
  });

  it('refuses a verified MFA without a valid code (400 MFA_INVALID_TOKEN)', async () => {
    assertError(await node.mgmt.delete('/current-identity/mfa', user.token), 400, 'MFA_INVALID_TOKEN');
    assertError(await withCode(node.mgmt, 'DELETE', '/current-identity/mfa', user.token, wrongCode(secret)), 400, 'MFA_INVALID_TOKEN');
  });

  it('removes it with a TOTP code in the header; the identity is then unchallenged', async () => {
    const current = (await node.mgmt.get('/current-api-session', user.token)).body.data;
    assert.ok((await node.handle.replica.get('api-sessions', current.id))?.mfaPassedAt);
    assert.equal((await withCode(node.mgmt, 'DELETE', '/current-identity/mfa', user.token, totp(secret))).status, 200);
    assertError(await node.mgmt.get('/current-identity/mfa', user.token), 404, 'NOT_FOUND');
    assert.equal((await node.mgmt.get(`/identities/${user.id}`, node.adminToken)).body.data.isMfaEnabled, false);
    assert.equal((await node.handle.replica.get('api-sessions', current.id))?.mfaPassedAt, null, 'the MFA posture is cleared');
    assert.equal((await login(node.mgmt, user.username)).session.isMfaRequired, false);
  });

  it('removes it with a recovery code in the body', async () => {
    const { recoveryCodes } = await enrollVerified(user.token);
    const res = await node.mgmt.request('DELETE', '/current-identity/mfa', { token: user.token, body: { code: recoveryCodes[3] } });
    assert.equal(res.status, 200, res.text);
    assertError(await node.mgmt.get('/current-identity/mfa', user.token), 404, 'NOT_FOUND');
  });

  it('removes an unverified MFA with a blank code', async () => {
    assert.equal((await node.mgmt.post('/current-identity/mfa', undefined, user.token)).status, 201);
    assert.equal((await withCode(node.mgmt, 'DELETE', '/current-identity/mfa', user.token, '')).status, 200);
    assertError(await node.mgmt.get('/current-identity/mfa', user.token), 404, 'NOT_FOUND');
  });
});

describe('MFA: admin DELETE /identities/{id}/mfa', () => {
  let user: { id: string; token: string; username: string };
  before(async () => {
    user = await node.createUser('mfa-admin');
    await enrollVerified(user.token);
  });

  it('is admin-only (401 for the identity itself)', async () => {
    assertError(await node.mgmt.delete(`/identities/${user.id}/mfa`, user.token), 401, 'UNAUTHORIZED');
  });

  it('removes a verified MFA without any code, and answers 200 when none is left', async () => {
    assert.equal((await node.mgmt.delete(`/identities/${user.id}/mfa`, node.adminToken)).status, 200);
    assertError(await node.mgmt.get('/current-identity/mfa', user.token), 404, 'NOT_FOUND');
    assert.equal((await login(node.mgmt, user.username)).session.isMfaRequired, false);
    assert.equal((await node.mgmt.delete(`/identities/${user.id}/mfa`, node.adminToken)).status, 200);
  });

  it('answers 404 for an unknown identity', async () => {
    assertError(await node.mgmt.delete('/identities/no-such-identity/mfa', node.adminToken), 404, 'NOT_FOUND');
  });

  it('removes an unverified MFA too, and deleting the identity removes its MFA', async () => {
    assert.equal((await node.mgmt.post('/current-identity/mfa', undefined, user.token)).status, 201);
    assert.equal((await node.mgmt.delete(`/identities/${user.id}/mfa`, node.adminToken)).status, 200);
    assertError(await node.mgmt.get('/current-identity/mfa', user.token), 404, 'NOT_FOUND');
    assert.equal((await node.mgmt.post('/current-identity/mfa', undefined, user.token)).status, 201);
    assert.ok(await node.handle.replica.findUnique('mfas', 'identityId', user.id));
    assert.equal((await node.mgmt.delete(`/identities/${user.id}`, node.adminToken)).status, 200);
    assert.equal(await node.handle.replica.findUnique('mfas', 'identityId', user.id), undefined);
  });
});

describe('MFA: auth policy secondary.requireTotp', () => {
  let user: { id: string; token: string; username: string };
  before(async () => {
    user = await node.createUser('mfa-policy');
    const res = await node.mgmt.patch('/auth-policies/default', { secondary: { requireTotp: true, requireExtJwtSigner: null } }, node.adminToken);
    assert.equal(res.status, 200, res.text);
  });
  after(async () => {
    const res = await node.mgmt.patch('/auth-policies/default', { secondary: { requireTotp: false, requireExtJwtSigner: null } }, node.adminToken);
    assert.equal(res.status, 200, res.text);
  });

  it('makes a login without MFA partial; /authenticate/mfa answers 409 MFA_NOT_ENROLLED', async () => {
    const { token, session } = await login(node.mgmt, user.username);
    assert.equal(session.isMfaRequired, true);
    assert.equal(session.isMfaComplete, false);
    assert.deepEqual(session.authQueries, [MFA_QUERY]);
    assertError(await node.mgmt.get('/current-identity', token), 401, 'UNAUTHORIZED');
    assertError(await node.mgmt.post('/authenticate/mfa', { code: '123456' }, token), 409, 'MFA_NOT_ENROLLED');
  });

  it('lets the partial session enroll and verify, which completes it', async () => {
    const { token } = await login(node.mgmt, user.username);
    assert.equal((await node.mgmt.post('/current-identity/mfa', undefined, token)).status, 201);
    const detail = (await node.mgmt.get('/current-identity/mfa', token)).body.data;
    assert.equal((await rawGet('/current-identity/mfa/qr-code', token)).status, 200);
    const secret = new URL(detail.provisioningUrl).searchParams.get('secret')!;
    assert.equal((await node.mgmt.post('/current-identity/mfa/verify', { code: totp(secret) }, token)).status, 200);
    assert.equal((await node.mgmt.get('/current-identity', token)).status, 200);
    assert.deepEqual((await node.mgmt.get('/current-api-session', token)).body.data.authQueries, []);
  });
});
