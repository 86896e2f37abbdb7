// Identity traces: the traceSpec body (Go durations, field errors), expiry, channels, and the
// trace lines logged with the trace id.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGoDuration, parseTraceRequest } from '../../../src/domain/trace-spec.js';
import { ApiError } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import { TraceRegistry } from '../../../src/ops/trace-registry.js';

const fieldError = (field: string) => (err: unknown) =>
  err instanceof ApiError && err.code === 'COULD_NOT_VALIDATE' && (err.apiCause as { field?: string }).field === field;

describe('parseGoDuration', () => {
  it('reads Go durations', () => {
    assert.equal(parseGoDuration('10m'), 600_000);
    assert.equal(parseGoDuration('1h30m'), 5_400_000);
    assert.equal(parseGoDuration('1.5s'), 1500);
    assert.equal(parseGoDuration('300ms'), 300);
    assert.equal(parseGoDuration('-2s'), -2000);
    assert.equal(parseGoDuration('0'), 0);
    for (const bad of ['', '10', 'm', '10x', '1h 30m', 'abc']) assert.equal(parseGoDuration(bad), undefined, bad);
  });
});

describe('parseTraceRequest', () => {
  it('accepts an enabled spec and a disabled one without duration', () => {
    assert.deepEqual(parseTraceRequest({ enabled: true, duration: '5m', traceId: 't-1', channels: ['api'] }), {
      enabled: true, durationMs: 300_000, traceId: 't-1', channels: ['api'],
    });
    assert.deepEqual(parseTraceRequest({ enabled: false }), { enabled: false, durationMs: 0, traceId: undefined, channels: [] });
  });

  it('names the field of each invalid part', () => {
    assert.throws(() => parseTraceRequest({ enabled: true, duration: 'soon' }), fieldError('duration'));
    assert.throws(() => parseTraceRequest({ enabled: true }), fieldError('duration'));
    assert.throws(() => parseTraceRequest({ enabled: true, duration: '-1m' }), fieldError('duration'));
    assert.throws(() => parseTraceRequest({ enabled: 'yes', duration: '1m' }), fieldError('enabled'));
    assert.throws(() => parseTraceRequest({ enabled: true, duration: '1m', channels: 'api' }), fieldError('channels'));
    assert.throws(() => parseTraceRequest({ enabled: true, duration: '1m', traceId: 'has space' }), fieldError('traceId'));
    assert.throws(() => parseTraceRequest([]), fieldError('(root)'));
  });
});

describe('TraceRegistry', () => {
  it('traces until the duration ends, on the channels asked for', () => {
    let now = 1_000;
    const traces = new TraceRegistry(undefined, () => now);
    traces.enable('id-1', { durationMs: 500, traceId: 'tr', channels: ['posture'] });
    traces.enable('id-2', { durationMs: 500, traceId: 'all', channels: ['all'] });
    assert.equal(traces.isTraced('id-1', 'posture'), 'tr');
    assert.equal(traces.isTraced('id-1', 'api'), undefined);
    assert.equal(traces.isTraced('id-1'), 'tr');
    assert.equal(traces.isTraced('id-2', 'api'), 'all');
    assert.equal(traces.isTraced(undefined), undefined);
    now = 1_500;
    assert.equal(traces.isTraced('id-1', 'posture'), undefined);
    assert.equal(traces.size, 0);
  });

  it('disable ends a trace', () => {
    const traces = new TraceRegistry();
    traces.enable('id', { durationMs: 60_000, traceId: 't', channels: [] });
    traces.disable('id');
    assert.equal(traces.isTraced('id'), undefined);
  });

  it('trace() logs with the traceId only for traced identities', () => {
    const lines: string[] = [];
    const traces = new TraceRegistry(createLogger('info', {}, (_level, line) => lines.push(line)));
    traces.enable('id', { durationMs: 60_000, traceId: 'trace-42', channels: [] });
    assert.equal(traces.trace('id', 'posture', 'posture decision', { check: 'OS', passed: false }), true);
    assert.equal(traces.trace('other', 'posture', 'posture decision'), false);
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'posture decision');
    assert.equal(logged.length, 1);
    assert.equal(logged[0].traceId, 'trace-42');
    assert.equal(logged[0].channel, 'posture');
    assert.equal(logged[0].identityId, 'id');
  });
});
