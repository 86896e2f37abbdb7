// The identity actor's volatile posture state: responses applied per API session, the failed
// request cap, pruning of gone API sessions and the single re-armable MFA timer.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IdentityPosture } from '../../../../src/actors/posture/identity-posture.js';
import { FakeClock } from '../../../support/fake-clock.js';

describe('IdentityPosture', () => {
  it('stamps wake events on the given API sessions only', () => {
    const state = new IdentityPosture();
    state.apply([{ id: 'e', typeId: 'ENDPOINT_STATE', woken: true, unlocked: false }], ['a1'], '2024-01-01T00:00:00.000Z');
    assert.equal(state.data.apiSessions.a1?.wokenAt, '2024-01-01T00:00:00.000Z');
    assert.equal(state.data.apiSessions.a1?.unlockedAt, null);
    assert.equal(state.data.apiSessions.a2, undefined);
    state.keepApiSessions(new Set(['a2']));
    assert.equal(state.data.apiSessions.a1, undefined);
  });

  it('keeps the last 50 failed service requests', () => {
    const state = new IdentityPosture();
    for (let i = 0; i < 60; i++) state.recordFailure({ when: '', apiSessionId: 'a', serviceId: String(i), serviceName: '', sessionType: 'Dial', policyFailures: [] });
    const failed = state.failedRequests();
    assert.equal(failed.length, 50);
    assert.equal(failed[0]!.serviceId, '10');
  });

  it('arms one timer, replaces it when the time changes and fires at the time', async () => {
    const clock = new FakeClock(1_000);
    const state = new IdentityPosture();
    const fired: number[] = [];
    state.schedule(clock, 5_000, clock.now(), () => fired.push(clock.now()));
    state.schedule(clock, 5_000, clock.now(), () => fired.push(-1));
    assert.equal(clock.armed, 1, 'same time: kept');
    state.schedule(clock, 3_000, clock.now(), () => fired.push(clock.now()));
    assert.equal(clock.armed, 1, 'new time: replaced');
    await clock.advance(1_999);
    assert.equal(fired.length, 0);
    await clock.advance(1);
    assert.deepEqual(fired, [3_000]);
    state.fired();
    assert.equal(state.scheduledAt(), undefined);
    state.schedule(clock, 9_000, clock.now(), () => fired.push(clock.now()));
    state.cancel(clock);
    assert.equal(clock.armed, 0);
  });
});
