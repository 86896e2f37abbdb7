// LoginThrottle: free failures, then doubling waits per username and per source address, capped,
// forgotten after a quiet period; a success clears its username only.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoginThrottle } from '../../../src/gateway/middleware/login-throttle.js';

function throttle() {
  let now = 1_000_000;
  const t = new LoginThrottle({ freePerUsername: 3, freePerAddress: 6, baseDelayMs: 1000, maxDelayMs: 8000, forgetAfterMs: 60_000, now: () => now });
  return { t, advance: (ms: number) => (now += ms) };
}

describe('LoginThrottle', () => {
  it('lets the free failures of a username through, then doubles the wait per failure up to the cap', () => {
    const { t, advance } = throttle();
    for (let i = 0; i < 3; i++) {
      assert.equal(t.waitMs('admin', 'a1'), 0);
      t.failed('admin', 'a1');
    }
    assert.equal(t.waitMs('admin', 'a2'), 1000, 'the username is slowed from any address');
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const wait = t.waitMs('admin', `other-${i}`);
      waits.push(wait);
      advance(wait);
      t.failed('admin', `other-${i}`);
    }
    assert.deepEqual(waits, [1000, 2000, 4000, 8000, 8000]);
  });

  it('slows one address guessing many usernames', () => {
    const { t } = throttle();
    for (let i = 0; i < 6; i++) t.failed(`user-${i}`, 'a1');
    assert.equal(t.waitMs('fresh-user', 'a1'), 1000);
    assert.equal(t.waitMs('fresh-user', 'a2'), 0);
  });

  it('clears a username on success but keeps its address count', () => {
    const { t } = throttle();
    for (let i = 0; i < 6; i++) t.failed('admin', 'a1');
    t.succeeded('admin');
    assert.equal(t.waitMs('admin', 'a2'), 0);
    assert.ok(t.waitMs('admin', 'a1') > 0);
  });

  it('forgets failures after the quiet period', () => {
    const { t, advance } = throttle();
    for (let i = 0; i < 10; i++) t.failed('admin', 'a1');
    advance(60_001);
    assert.equal(t.waitMs('admin', 'a1'), 0);
    t.failed('admin', 'a1');
    assert.equal(t.waitMs('admin', 'a1'), 0, 'counting starts afresh');
  });
});
