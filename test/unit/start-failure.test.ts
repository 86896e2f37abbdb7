// The message a node prints when a NATS request fails while it starts: one line for the
// operator, never a stack trace.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, NatsError } from 'nats';
import { natsStartFailure } from '../../src/main.js';

describe('natsStartFailure', () => {
  it('tells a JetStream request left unanswered at start, and that starting again is safe', () => {
    const message = natsStartFailure(NatsError.errorForCode(ErrorCode.Timeout));
    assert.match(message ?? '', /did not answer a JetStream request in time while this node was starting \(TIMEOUT\)/);
    assert.match(message ?? '', /Starting the node again is safe/);
    assert.doesNotMatch(message ?? '', /\n|at .*\.js:\d+/);
  });

  it('names another NATS failure with its code', () => {
    const message = natsStartFailure(NatsError.errorForCode(ErrorCode.JetStreamNotEnabled));
    assert.match(message ?? '', /^a NATS request failed while this node was starting: .+ \(503\)$/);
  });

  it('leaves any other error alone', () => {
    assert.equal(natsStartFailure(new Error('disk full')), undefined);
    assert.equal(natsStartFailure('TIMEOUT'), undefined);
  });
});
