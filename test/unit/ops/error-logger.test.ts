// The log line of a request that was not served: a fault at error level with its stack, a
// deliberate 503 "try again" as one warning with its cause, a caller's refusal at debug.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import { createErrorLogger } from '../../../src/ops/request-observer.js';

function capture(): { lines: { level: string; entry: Record<string, any> }[]; logError: ReturnType<typeof createErrorLogger> } {
  const lines: { level: string; entry: Record<string, any> }[] = [];
  const log = createLogger('debug', {}, (level, line) => lines.push({ level, entry: JSON.parse(line) }));
  return { lines, logError: createErrorLogger(log) };
}

const base = { requestId: 'r1', method: 'POST', path: '/edge/management/v1/identities' };

describe('createErrorLogger', () => {
  it('logs a fault (500) at error level with the error and its stack', () => {
    const { lines, logError } = capture();
    logError({ ...base, code: 'UNHANDLED', status: 500, error: new TypeError('boom') });
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 'error');
    assert.equal(lines[0]!.entry.msg, 'request failed');
    assert.match(JSON.stringify(lines[0]!.entry.error), /TypeError: boom/);
  });

  it('logs a 503 SERVICE_UNAVAILABLE as one warning with its cause, without a stack', () => {
    const { lines, logError } = capture();
    const error = new ApiError('SERVICE_UNAVAILABLE', { code: 'NATS_UNREACHABLE', message: 'the cluster log cannot be read now' });
    logError({ ...base, code: 'SERVICE_UNAVAILABLE', status: 503, error });
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 'warn');
    assert.equal(lines[0]!.entry.msg, 'request not served now');
    assert.deepEqual(lines[0]!.entry.cause, { code: 'NATS_UNREACHABLE', message: 'the cluster log cannot be read now' });
    assert.equal(lines[0]!.entry.requestId, 'r1');
    assert.equal(lines[0]!.entry.error, undefined);
    assert.doesNotMatch(JSON.stringify(lines[0]!.entry), /stack|at .*\.js:\d+/);
  });

  it('logs a refusal (4xx) at debug', () => {
    const { lines, logError } = capture();
    logError({ ...base, code: 'NOT_FOUND', status: 404 });
    assert.deepEqual(lines.map((l) => [l.level, l.entry.msg]), [['debug', 'request refused']]);
  });
});
