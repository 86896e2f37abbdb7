// Metrics, access logs and identity traces over HTTPS: GET /metrics (open, Prometheus text,
// route templates and never ids, names or tokens), one info log line per request with its
// request id, and PUT /identities/{id}/trace marking that identity's requests with a trace id.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/logger.js';
import { startTestNode, type TestNode } from '../support/test-node.js';

describe('metrics, request logs and traces', () => {
  let node: TestNode;
  const lines: Record<string, any>[] = [];
  const scrape = async () => {
    const res = await fetch(`${node.handle.url}/metrics`, { dispatcher: (node.mgmt as any).dispatcher } as RequestInit);
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  before(async () => {
    node = await startTestNode({ logger: createLogger('info', {}, (_level, line) => lines.push(JSON.parse(line))) });
  });
  after(async () => {
    await node.close();
  });

  it('GET /metrics answers Prometheus text without a session, by route template', async () => {
    const user = await node.createUser('metrics-user-name');
    await node.mgmt.get(`/identities/${user.id}`, node.adminToken);
    await node.mgmt.get('/identities/no-such-id', node.adminToken);
    await node.client.post('/authenticate?method=password', { username: user.username, password: 'not-the-password' });
    await node.client.post('/authenticate?method=password', { username: 'nobody-at-all', password: 'whatever-pw' });
    await node.client.post('/authenticate?method=password', { username: user.username });
    const { status, type, text } = await scrape();
    assert.equal(status, 200);
    assert.equal(type, 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(text, /^# TYPE weft_http_requests_total counter$/m);
    assert.match(text, /^weft_http_requests_total\{method="GET",route="\/edge\/management\/v1\/identities\/:id",status="200"\} 1$/m);
    assert.match(text, /^weft_http_requests_total\{method="GET",route="\/edge\/management\/v1\/identities\/:id",status="404"\} 1$/m);
    assert.match(text, /^weft_http_request_duration_seconds_bucket\{method="GET",route="\/edge\/management\/v1\/identities\/:id",status="200",le="\+Inf"\} 1$/m);
    assert.match(text, /^weft_logins_total\{method="password"\} [1-9]\d*$/m);
    assert.match(text, /^weft_login_failures_total\{method="password",reason="INVALID_AUTH"\} 2$/m);
    assert.match(text, /^weft_login_failures_total\{method="password",reason="COULD_NOT_VALIDATE:field:password"\} 1$/m);
    for (const gauge of ['weft_log_apply_lag', 'weft_replica_applied_seq', 'weft_worker_pool_queue_size', 'weft_actor_in_flight', 'weft_login_limiter_window']) {
      assert.match(text, new RegExp(`^${gauge} \\d+$`, 'm'), gauge);
    }
    assert.match(text, /^weft_actors\{family="identity"\} \d+$/m);
    for (const secret of [user.id, user.username, 'metrics-user-name', user.token, node.adminToken, 'not-the-password', 'nobody-at-all']) {
      assert.ok(!text.includes(secret), `metrics expose ${secret}`);
    }
  });

  it('logs every request once at info with its request id, route template and caller', async () => {
    const res = await node.mgmt.get('/identities?limit=1', node.adminToken);
    const requestId = await node.mgmt.get('/identities/missing-one', node.adminToken).then((r) => r.body.error.requestId);
    const ok = lines.filter((l) => l.msg === 'request' && l.route === '/edge/management/v1/identities' && l.method === 'GET');
    assert.equal(res.status, 200);
    assert.ok(ok.length >= 1);
    assert.equal(ok.at(-1)!.level, 'info');
    assert.equal(ok.at(-1)!.status, 200);
    assert.equal(typeof ok.at(-1)!.ms, 'number');
    assert.ok(ok.at(-1)!.identityId, 'the caller is named');
    const failed = lines.filter((l) => l.msg === 'request' && l.requestId === requestId);
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.status, 404);
    assert.equal(failed[0]!.code, 'NOT_FOUND');
    assert.equal(failed[0]!.route, '/edge/management/v1/identities/:id');
  });

  it('PUT /identities/{id}/trace marks the identity\'s requests with the trace id until disabled', async () => {
    const user = await node.createUser('traced-user');
    const on = await node.mgmt.put(`/identities/${user.id}/trace`, { enabled: true, duration: '10m', traceId: 'trace-abc', channels: ['all'] }, node.adminToken);
    assert.equal(on.status, 200, on.text);
    assert.equal(on.body.data.enabled, true);
    assert.equal(on.body.data.traceId, 'trace-abc');
    const until = Date.parse(on.body.data.until);
    assert.ok(until > Date.now() + 9 * 60_000 && until <= Date.now() + 10 * 60_000);

    const traced = await node.client.get('/current-identity', user.token);
    assert.equal(traced.status, 200);
    const request = lines.find((l) => l.msg === 'request' && l.identityId === user.id && l.route === '/edge/client/v1/current-identity');
    assert.equal(request?.traceId, 'trace-abc');
    const trace = lines.find((l) => l.msg === 'trace request' && l.requestId === request?.requestId);
    assert.equal(trace?.traceId, 'trace-abc');
    assert.equal(trace?.path, '/edge/client/v1/current-identity');
    assert.ok(!lines.some((l) => l.msg === 'request' && l.identityId !== user.id && l.traceId), 'only the traced identity is marked');

    const generated = await node.mgmt.put(`/identities/${user.id}/trace`, { enabled: true, duration: '1h' }, node.adminToken);
    assert.match(generated.body.data.traceId, /^[0-9a-f-]{36}$/);

    const off = await node.mgmt.put(`/identities/${user.id}/trace`, { enabled: false }, node.adminToken);
    assert.deepEqual(off.body.data, { enabled: false });
    const before = lines.length;
    await node.client.get('/current-identity', user.token);
    assert.ok(!lines.slice(before).some((l) => l.traceId), 'no trace after disabling');
  });

  it('PUT /identities/{id}/trace validates its body, needs an existing identity and an admin', async () => {
    const user = await node.createUser('trace-rules');
    const bad = await node.mgmt.put(`/identities/${user.id}/trace`, { enabled: true, duration: 'ten minutes' }, node.adminToken);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'COULD_NOT_VALIDATE');
    assert.equal(bad.body.error.cause.field, 'duration');
    const missing = await node.mgmt.put('/identities/no-such-identity/trace', { enabled: true, duration: '1m' }, node.adminToken);
    assert.equal(missing.status, 404);
    const notAdmin = await node.mgmt.put(`/identities/${user.id}/trace`, { enabled: true, duration: '1m' }, user.token);
    assert.equal(notAdmin.status, 401);
  });
});
