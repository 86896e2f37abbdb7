// The Prometheus text exposition: counters, gauges collected at scrape time, cumulative
// histograms, label escaping, the series cap, and the login failure reasons (bounded).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MetricsRegistry } from '../../../src/ops/metrics-registry.js';
import { loginFailureReason, NodeMetrics } from '../../../src/ops/node-metrics.js';

describe('MetricsRegistry', () => {
  it('renders counters with HELP, TYPE and escaped labels', async () => {
    const r = new MetricsRegistry();
    const c = r.counter('x_total', 'Things\ncounted', ['route']);
    c.inc({ route: '/a/:id' });
    c.inc({ route: '/a/:id' }, 2);
    c.inc({ route: 'q"\\\n' });
    c.inc({ route: '/a/:id' }, -5);
    const text = await r.render();
    assert.match(text, /^# HELP x_total Things\\ncounted$/m);
    assert.match(text, /^# TYPE x_total counter$/m);
    assert.match(text, /^x_total\{route="\/a\/:id"\} 3$/m);
    assert.ok(text.includes('x_total{route="q\\"\\\\\\n"} 1'), text);
    assert.ok(text.endsWith('\n'));
  });

  it('collects gauges at every scrape, forgetting series gone since', async () => {
    const r = new MetricsRegistry();
    let families: Record<string, number> = { a: 1, b: 2 };
    r.gauge('g', 'gauge', ['family'], (g) => {
      for (const [family, n] of Object.entries(families)) g.set({ family }, n);
    });
    assert.match(await r.render(), /^g\{family="b"\} 2$/m);
    families = { a: 5 };
    const text = await r.render();
    assert.match(text, /^g\{family="a"\} 5$/m);
    assert.doesNotMatch(text, /family="b"/);
  });

  it('renders cumulative histogram buckets, +Inf, sum and count', async () => {
    const r = new MetricsRegistry();
    const h = r.histogram('lat_seconds', 'latency', ['route'], [0.1, 1]);
    h.observe({ route: 'r' }, 0.05);
    h.observe({ route: 'r' }, 0.5);
    h.observe({ route: 'r' }, 3);
    const text = await r.render();
    assert.match(text, /^lat_seconds_bucket\{route="r",le="0.1"\} 1$/m);
    assert.match(text, /^lat_seconds_bucket\{route="r",le="1"\} 2$/m);
    assert.match(text, /^lat_seconds_bucket\{route="r",le="\+Inf"\} 3$/m);
    assert.match(text, /^lat_seconds_sum\{route="r"\} 3.55$/m);
    assert.match(text, /^lat_seconds_count\{route="r"\} 3$/m);
  });

  it('caps the series of one metric and counts what it drops', async () => {
    const r = new MetricsRegistry();
    const c = r.counter('many_total', 'many', ['v']);
    for (let i = 0; i < 2100; i++) c.inc({ v: String(i) });
    const text = await r.render();
    assert.equal(text.split('\n').filter((l) => l.startsWith('many_total{')).length, 2000);
    assert.match(text, /^weft_metrics_dropped_series_total 100$/m);
  });

  it('refuses invalid and duplicate metric names', () => {
    const r = new MetricsRegistry();
    r.counter('ok_total', 'ok');
    assert.throws(() => r.counter('ok_total', 'again'));
    assert.throws(() => r.counter('bad-name', 'bad'));
  });
});

describe('NodeMetrics', () => {
  it('counts logins by known method and failures by reason', async () => {
    const m = new NodeMetrics();
    m.observeLogin('password', 200, 'ignored');
    m.observeLogin('password', 401, 'INVALID_AUTH');
    m.observeLogin('<script>', 400, 'INVALID_AUTH_METHOD:field:method');
    const text = await m.render();
    assert.match(text, /^weft_logins_total\{method="password"\} 1$/m);
    assert.match(text, /^weft_login_failures_total\{method="password",reason="INVALID_AUTH"\} 1$/m);
    assert.match(text, /^weft_login_failures_total\{method="other",reason="INVALID_AUTH_METHOD:field:method"\} 1$/m);
    assert.doesNotMatch(text, /script/);
  });

  it('exposes the log apply lag from its sources', async () => {
    const m = new NodeMetrics({ appliedSeq: () => 7, lastSeq: async () => 10 });
    const text = await m.render();
    assert.match(text, /^weft_log_apply_lag 3$/m);
    assert.match(text, /^weft_replica_applied_seq 7$/m);
  });

  it('reads the last sequence and the cluster membership once per scrape', async () => {
    let lastReads = 0;
    let clusterReads = 0;
    const m = new NodeMetrics({
      appliedSeq: () => 7,
      lastSeq: () => (lastReads++, 12),
      cluster: () => (clusterReads++, { members: 3, readyMembers: 2, shardsOwned: 21 }),
    });
    const text = await m.render();
    assert.equal(lastReads, 1);
    assert.equal(clusterReads, 1);
    assert.match(text, /^weft_log_last_seq 12$/m);
    assert.match(text, /^weft_log_apply_lag 5$/m);
    assert.match(text, /^weft_cluster_members\{state="live"\} 3$/m);
    assert.match(text, /^weft_cluster_members\{state="ready"\} 2$/m);
    assert.match(text, /^weft_cluster_shards_owned 21$/m);
    await m.render();
    assert.equal(lastReads, 2);
    assert.equal(clusterReads, 2);
  });

  it('leaves the lag out until the last sequence was first read', async () => {
    const m = new NodeMetrics({ appliedSeq: () => 7, lastSeq: () => undefined });
    const text = await m.render();
    assert.doesNotMatch(text, /^weft_log_apply_lag \d/m);
    assert.doesNotMatch(text, /^weft_log_last_seq \d/m);
  });
});

describe('loginFailureReason', () => {
  it('is the code, refined by a bounded category of the cause', () => {
    assert.equal(loginFailureReason('INVALID_AUTH', undefined), 'INVALID_AUTH');
    assert.equal(loginFailureReason('COULD_NOT_VALIDATE', { field: 'password', value: '******', reason: 'x' }), 'COULD_NOT_VALIDATE:field:password');
    assert.equal(loginFailureReason('INVALID_AUTH', { code: 'UNHANDLED', message: 'the identity is disabled' }), 'INVALID_AUTH:identity_disabled');
    assert.equal(loginFailureReason('INVALID_AUTH', { code: 'MFA_INVALID_TOKEN' }), 'INVALID_AUTH:MFA_INVALID_TOKEN');
    assert.equal(loginFailureReason('INVALID_AUTH', { code: 'UNHANDLED', reason: 'BAD_SIGNATURE', message: 'the token signature does not verify' }), 'INVALID_AUTH:BAD_SIGNATURE');
    assert.equal(loginFailureReason('INVALID_AUTH', { code: 'UNHANDLED', message: 'user alice@example.com said hello' }), 'INVALID_AUTH:other');
    assert.equal(loginFailureReason('INVALID_AUTH', { field: 'a field with spaces', value: 1, reason: 'x' }), 'INVALID_AUTH');
  });
});
