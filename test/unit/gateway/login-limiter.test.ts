// The adaptive login limiter (BEHAVIOR §8): starts at the maximum window, refuses logins past
// it with 429, shrinks below a slow login's position (never under the minimum) and grows back
// by one every ten timely logins (never over the maximum).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/errors.js';
import { LoginLimiter } from '../../../src/gateway/middleware/login-limiter.js';

const refused = (err: unknown) => err instanceof ApiError && err.code === 'SERVER_TOO_MANY_REQUESTS' && err.status === 429;

describe('LoginLimiter', () => {
  it('admits up to the window at once and refuses the excess with 429', () => {
    const limiter = new LoginLimiter({ minSize: 5, maxSize: 20 });
    const positions = Array.from({ length: 20 }, () => limiter.acquire());
    assert.deepEqual(positions, Array.from({ length: 20 }, (_, i) => i + 1));
    assert.throws(() => limiter.acquire(), refused);
    limiter.release(20, 1);
    assert.equal(limiter.acquire(), 20);
    assert.deepEqual(limiter.state(), { window: 20, inFlight: 20 });
  });

  it('shrinks to ten below a slow login and never under the minimum', () => {
    const limiter = new LoginLimiter({ minSize: 5, maxSize: 250, slowMs: 100 });
    for (let i = 0; i < 40; i++) limiter.acquire();
    limiter.release(40, 500);
    assert.equal(limiter.state().window, 30);
    limiter.release(8, 500);
    assert.equal(limiter.state().window, 5);
    for (let i = 0; i < 38; i++) limiter.release(1, 1);
    assert.equal(limiter.state().inFlight, 0);
  });

  it('grows by one every ten timely logins up to the maximum', () => {
    const limiter = new LoginLimiter({ minSize: 5, maxSize: 12, slowMs: 100 });
    limiter.acquire();
    limiter.release(21, 1000);
    assert.equal(limiter.state().window, 11);
    for (let i = 0; i < 9; i++) limiter.release(limiter.acquire(), 1);
    assert.equal(limiter.state().window, 11);
    limiter.release(limiter.acquire(), 1);
    assert.equal(limiter.state().window, 12);
    for (let i = 0; i < 100; i++) limiter.release(limiter.acquire(), 1);
    assert.equal(limiter.state().window, 12);
  });

  it('defaults to a 5..250 window starting at 250', () => {
    const limiter = new LoginLimiter();
    assert.equal(limiter.minSize, 5);
    assert.equal(limiter.maxSize, 250);
    assert.equal(limiter.state().window, 250);
  });
});
