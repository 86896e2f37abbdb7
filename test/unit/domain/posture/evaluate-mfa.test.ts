// MFA posture checks driven by an explicit clock: passed MFA, timeouts (-1 = none), the
// 5-minute grace after wake / unlock events, timeoutRemaining and the next change time.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MFA_GRACE_MS,
  evaluateCheck,
  evaluateMfa,
  isLegacyClient,
  mfaNextChange,
  mfaSpecOf,
  mfaTimeoutRemaining,
  type ApiSessionPosture,
  type MfaSpec,
} from '../../../../src/domain/posture/index.js';

const T0 = Date.parse('2024-05-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const C_SDK = { type: 'ziti-sdk-c', version: '1.0.0' };

function session(opts: { passed?: number; woken?: number; unlocked?: number; sdk?: ApiSessionPosture['sdkInfo'] } = {}): ApiSessionPosture {
  return {
    passedMfaAt: opts.passed === undefined ? null : iso(opts.passed),
    wokenAt: opts.woken === undefined ? null : iso(opts.woken),
    unlockedAt: opts.unlocked === undefined ? null : iso(opts.unlocked),
    sdkInfo: opts.sdk === undefined ? C_SDK : opts.sdk,
  };
}

const spec = (over: Partial<MfaSpec> = {}): MfaSpec => ({ timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false, ...over });

describe('evaluateMfa', () => {
  it('fails until MFA is passed in the API session', () => {
    assert.equal(evaluateMfa(spec(), undefined, T0), false);
    assert.equal(evaluateMfa(spec(), session(), T0), false);
    assert.equal(evaluateMfa(spec(), session({ passed: T0 }), T0), true);
  });

  it('never times out with timeoutSeconds -1 (and reads <= 0 as -1)', () => {
    assert.equal(evaluateMfa(spec(), session({ passed: T0 }), T0 + 365 * 86_400_000), true);
    assert.equal(mfaSpecOf({ timeoutSeconds: 0 }).timeoutSeconds, -1);
  });

  it('times out once passedMfaAt + timeoutSeconds is in the past', () => {
    const s = spec({ timeoutSeconds: 60 });
    assert.equal(evaluateMfa(s, session({ passed: T0 }), T0 + 60_000), true);
    assert.equal(evaluateMfa(s, session({ passed: T0 }), T0 + 60_001), false);
  });

  it('keeps passing for five minutes after a wake event after MFA, then fails', () => {
    const s = spec({ promptOnWake: true });
    const woken = session({ passed: T0, woken: T0 + 10_000 });
    assert.equal(evaluateMfa(s, woken, T0 + 10_000 + MFA_GRACE_MS - 1), true);
    assert.equal(evaluateMfa(s, woken, T0 + 10_000 + MFA_GRACE_MS), false);
    assert.equal(evaluateMfa(spec(), woken, T0 + 10_000 + MFA_GRACE_MS), true, 'no prompt on wake');
  });

  it('passes again once MFA is redone after the event', () => {
    const s = spec({ promptOnUnlock: true });
    assert.equal(evaluateMfa(s, session({ passed: T0, unlocked: T0 + 1000 }), T0 + 1000 + MFA_GRACE_MS), false);
    assert.equal(evaluateMfa(s, session({ passed: T0 + 2000, unlocked: T0 + 1000 }), T0 + 1000 + MFA_GRACE_MS), true);
  });

  it('ignores the timeout for legacy endpoints when asked to', () => {
    const s = spec({ timeoutSeconds: 60, ignoreLegacyEndpoints: true });
    assert.equal(isLegacyClient(null), true);
    assert.equal(isLegacyClient({ type: 'ziti-sdk-c', version: '0.24.9' }), true);
    assert.equal(isLegacyClient({ type: 'ziti-sdk-golang', version: '1.0.0' }), true);
    assert.equal(isLegacyClient(C_SDK), false);
    assert.equal(evaluateMfa(s, session({ passed: T0, sdk: null }), T0 + 3_600_000), true);
    assert.equal(evaluateMfa(s, session({ passed: T0 }), T0 + 3_600_000), false);
  });
});

describe('mfaTimeoutRemaining', () => {
  it('is -1 without a timeout, 0 before MFA, else the seconds left', () => {
    assert.equal(mfaTimeoutRemaining(spec(), session({ passed: T0 }), T0), -1);
    assert.equal(mfaTimeoutRemaining(spec({ timeoutSeconds: 600 }), session(), T0), 0);
    assert.equal(mfaTimeoutRemaining(spec({ timeoutSeconds: 600 }), session({ passed: T0 }), T0 + 100_500), 500);
    assert.equal(mfaTimeoutRemaining(spec({ timeoutSeconds: 600 }), session({ passed: T0 }), T0 + 700_000), 0);
  });

  it('is cut to the grace remainder after a wake event', () => {
    const s = spec({ timeoutSeconds: 3600, promptOnWake: true });
    assert.equal(mfaTimeoutRemaining(s, session({ passed: T0, woken: T0 + 60_000 }), T0 + 120_000), 240);
  });
});

describe('mfaNextChange', () => {
  it('is the earlier of the timeout expiry and the end of a running grace', () => {
    assert.equal(mfaNextChange(spec({ timeoutSeconds: 60 }), session({ passed: T0 }), T0), T0 + 60_001);
    assert.equal(mfaNextChange(spec({ timeoutSeconds: 3600, promptOnWake: true }), session({ passed: T0, woken: T0 + 5000 }), T0 + 6000), T0 + 5000 + MFA_GRACE_MS);
    assert.equal(mfaNextChange(spec(), session({ passed: T0 }), T0), undefined);
    assert.equal(mfaNextChange(spec({ promptOnWake: true }), session({ passed: T0, woken: T0 - 1 }), T0), undefined, 'event before MFA');
  });
});

describe('MFA failure values', () => {
  it('report actual vs expected flags and the criteria', () => {
    const check = { id: 'mfa', name: 'mfa', typeId: 'MFA', timeoutSeconds: 60, promptOnWake: true, promptOnUnlock: false, ignoreLegacyEndpoints: false };
    const data = { os: null, mac: null, domain: null, processes: [], processByPath: {}, apiSessions: { api: session({ passed: T0 }) } };
    const result = evaluateCheck(check, data, 'api', T0 + 61_000);
    assert.equal(result.passing, false);
    assert.deepEqual(result.failure?.actualValue, { passedMfa: true, passedOnWake: true, passedOnUnlock: true, timedOut: true });
    assert.deepEqual(result.failure?.expectedValue, { passedMfa: true, passedOnWake: true, passedOnUnlock: false, timedOut: false });
    assert.deepEqual(result.failure?.criteria, { passedMfaAt: iso(T0), wokenAt: null, unlockedAt: null, timeoutSeconds: 60, timeoutRemainingSeconds: 0 });
    const none = evaluateCheck(check, data, 'other-session', T0);
    assert.deepEqual(none.failure?.actualValue, { passedMfa: false, passedOnWake: false, passedOnUnlock: false, timedOut: true });
  });
});
