// End to end: TOTP MFA feeding an MFA posture check. Enroll and verify TOTP, log in again
// (partially authenticated: refused), complete MFA with a code (granted), report a wake event
// and let the 5-minute grace run out on the injected posture clock (revoked, refused), then
// pass MFA again (granted). TOTP time is pinned; MFA itself stamps real time.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createGuardrails, generateSync } from 'otplib';
import { setMfaClock } from '../../src/domain/mfa-clock.js';
import { FakeClock } from '../support/fake-clock.js';
import { startTestNode, type TestNode } from '../support/test-node.js';

const TOTP_NOW = Date.UTC(2024, 5, 1, 8, 0, 10);
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });
const PASSWORD = 'user-password-1';

let node: TestNode;
const clock = new FakeClock();
let user: { id: string; token: string; username: string };
let secret: string;
let serviceId: string;
let checkId: string;

const totp = () => generateSync({ secret, epoch: Math.floor(TOTP_NOW / 1000), guardrails });

async function create(path: string, body: Record<string, unknown>): Promise<string> {
  const res = await node.mgmt.post(path, body, node.adminToken);
  assert.equal(res.status, 201, `${path} ${res.text}`);
  return res.body.data.id as string;
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** Moves the posture clock up to real time (MFA stamps real time; events must come after it). */
async function catchUp(): Promise<void> {
  await clock.advance(Math.max(0, Date.now() - clock.now()));
}

before(async () => {
  setMfaClock(() => TOTP_NOW);
  node = await startTestNode({ hooks: { clock, timers: clock } });
  user = await node.createUser('mfa-posture-user', { password: PASSWORD });
  const routerId = await create('/edge-routers', { name: 'mp-router', roleAttributes: ['mp'] });
  void routerId;
  await create('/edge-router-policies', { name: 'mp-erp', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#mp'] });
  await create('/service-edge-router-policies', { name: 'mp-serp', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#mp'] });
  serviceId = await create('/services', { name: 'mp-svc', encryptionRequired: true });
  checkId = await create('/posture-checks', { name: 'mp-mfa', typeId: 'MFA', roleAttributes: ['mp-mfa'], timeoutSeconds: -1, promptOnWake: true });
  await create('/service-policies', { name: 'mp-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${serviceId}`], postureCheckRoles: ['#mp-mfa'] });
});
after(async () => {
  setMfaClock();
  await node?.close();
});

describe('TOTP MFA and the MFA posture check', () => {
  let token: string;
  let sessionId: string;

  it('enrolls and verifies TOTP', async () => {
    assert.equal((await node.client.post('/current-identity/mfa', {}, user.token)).status, 201);
    const detail = (await node.client.get('/current-identity/mfa', user.token)).body.data;
    secret = new URL(detail.provisioningUrl).searchParams.get('secret')!;
    const verified = await node.client.post('/current-identity/mfa/verify', { code: totp() }, user.token);
    assert.equal(verified.status, 200, verified.text);
  });

  it('refuses a session to a partially authenticated login', async () => {
    const login = await node.client.post('/authenticate?method=password', { username: user.username, password: PASSWORD });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.data.isMfaRequired, true);
    assert.equal(login.body.data.isMfaComplete, false);
    token = login.headers.get('zt-session')!;
    const res = await node.client.post('/sessions', { serviceId, type: 'Dial' }, token);
    assert.equal(res.status, 401, res.text);
  });

  it('grants the session once MFA is completed with a code', async () => {
    assert.equal((await node.client.post('/authenticate/mfa', { code: totp() }, token)).status, 200);
    const res = await node.client.post('/sessions', { serviceId, type: 'Dial' }, token);
    assert.equal(res.status, 201, res.text);
    sessionId = res.body.data.id;
  });

  it('revokes and refuses after a wake event once the grace period is over', async () => {
    await catchUp();
    const wake = await node.client.post('/posture-response', { id: checkId, typeId: 'ENDPOINT_STATE', woken: true }, token);
    assert.equal(wake.status, 201, wake.text);
    assert.deepEqual(wake.body.data.services.map((s: any) => [s.id, s.postureQueryType, s.timeoutRemaining]), [[serviceId, 'MFA', 300]]);
    await clock.advance(299_000);
    assert.equal((await node.mgmt.get(`/sessions/${sessionId}`, node.adminToken)).status, 200, 'still inside the grace');
    await clock.advance(2_000);
    await eventually(async () => (await node.mgmt.get(`/sessions/${sessionId}`, node.adminToken)).status === 404, 'the revocation');
    const refused = await node.client.post('/sessions', { serviceId, type: 'Dial' }, token);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.code, 'INVALID_POSTURE');
  });

  it('grants again after MFA is passed again', async () => {
    await new Promise((r) => setTimeout(r, 5));
    assert.equal((await node.client.post('/authenticate/mfa', { code: totp() }, token)).status, 200);
    const res = await node.client.post('/sessions', { serviceId, type: 'Dial' }, token);
    assert.equal(res.status, 201, res.text);
    sessionId = res.body.data.id;
  });

  it('revokes the session when an admin removes the identity\'s MFA', async () => {
    assert.equal((await node.mgmt.delete(`/identities/${user.id}/mfa`, node.adminToken)).status, 200);
    await node.handle.postureIdle();
    await eventually(async () => (await node.mgmt.get(`/sessions/${sessionId}`, node.adminToken)).status === 404, 'the revocation');
  });
});
