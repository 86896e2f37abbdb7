// Unit tests of the gateway's memory of resolved sessions: reused only at the same replica
// version and for under a second, with the expiry moved on by the time since.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CallerCache } from '../../../src/gateway/middleware/caller-cache.js';
import type { SessionInfo } from '../../../src/protocol/v1/query-messages.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');

function session(id: string): SessionInfo {
  return {
    apiSessionId: id,
    identityId: 'identity-1',
    identityName: 'admin',
    isAdmin: true,
    expiresAt: new Date(T0 + 1_800_000).toISOString(),
    expirationSeconds: 1_800,
    isMfaRequired: false,
    isMfaComplete: false,
    requiredExtJwtSigner: null,
  };
}

describe('CallerCache', () => {
  it('recalls a session resolved at the current version, its expiry moved on by the time since', () => {
    const cache = new CallerCache(() => 7);
    cache.remember('token-a', session('s-a'), 7, T0);
    const recalled = cache.recall('token-a', T0 + 250);
    assert.equal(recalled?.session.apiSessionId, 's-a');
    assert.equal(recalled?.expiresAt, new Date(T0 + 1_800_000 + 250).toISOString());
    assert.equal(cache.recall('token-b', T0 + 250), undefined, 'another token is not known');
  });

  it('forgets every session once the replica version moves (any applied change)', () => {
    let version = 7;
    const cache = new CallerCache(() => version);
    cache.remember('token-a', session('s-a'), 7, T0);
    version = 8;
    assert.equal(cache.recall('token-a', T0 + 1), undefined);
    version = 7;
    assert.equal(cache.recall('token-a', T0 + 2), undefined, 'dropped, not just hidden');
  });

  it('does not keep a session resolved while a change landed (version read before asking)', () => {
    const cache = new CallerCache(() => 8);
    cache.remember('token-a', session('s-a'), 7, T0);
    assert.equal(cache.recall('token-a', T0 + 1), undefined);
  });

  it('asks again after a second, and when the clock goes back', () => {
    const cache = new CallerCache(() => 1);
    cache.remember('token-a', session('s-a'), 1, T0);
    assert.ok(cache.recall('token-a', T0 + 999));
    assert.equal(cache.recall('token-a', T0 + 1_000), undefined);
    cache.remember('token-a', session('s-a'), 1, T0);
    assert.equal(cache.recall('token-a', T0 - 1), undefined);
  });

  it('keeps at most 10,000 tokens, dropping the oldest first', () => {
    const cache = new CallerCache(() => 1);
    for (let i = 0; i <= 10_000; i++) cache.remember(`token-${i}`, session(`s-${i}`), 1, T0);
    assert.equal(cache.recall('token-0', T0 + 1), undefined);
    assert.equal(cache.recall('token-1', T0 + 1)?.session.apiSessionId, 's-1');
    assert.equal(cache.recall('token-10000', T0 + 1)?.session.apiSessionId, 's-10000');
  });
});
