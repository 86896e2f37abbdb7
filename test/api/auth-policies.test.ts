// Auth policies over HTTP: the seeded default policy, CRUD with complete bodies and leaf-by-leaf
// patches, upstream's minimums, signer references (404 unknown, 409 on deleting one in use),
// delete refusals, and the policy's effect on logins: updb allowed, lockout and password rules.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeSelfSigned } from '../support/test-pki.js';
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

const DEFAULT_SHAPE = {
  id: 'default',
  name: 'Default',
  primary: {
    cert: { allowed: true, allowExpiredCerts: true },
    updb: {
      allowed: true,
      minPasswordLength: 5,
      requireSpecialChar: false,
      requireNumberChar: false,
      requireMixedCase: false,
      maxAttempts: 0,
      lockoutDurationMinutes: 0,
    },
    extJwt: { allowed: true, allowedSigners: [] },
  },
  secondary: { requireTotp: false, requireExtJwtSigner: null },
};

type Updb = Partial<(typeof DEFAULT_SHAPE)['primary']['updb']>;

function policyBody(updb: Updb = {}, extra: Record<string, unknown> = {}): Record<string, any> {
  const primary = structuredClone(DEFAULT_SHAPE.primary);
  Object.assign(primary.updb, updb);
  return { name: unique('policy'), primary, secondary: { requireTotp: false, requireExtJwtSigner: null }, ...extra };
}

async function createPolicy(body: Record<string, unknown> = policyBody()): Promise<string> {
  const res = await node.mgmt.post('/auth-policies', body, admin());
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

async function readPolicy(id: string): Promise<Record<string, any>> {
  const res = await node.mgmt.get(`/auth-policies/${id}`, admin());
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function createSigner(): Promise<string> {
  const res = await node.mgmt.post('/external-jwt-signers', {
    name: unique('signer'), certPem: makeSelfSigned('policy-signer').certPem, issuer: unique('https://issuer.example/p'), audience: 'weft', enabled: true,
  }, admin());
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

/** An identity on `policyId` (no authenticator yet). */
async function createIdentity(policyId: string): Promise<string> {
  const res = await node.mgmt.post('/identities', { name: unique('ap-identity'), type: 'User', isAdmin: false, authPolicyId: policyId }, admin());
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

function assertFieldError(res: ApiResponse, field: string): void {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
  assert.equal(res.body.error.cause.field, field);
}

function strip(data: Record<string, any>): Record<string, unknown> {
  const { createdAt, updatedAt, _links, tags, ...rest } = data;
  assert.ok(Date.parse(createdAt) > 0 && Date.parse(updatedAt) > 0);
  assert.equal(_links.self.href, `./auth-policies/${data.id}`);
  assert.deepEqual(tags, {});
  return rest;
}

describe('the default auth policy', () => {
  it('has the exact upstream shape', async () => {
    assert.deepEqual(strip(await readPolicy('default')), DEFAULT_SHAPE);
  });

  it('is listed', async () => {
    const res = await node.mgmt.get('/auth-policies?filter=name="Default"', admin());
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.map((p: { id: string }) => p.id), ['default']);
  });

  it('can be patched and replaced', async () => {
    const patch = await node.mgmt.patch('/auth-policies/default', { primary: { updb: { maxAttempts: 7 } } }, admin());
    assert.equal(patch.status, 200, patch.text);
    assert.equal((await readPolicy('default')).primary.updb.maxAttempts, 7);
    const put = await node.mgmt.put('/auth-policies/default', { name: 'Default', primary: DEFAULT_SHAPE.primary, secondary: DEFAULT_SHAPE.secondary }, admin());
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(strip(await readPolicy('default')), DEFAULT_SHAPE);
  });

  it('cannot be deleted (409)', async () => {
    const res = await node.mgmt.delete('/auth-policies/default', admin());
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
    await readPolicy('default');
  });
});

describe('POST /auth-policies', () => {
  it('creates a policy and presents it as given', async () => {
    const body = policyBody({ maxAttempts: 3, requireMixedCase: true });
    const id = await createPolicy(body);
    assert.deepEqual(strip(await readPolicy(id)), { id, ...body });
  });

  it('raises values below the minimums instead of refusing them', async () => {
    const id = await createPolicy(policyBody({ minPasswordLength: 2, maxAttempts: -4, lockoutDurationMinutes: -1 }));
    const { updb } = (await readPolicy(id)).primary;
    assert.equal(updb.minPasswordLength, 5);
    assert.equal(updb.maxAttempts, 0);
    assert.equal(updb.lockoutDurationMinutes, 0);
  });

  it('requires every primary leaf', async () => {
    const body = policyBody();
    delete body.primary.updb.maxAttempts;
    assertFieldError(await node.mgmt.post('/auth-policies', body, admin()), 'primary.updb.maxAttempts');
  });

  it('requires each primary method', async () => {
    const body = policyBody();
    delete body.primary.cert;
    assertFieldError(await node.mgmt.post('/auth-policies', body, admin()), 'primary.cert.allowed');
  });

  it('requires secondary.requireTotp', async () => {
    assertFieldError(await node.mgmt.post('/auth-policies', policyBody({}, { secondary: {} }), admin()), 'secondary.requireTotp');
  });

  it('checks leaf types', async () => {
    const body = policyBody();
    body.primary.updb.maxAttempts = 'three';
    assertFieldError(await node.mgmt.post('/auth-policies', body, admin()), 'primary.updb.maxAttempts');
  });

  it('requires a unique name', async () => {
    assertFieldError(await node.mgmt.post('/auth-policies', policyBody({}, { name: 'Default' }), admin()), 'name');
  });

  it('answers 404 for an unknown allowed signer', async () => {
    const body = policyBody();
    body.primary.extJwt.allowedSigners = ['no-such-signer'];
    const res = await node.mgmt.post('/auth-policies', body, admin());
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.error.code, 'NOT_FOUND');
    assert.equal(res.body.error.cause.field, 'primary.extJwt.allowedSigners[0]');
  });

  it('answers 404 for an unknown required secondary signer', async () => {
    const res = await node.mgmt.post('/auth-policies', policyBody({}, { secondary: { requireTotp: false, requireExtJwtSigner: 'nope' } }), admin());
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.error.cause.field, 'secondary.requireExtJwtSigner');
  });

  it('stores allowed signers that exist', async () => {
    const signer = await createSigner();
    const body = policyBody();
    body.primary.extJwt.allowedSigners = [signer];
    const id = await createPolicy(body);
    assert.deepEqual((await readPolicy(id)).primary.extJwt.allowedSigners, [signer]);
  });

  it('is admin only', async () => {
    const user = await node.createUser(unique('ap-user'));
    assert.equal((await node.mgmt.get('/auth-policies', user.token)).status, 401);
    assert.equal((await node.mgmt.post('/auth-policies', policyBody(), user.token)).status, 401);
  });
});

describe('PUT and PATCH /auth-policies/:id', () => {
  it('patches one leaf and keeps the others', async () => {
    const id = await createPolicy(policyBody({ maxAttempts: 4, requireNumberChar: true }));
    const res = await node.mgmt.patch(`/auth-policies/${id}`, { primary: { updb: { lockoutDurationMinutes: 15 } }, secondary: { requireTotp: true } }, admin());
    assert.equal(res.status, 200, res.text);
    const policy = await readPolicy(id);
    assert.equal(policy.primary.updb.lockoutDurationMinutes, 15);
    assert.equal(policy.primary.updb.maxAttempts, 4);
    assert.equal(policy.primary.updb.requireNumberChar, true);
    assert.deepEqual(policy.primary.cert, DEFAULT_SHAPE.primary.cert);
    assert.deepEqual(policy.secondary, { requireTotp: true, requireExtJwtSigner: null });
  });

  it('applies the minimums on patch', async () => {
    const id = await createPolicy();
    await node.mgmt.patch(`/auth-policies/${id}`, { primary: { updb: { minPasswordLength: 1 } } }, admin());
    assert.equal((await readPolicy(id)).primary.updb.minPasswordLength, 5);
  });

  it('requires complete sections on replace', async () => {
    const id = await createPolicy();
    const res = await node.mgmt.put(`/auth-policies/${id}`, { name: unique('r'), primary: { cert: { allowed: true } }, secondary: { requireTotp: false } }, admin());
    assertFieldError(res, 'primary.cert.allowExpiredCerts');
  });

  it('sets and clears the required secondary signer', async () => {
    const signer = await createSigner();
    const id = await createPolicy();
    assert.equal((await node.mgmt.patch(`/auth-policies/${id}`, { secondary: { requireExtJwtSigner: signer } }, admin())).status, 200);
    assert.equal((await readPolicy(id)).secondary.requireExtJwtSigner, signer);
    assert.equal((await node.mgmt.patch(`/auth-policies/${id}`, { secondary: { requireExtJwtSigner: null } }, admin())).status, 200);
    assert.equal((await readPolicy(id)).secondary.requireExtJwtSigner, null);
  });

  it('answers 404 for an unknown policy', async () => {
    assert.equal((await node.mgmt.patch('/auth-policies/nope', { name: 'x' }, admin())).status, 404);
  });
});

describe('DELETE /auth-policies/:id and referenced signers', () => {
  it('deletes an unused policy', async () => {
    const id = await createPolicy();
    assert.equal((await node.mgmt.delete(`/auth-policies/${id}`, admin())).status, 200);
    assert.equal((await node.mgmt.get(`/auth-policies/${id}`, admin())).status, 404);
  });

  it('refuses deleting a policy an identity uses (409), and deletes it once unused', async () => {
    const id = await createPolicy();
    const identity = await createIdentity(id);
    const res = await node.mgmt.delete(`/auth-policies/${id}`, admin());
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
    assert.match(res.body.error.cause.reason, new RegExp(identity));
    assert.equal((await node.mgmt.patch(`/identities/${identity}`, { authPolicyId: '' }, admin())).status, 200);
    assert.equal((await node.mgmt.delete(`/auth-policies/${id}`, admin())).status, 200);
  });

  it('refuses deleting a policy a signer enrolls into (409)', async () => {
    const id = await createPolicy();
    const signer = await node.mgmt.post('/external-jwt-signers', {
      name: unique('enroll-signer'), jwksEndpoint: 'https://idp.example/jwks', issuer: unique('https://issuer.example/e'), audience: 'weft', enabled: true, enrollAuthPolicyId: id,
    }, admin());
    assert.equal(signer.status, 201, signer.text);
    const res = await node.mgmt.delete(`/auth-policies/${id}`, admin());
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
  });

  it('refuses deleting a signer a policy allows (409), and deletes it once unreferenced', async () => {
    const signer = await createSigner();
    const body = policyBody();
    body.primary.extJwt.allowedSigners = [signer];
    const id = await createPolicy(body);
    const res = await node.mgmt.delete(`/external-jwt-signers/${signer}`, admin());
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
    assert.match(res.body.error.cause.reason, new RegExp(id));
    assert.equal((await node.mgmt.patch(`/auth-policies/${id}`, { primary: { extJwt: { allowedSigners: [] } } }, admin())).status, 200);
    assert.equal((await node.mgmt.delete(`/external-jwt-signers/${signer}`, admin())).status, 200);
  });

  it('refuses deleting a signer a policy requires as secondary (409)', async () => {
    const signer = await createSigner();
    await createPolicy(policyBody({}, { secondary: { requireTotp: false, requireExtJwtSigner: signer } }));
    const res = await node.mgmt.delete(`/external-jwt-signers/${signer}`, admin());
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
  });
});

describe('updb under an auth policy', () => {
  async function userOn(policyId: string, password = 'Secret-pw-1'): Promise<{ id: string; username: string; password: string }> {
    const id = await createIdentity(policyId);
    const username = unique('updb-user');
    const res = await node.mgmt.post('/authenticators', { method: 'updb', identityId: id, username, password }, admin());
    assert.equal(res.status, 201, res.text);
    return { id, username, password };
  }
  const login = (username: string, password: string) => node.mgmt.post('/authenticate?method=password', { username, password });

  it('refuses password login when updb is not allowed', async () => {
    const user = await userOn(await createPolicy(policyBody({ allowed: false })));
    const res = await login(user.username, user.password);
    assert.equal(res.status, 401, res.text);
    assert.equal(res.body.error.code, 'INVALID_AUTH');
  });

  it('locks the identity on the failure that reaches maxAttempts, until enabled', async () => {
    const user = await userOn(await createPolicy(policyBody({ maxAttempts: 3, lockoutDurationMinutes: 0 })));
    assert.equal((await login(user.username, 'wrong-pw-1')).status, 401);
    assert.equal((await login(user.username, 'wrong-pw-2')).status, 401);
    assert.equal((await login(user.username, user.password)).status, 200, 'two failures do not lock');
    assert.equal((await login(user.username, 'wrong-pw-3')).status, 401);
    assert.equal((await login(user.username, 'wrong-pw-4')).status, 401);
    assert.equal((await node.mgmt.get(`/identities/${user.id}`, admin())).body.data.disabled, false, 'the success reset the count');
    const third = await login(user.username, 'wrong-pw-5');
    assert.equal(third.status, 401);
    assert.equal(third.body.error.code, 'INVALID_AUTH');
    const identity = (await node.mgmt.get(`/identities/${user.id}`, admin())).body.data;
    assert.equal(identity.disabled, true);
    assert.equal(identity.disabledUntil, null);
    assert.equal((await login(user.username, user.password)).status, 401, 'locked: even the right password fails');
    assert.equal((await node.mgmt.post(`/identities/${user.id}/enable`, {}, admin())).status, 200);
    assert.equal((await login(user.username, user.password)).status, 200);
  });

  it('counts only failures: a success resets the count', async () => {
    const user = await userOn(await createPolicy(policyBody({ maxAttempts: 2 })));
    for (let round = 0; round < 3; round++) {
      assert.equal((await login(user.username, 'wrong-pw')).status, 401);
      assert.equal((await login(user.username, user.password)).status, 200, `round ${round}`);
    }
  });

  it('locks for lockoutDurationMinutes when set', async () => {
    const user = await userOn(await createPolicy(policyBody({ maxAttempts: 1, lockoutDurationMinutes: 10 })));
    const before = Date.now();
    assert.equal((await login(user.username, 'wrong-pw')).status, 401);
    const identity = (await node.mgmt.get(`/identities/${user.id}`, admin())).body.data;
    assert.equal(identity.disabled, true);
    const until = Date.parse(identity.disabledUntil);
    assert.ok(until >= before + 10 * 60_000 - 1000 && until <= Date.now() + 10 * 60_000 + 1000, identity.disabledUntil);
  });

  it('never locks when maxAttempts is 0', async () => {
    const user = await userOn(await createPolicy(policyBody({ maxAttempts: 0 })));
    for (let i = 0; i < 5; i++) assert.equal((await login(user.username, `wrong-${i}-pw`)).status, 401);
    // No lockout; the failed-login throttle may ask for a pause first (README, security notes).
    let res = await login(user.username, user.password);
    if (res.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after')) * 1000));
      res = await login(user.username, user.password);
    }
    assert.equal(res.status, 200);
  });
});

describe('password rules of the auth policy', () => {
  const create = async (policyId: string, password: string) => {
    const id = await createIdentity(policyId);
    return node.mgmt.post('/authenticators', { method: 'updb', identityId: id, username: unique('rules-user'), password }, admin());
  };

  it('enforces minPasswordLength on create', async () => {
    const policy = await createPolicy(policyBody({ minPasswordLength: 10 }));
    assertFieldError(await create(policy, 'short-pw1'), 'password');
    assert.equal((await create(policy, 'long-enough-pw')).status, 201);
  });

  it('enforces requireMixedCase on create', async () => {
    const policy = await createPolicy(policyBody({ requireMixedCase: true }));
    assertFieldError(await create(policy, 'lowercase-only'), 'password');
    assert.equal((await create(policy, 'Mixed-case')).status, 201);
  });

  it('enforces requireNumberChar on create', async () => {
    const policy = await createPolicy(policyBody({ requireNumberChar: true }));
    assertFieldError(await create(policy, 'no-digits-here'), 'password');
    assert.equal((await create(policy, 'digits-4-here')).status, 201);
  });

  it('enforces requireSpecialChar on create', async () => {
    const policy = await createPolicy(policyBody({ requireSpecialChar: true }));
    assertFieldError(await create(policy, 'OnlyLetters1'), 'password');
    assert.equal((await create(policy, 'Letters-and!')).status, 201);
  });

  it('enforces the rules when a password is changed', async () => {
    const policy = await createPolicy(policyBody({ minPasswordLength: 8, requireNumberChar: true }));
    const created = await create(policy, 'initial-pw-1');
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    assertFieldError(await node.mgmt.patch(`/authenticators/${id}`, { password: 'no-number' }, admin()), 'password');
    assertFieldError(await node.mgmt.patch(`/authenticators/${id}`, { password: 'abc1' }, admin()), 'password');
    assert.equal((await node.mgmt.patch(`/authenticators/${id}`, { password: 'changed-pw-2' }, admin())).status, 200);
  });

  it('follows the policy as it changes', async () => {
    const policy = await createPolicy(policyBody());
    assert.equal((await create(policy, 'plainpw')).status, 201);
    await node.mgmt.patch(`/auth-policies/${policy}`, { primary: { updb: { requireMixedCase: true } } }, admin());
    assertFieldError(await create(policy, 'plainpw'), 'password');
  });
});
