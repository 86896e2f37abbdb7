// Posture over HTTP: client services with posture queries, posture responses, service sessions
// granted or refused (409 INVALID_POSTURE, 400 NO_EDGE_ROUTERS_AVAILABLE), revocation on events,
// on posture-check / policy changes (bulk re-evaluation) and on MFA timers driven by a fake
// clock, and the management views (posture data, failed service requests, sessions).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '../support/fake-clock.js';
import { startTestNode, type TestNode } from '../support/test-node.js';

let node: TestNode;
const clock = new FakeClock();
const ids: Record<string, string> = {};
let user: { id: string; token: string };
let apiSessionId: string;

const admin = () => node.adminToken;

async function create(path: string, body: Record<string, unknown>): Promise<string> {
  const res = await node.mgmt.post(path, body, admin());
  assert.equal(res.status, 201, `${path} ${res.text}`);
  return res.body.data.id as string;
}

const osReport = (version: string) => ({ id: ids.osCheck ?? 'os', typeId: 'OS', type: 'Windows', version, build: '1' });

async function report(body: unknown, token = user.token) {
  const res = await node.client.post('/posture-response', body, token);
  assert.equal(res.status, 201, res.text);
  return res.body.data as { services: Record<string, unknown>[] };
}

async function requestSession(serviceId: string, token = user.token, type = 'Dial') {
  return node.client.post('/sessions', { serviceId, type }, token);
}

async function grant(serviceId: string, token = user.token): Promise<Record<string, any>> {
  const res = await requestSession(serviceId, token);
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

async function sessionExists(id: string): Promise<boolean> {
  const res = await node.mgmt.get(`/sessions/${id}`, admin());
  assert.ok(res.status === 200 || res.status === 404, res.text);
  return res.status === 200;
}

/** Polls until `check` holds (work started by timers and bus events finishes asynchronously). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function setMfaPassed(at: number): Promise<void> {
  await node.handle.proposer.propose([{ op: 'set', kind: 'api-sessions', id: apiSessionId, fields: { mfaPassedAt: new Date(at).toISOString() } }]);
}

before(async () => {
  node = await startTestNode({ hooks: { clock, timers: clock } });
  user = await node.createUser('posture-user');
  apiSessionId = (await node.client.get('/current-api-session', user.token)).body.data.id;
  ids.router = await create('/edge-routers', { name: 'p-er', roleAttributes: ['p-er'] });
  await create('/edge-router-policies', { name: 'p-erp', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#p-er'] });
  await create('/service-edge-router-policies', { name: 'p-serp', semantic: 'AnyOf', serviceRoles: ['#routed'], edgeRouterRoles: ['#p-er'] });
  ids.svcOs = await create('/services', { name: 'p-svc-os', encryptionRequired: true, roleAttributes: ['routed'] });
  ids.svcUnrouted = await create('/services', { name: 'p-svc-unrouted', encryptionRequired: true });
  ids.svcHidden = await create('/services', { name: 'p-svc-hidden', encryptionRequired: true, roleAttributes: ['routed'] });
  ids.dialOs = await create('/service-policies', {
    name: 'p-dial-os', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${ids.svcOs}`], postureCheckRoles: ['#p-os'],
  });
  ids.dialUnrouted = await create('/service-policies', {
    name: 'p-dial-unrouted', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${ids.svcUnrouted}`],
  });
});
after(async () => {
  await node?.close();
});

describe('client GET /services', () => {
  it('lists only the services the caller may dial or bind, with dummy posture queries while no check exists', async () => {
    const res = await node.client.get('/services?limit=-1', user.token);
    assert.equal(res.status, 200, res.text);
    const byName = new Map((res.body.data as any[]).map((s) => [s.name, s]));
    assert.deepEqual([...byName.keys()].sort(), ['p-svc-os', 'p-svc-unrouted']);
    assert.deepEqual(byName.get('p-svc-os').permissions, ['Dial']);
    assert.deepEqual(byName.get('p-svc-os').postureQueries, [
      { policyId: 'dummy dial policy: no posture checks defined', policyType: 'Dial', isPassing: true, postureQueries: [] },
    ]);
  });

  it('answers 404 for a service the caller may not use', async () => {
    assert.equal((await node.client.get(`/services/${ids.svcHidden}`, user.token)).status, 404);
    assert.equal((await node.client.get('/services/no-such-service', user.token)).status, 404);
  });

  it('answers 401 without a session', async () => {
    assert.equal((await node.client.get('/services')).status, 401);
  });
});

describe('POST /sessions with a failing posture check', () => {
  before(async () => {
    ids.osCheck = await create('/posture-checks', {
      name: 'p-os', typeId: 'OS', roleAttributes: ['p-os'], operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041'] }],
    });
  });

  it('shows the policy and its failing query in postureQueries', async () => {
    const res = await node.client.get(`/services/${ids.svcOs}`, user.token);
    assert.equal(res.status, 200, res.text);
    const [set] = res.body.data.postureQueries;
    assert.equal(set.policyId, ids.dialOs);
    assert.equal(set.policyType, 'Dial');
    assert.equal(set.isPassing, false);
    assert.equal(set.postureQueries.length, 1);
    const query = set.postureQueries[0];
    assert.equal(query.id, ids.osCheck);
    assert.equal(query.name, 'p-os');
    assert.equal(query.queryType, 'OS');
    assert.equal(query.isPassing, false);
    assert.equal(query.timeout, -1);
    assert.equal(query.timeoutRemaining, -1);
  });

  it('refuses with 409 INVALID_POSTURE and the upstream cause', async () => {
    const res = await requestSession(ids.svcOs!);
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'INVALID_POSTURE');
    assert.deepEqual(res.body.error.cause, {
      message: `Failed to pass posture checks for service policies: [${ids.dialOs}]`,
      data: { [ids.dialOs!]: [{ id: ids.osCheck, typeId: 'OS', isPassing: false }] },
    });
  });

  it('records the refusal in the failed service requests', async () => {
    const res = await node.mgmt.get(`/identities/${user.id}/failed-service-requests`, admin());
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.length, 1);
    const [failure] = res.body.data;
    assert.equal(failure.apiSessionId, apiSessionId);
    assert.equal(failure.serviceId, ids.svcOs);
    assert.equal(failure.serviceName, 'p-svc-os');
    assert.equal(failure.sessionType, 'Dial');
    assert.ok(Date.parse(failure.when) > 0);
    assert.deepEqual(failure.policyFailures, [
      {
        policyId: ids.dialOs,
        policyName: 'p-dial-os',
        checks: [
          {
            postureCheckId: ids.osCheck,
            postureCheckName: 'p-os',
            postureCheckType: 'OS',
            actualValue: { type: '', version: '' },
            expectedValue: [{ type: 'Windows', versions: ['>=10.0.19041'] }],
          },
        ],
      },
    ]);
  });

  it('answers 401 to a non-admin and 404 for an unknown identity', async () => {
    assert.equal((await node.mgmt.get(`/identities/${user.id}/failed-service-requests`, user.token)).status, 401);
    assert.equal((await node.mgmt.get('/identities/nobody/posture-data', admin())).status, 404);
  });
});

describe('posture responses and granted sessions', () => {
  let session: Record<string, any>;

  it('POST /posture-response answers 201 with a services list', async () => {
    assert.deepEqual(await report(osReport('10.0.19045')), { services: [] });
    const res = await node.client.get(`/services/${ids.svcOs}`, user.token);
    assert.equal(res.body.data.postureQueries[0].isPassing, true);
  });

  it('grants a session once the checks pass', async () => {
    session = await grant(ids.svcOs!);
    assert.match(session.token, /^[0-9a-f-]{36}$/);
    assert.equal(session.type, 'Dial');
    assert.equal(session.apiSessionId, apiSessionId);
    assert.equal(session.identityId, user.id);
    assert.equal(session.service.id, ids.svcOs);
    assert.equal(session.service.name, 'p-svc-os');
    assert.deepEqual(session.edgeRouters.map((r: any) => [r.name, r.isOnline]), [['p-er', false]]);
    assert.deepEqual(session.servicePolicies.map((p: any) => p.id), [ids.dialOs]);
  });

  it('returns the same session for the same API session, service and type', async () => {
    assert.equal((await grant(ids.svcOs!)).id, session.id);
  });

  it('lists the caller\'s sessions on the client API and all on the management API', async () => {
    const mine = await node.client.get('/sessions', user.token);
    assert.deepEqual(mine.body.data.map((s: any) => s.id), [session.id]);
    const other = await node.createUser('posture-other');
    assert.deepEqual((await node.client.get('/sessions', other.token)).body.data, []);
    assert.equal((await node.client.get(`/sessions/${session.id}`, other.token)).status, 404);
    const all = await node.mgmt.get(`/sessions?filter=${encodeURIComponent(`identityId = "${user.id}"`)}`, admin());
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body.data.map((s: any) => s.id), [session.id]);
    assert.equal((await node.mgmt.get('/sessions', user.token)).status, 401);
  });

  it('shows the reported data in posture-data', async () => {
    const res = await node.mgmt.get(`/identities/${user.id}/posture-data`, admin());
    assert.equal(res.status, 200, res.text);
    const data = res.body.data;
    assert.equal(data.os.type, 'Windows');
    assert.equal(data.os.version, '10.0.19045');
    assert.equal(data.os.build, '1');
    assert.equal(data.os.postureCheckId, ids.osCheck);
    assert.equal(data.os.timedOut, false);
    assert.equal(data.mac.addresses.length, 0);
    assert.equal(data.domain.domain, '');
    assert.deepEqual(data.processes, []);
    assert.deepEqual(data.apiSessionPostureData[apiSessionId].mfa, { apiSessionId, passedMfa: false, passedAt: null, passedOnWake: false, passedOnUnlock: false });
  });

  it('revokes the session when a response makes the check fail', async () => {
    await report(osReport('10.0.18363'));
    assert.equal(await sessionExists(session.id), false);
    assert.deepEqual((await node.client.get('/sessions', user.token)).body.data, []);
  });
});

describe('session refusals', () => {
  it('answers 400 NO_EDGE_ROUTERS_AVAILABLE when the identity and service share no router', async () => {
    const res = await requestSession(ids.svcUnrouted!);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'NO_EDGE_ROUTERS_AVAILABLE');
  });

  it('answers 404 for a service the caller may not use and 400 for a type it has no policy for', async () => {
    assert.equal((await requestSession(ids.svcHidden!)).status, 404);
    const bind = await requestSession(ids.svcOs!, user.token, 'Bind');
    assert.equal(bind.status, 400, bind.text);
    assert.equal(bind.body.error.cause.field, 'serviceId');
    const bad = await node.client.post('/sessions', { type: 'Dial' }, user.token);
    assert.equal(bad.body.error.cause.field, 'serviceId');
  });
});

describe('combining policies and re-evaluation', () => {
  it('grants through a policy without checks despite failing checks on another', async () => {
    ids.dialOpen = await create('/service-policies', { name: 'p-dial-open', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${ids.svcOs}`] });
    const session = await grant(ids.svcOs!);
    assert.deepEqual(session.servicePolicies.map((p: any) => p.id), [ids.dialOpen]);
    const queries = (await node.client.get(`/services/${ids.svcOs}`, user.token)).body.data.postureQueries;
    assert.deepEqual(queries.map((q: any) => [q.policyId, q.isPassing]).sort(), [[ids.dialOpen, true], [ids.dialOs, false]].sort());
    // Without that policy the session fails its posture: the bulk re-evaluation revokes it.
    assert.equal((await node.mgmt.delete(`/service-policies/${ids.dialOpen}`, admin())).status, 200);
    await node.handle.postureIdle();
    await eventually(async () => !(await sessionExists(session.id)), 'the revocation');
  });

  it('re-evaluates sessions when a posture check changes', async () => {
    await report(osReport('10.0.19045'));
    const session = await grant(ids.svcOs!);
    const patched = await node.mgmt.patch(`/posture-checks/${ids.osCheck}`, { operatingSystems: [{ type: 'Windows', versions: ['>=10.0.22000'] }] }, admin());
    assert.equal(patched.status, 200, patched.text);
    await node.handle.postureIdle();
    await eventually(async () => !(await sessionExists(session.id)), 'the revocation');
    await report(osReport('10.0.22631'));
    const again = await grant(ids.svcOs!);
    assert.equal(await sessionExists(again.id), true);
  });
});

describe('MFA checks on the injected clock', () => {
  before(async () => {
    ids.svcMfa = await create('/services', { name: 'p-svc-mfa', encryptionRequired: true, roleAttributes: ['routed'] });
    ids.svcWake = await create('/services', { name: 'p-svc-wake', encryptionRequired: true, roleAttributes: ['routed'] });
    ids.mfaTimeout = await create('/posture-checks', { name: 'p-mfa-60', typeId: 'MFA', roleAttributes: ['p-mfa-60'], timeoutSeconds: 60 });
    ids.mfaWake = await create('/posture-checks', { name: 'p-mfa-wake', typeId: 'MFA', roleAttributes: ['p-mfa-wake'], timeoutSeconds: -1, promptOnWake: true });
    await create('/service-policies', { name: 'p-dial-mfa', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${ids.svcMfa}`], postureCheckRoles: ['#p-mfa-60'] });
    await create('/service-policies', { name: 'p-dial-wake', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${ids.svcWake}`], postureCheckRoles: ['#p-mfa-wake'] });
  });

  it('refuses before MFA is passed in the API session', async () => {
    const res = await requestSession(ids.svcMfa!);
    assert.equal(res.status, 409, res.text);
    const failures = (await node.mgmt.get(`/identities/${user.id}/failed-service-requests`, admin())).body.data;
    const check = failures.at(-1).policyFailures[0].checks[0];
    assert.equal(check.postureCheckType, 'MFA');
    assert.deepEqual(check.actualValue, { passedMfa: false, passedOnWake: true, passedOnUnlock: true, timedOut: true });
    assert.deepEqual(check.expectedValue, { passedMfa: true, passedOnWake: false, passedOnUnlock: false, timedOut: false });
    assert.equal(check.criteria.timeoutSeconds, 60);
  });

  it('revokes the session when the MFA timeout runs out', async () => {
    await setMfaPassed(clock.now());
    const session = await grant(ids.svcMfa!);
    const query = (await node.client.get(`/services/${ids.svcMfa}`, user.token)).body.data.postureQueries[0].postureQueries[0];
    assert.equal(query.timeout, 60);
    assert.equal(query.timeoutRemaining, 60);
    await clock.advance(59_000);
    assert.equal(await sessionExists(session.id), true);
    await clock.advance(1_001);
    await eventually(async () => !(await sessionExists(session.id)), 'the timeout revocation');
    assert.equal((await requestSession(ids.svcMfa!)).status, 409);
  });

  it('keeps the session through the 5-minute grace after a wake event, then revokes it', async () => {
    await setMfaPassed(clock.now());
    const session = await grant(ids.svcWake!);
    await clock.advance(1_000);
    const res = await node.client.post('/posture-response', { id: ids.mfaWake, typeId: 'ENDPOINT_STATE', woken: true }, user.token);
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data.services, [{ id: ids.svcWake, name: 'p-svc-wake', postureQueryType: 'MFA', timeout: -1, timeoutRemaining: 300 }]);
    await clock.advance(299_000);
    assert.equal(await sessionExists(session.id), true);
    await clock.advance(1_000);
    await eventually(async () => !(await sessionExists(session.id)), 'the grace revocation');
    const wake = (await node.mgmt.get(`/identities/${user.id}/posture-data`, admin())).body.data.apiSessionPostureData[apiSessionId];
    assert.ok(wake.endpointState.wokenAt);
    assert.equal(wake.mfa.passedMfa, true);
    // MFA again (after the wake) passes again.
    await setMfaPassed(clock.now());
    assert.equal((await requestSession(ids.svcWake!)).status, 201);
  });
});

describe('bulk responses, deletes and the failed-request cap', () => {
  it('POST /posture-response-bulk applies every response', async () => {
    const res = await node.client.post('/posture-response-bulk', [
      { id: 'mac', typeId: 'MAC', macAddresses: ['AA:BB:CC:00:11:22'] },
      { id: 'dom', typeId: 'DOMAIN', domain: 'Corp.Example' },
      { id: 'proc', typeId: 'PROCESS', path: '/usr/bin/agent', isRunning: true, hash: 'AB'.repeat(32), signerFingerprints: ['0A:0B'] },
    ], user.token);
    assert.equal(res.status, 200, res.text);
    const data = (await node.mgmt.get(`/identities/${user.id}/posture-data`, admin())).body.data;
    assert.deepEqual(data.mac.addresses, ['aabbcc001122']);
    assert.equal(data.domain.domain, 'Corp.Example');
    assert.deepEqual(data.processes.map((p: any) => [p.postureCheckId, p.isRunning, p.binaryHash, p.signerFingerprints]), [['proc', true, 'ab'.repeat(32), ['0a0b']]]);
  });

  it('refuses an invalid response with the field path', async () => {
    const res = await node.client.post('/posture-response-bulk', [{ id: 'a', typeId: 'OS', type: 'Linux', version: '1.0.0' }, { id: 'b', typeId: 'NOPE' }], user.token);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
    assert.equal(res.body.error.cause.field, '[1].typeId');
  });

  it('deletes the caller\'s session, and only the caller\'s', async () => {
    const session = await grant(ids.svcOs!);
    const other = await node.createUser('posture-third');
    assert.equal((await node.client.delete(`/sessions/${session.id}`, other.token)).status, 404);
    assert.equal((await node.client.delete(`/sessions/${session.id}`, user.token)).status, 200);
    assert.equal(await sessionExists(session.id), false);
    const again = await grant(ids.svcOs!);
    assert.equal((await node.mgmt.delete(`/sessions/${again.id}`, admin())).status, 200);
    assert.equal(await sessionExists(again.id), false);
  });

  it('keeps the last 50 failed service requests', async () => {
    await report(osReport('10.0.18363'));
    for (let i = 0; i < 55; i++) assert.equal((await requestSession(ids.svcOs!)).status, 409);
    const res = await node.mgmt.get(`/identities/${user.id}/failed-service-requests`, admin());
    assert.equal(res.body.data.length, 50);
    assert.ok(res.body.data.every((f: any) => f.serviceId === ids.svcOs));
  });
});
