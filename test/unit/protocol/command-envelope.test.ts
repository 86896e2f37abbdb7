// The requester's fields of a command on the owner's clock: a `proposeWithinMs` duration counts
// from the command's arrival, whatever the requester's clock says; without it, `proposeBy` stands.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onOwnerClock, readRequestFields } from '../../../src/protocol/v1/command-envelope.js';

describe('onOwnerClock', () => {
  it('counts proposeBy from the arrival when the requester sent proposeWithinMs (its clock 1 h off)', () => {
    const arrivedAt = 1_700_000_000_000;
    const request = readRequestFields({ key: 'k', rid: 'r1', deadline: arrivedAt + 3_600_000 + 10_000, proposeBy: arrivedAt + 3_600_000 + 2_000, proposeWithinMs: 2_000 });
    const local = onOwnerClock(request, arrivedAt);
    assert.equal(local.proposeBy, arrivedAt + 2_000);
    assert.equal(local.deadline, request.deadline, 'the deadline stays the requester\'s number');
  });

  it('keeps proposeBy as sent by a requester that sends no duration (an older node)', () => {
    const request = readRequestFields({ key: 'k', proposeBy: 42 });
    assert.equal(onOwnerClock(request, 1_000).proposeBy, 42);
  });

  it('ignores a negative duration', () => {
    const request = readRequestFields({ key: 'k', proposeBy: 42, proposeWithinMs: -5 });
    assert.equal(onOwnerClock(request, 1_000).proposeBy, 42);
  });
});
