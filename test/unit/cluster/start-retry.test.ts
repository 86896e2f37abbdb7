import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { ErrorCode, NatsError } from 'nats';
import { ClusterJoinError } from '../../../src/cluster/cluster-join.js';
import { NodeIdInUseError } from '../../../src/cluster/membership.js';
import { causeOf, isTransientAtStart, startRetry } from '../../../src/cluster/start-retry.js';
import { LogUnavailableError } from '../../../src/log/log-errors.js';

function failing(errors: unknown[]): { fn: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    fn: async () => {
      const err = errors[calls++];
      if (err !== undefined) throw err;
      return 'done';
    },
    calls: () => calls,
  };
}

describe('startRetry', () => {
  it('retries a timeout and JetStream without a leader, telling each retry once with its step', async () => {
    const told: string[] = [];
    const retry = startRetry({ deadline: Infinity, backoffMs: [1], onRetry: (step, err) => told.push(`${step}: ${causeOf(err)}`) });
    const notReady = Object.assign(new NatsError('JetStream system temporarily unavailable', '503'), { api_error: { code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' } });
    const attempt = failing([NatsError.errorForCode(ErrorCode.Timeout), notReady]);
    assert.equal(await retry('open the members bucket', attempt.fn), 'done');
    assert.equal(attempt.calls(), 3);
    assert.equal(told.length, 2);
    assert.match(told[0], /^open the members bucket: .*TIMEOUT/);
  });

  it('throws a refusal at once: wrong secret, node id in use, a JetStream error with another code', async () => {
    const told: string[] = [];
    const retry = startRetry({ deadline: Infinity, backoffMs: [1], onRetry: (step) => told.push(step) });
    const refused = Object.assign(new NatsError('insufficient resources', '503'), { api_error: { code: 503, err_code: 10023, description: 'insufficient resources' } });
    for (const err of [new ClusterJoinError('secret'), new NodeIdInUseError('in use'), refused]) {
      const attempt = failing([err]);
      await assert.rejects(retry('join', attempt.fn), (e) => e === err);
      assert.equal(attempt.calls(), 1);
    }
    assert.deepEqual(told, []);
  });

  it('throws the last transient failure once the deadline has passed', async () => {
    const retry = startRetry({ deadline: Date.now() - 1, backoffMs: [1], onRetry: () => assert.fail('no retry after the deadline') });
    const timeout = NatsError.errorForCode(ErrorCode.Timeout);
    await assert.rejects(retry('join', failing([timeout]).fn), (e) => e === timeout);
  });

  it('counts a log that could not open for a transient cause as transient, and one without a cause not', () => {
    assert.equal(isTransientAtStart(new LogUnavailableError('no answer', { cause: NatsError.errorForCode(ErrorCode.Timeout) })), true);
    assert.equal(isTransientAtStart(new LogUnavailableError('the NATS connection is closed')), false);
    assert.equal(isTransientAtStart(NatsError.errorForCode(ErrorCode.ConnectionRefused)), true);
  });
});
