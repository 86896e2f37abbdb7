// MFA posture checks (BEHAVIOR.md §3.1), per API session: MFA must have been passed, not longer
// ago than the timeout (-1 = none), and not followed by a wake / unlock event whose 5-minute
// grace has run out. Pure: every function takes `now` (epoch ms).

import semver from 'semver';
import type { ApiSessionPosture, SdkInfo } from './posture-data.js';
import { MFA_NO_TIMEOUT } from './posture-types.js';

/** How long a check still passes after a wake / unlock event (upstream MfaPromptGracePeriod). */
export const MFA_GRACE_MS = 5 * 60_000;
export const MFA_GRACE_SECONDS = MFA_GRACE_MS / 1000;

/** The MFA check fields that evaluation reads. */
export interface MfaSpec {
  timeoutSeconds: number;
  promptOnWake: boolean;
  promptOnUnlock: boolean;
  ignoreLegacyEndpoints: boolean;
}

export function mfaSpecOf(check: Record<string, unknown>): MfaSpec {
  const timeout = Number(check.timeoutSeconds ?? MFA_NO_TIMEOUT);
  return {
    timeoutSeconds: Number.isFinite(timeout) && timeout > 0 ? timeout : MFA_NO_TIMEOUT,
    promptOnWake: check.promptOnWake === true,
    promptOnUnlock: check.promptOnUnlock === true,
    ignoreLegacyEndpoints: check.ignoreLegacyEndpoints === true,
  };
}

const MIN_C_SDK = '0.25.0';

/** Missing sdkInfo, an SDK other than ziti-sdk-c, or a C SDK before 0.25.0 (upstream's rule). */
export function isLegacyClient(sdkInfo: SdkInfo | null | undefined): boolean {
  if (!sdkInfo) return true;
  if (sdkInfo.type === 'ziti-sdk-c') {
    const version = semver.valid(String(sdkInfo.version ?? ''));
    if (version) return semver.lt(version, MIN_C_SDK);
  }
  return true;
}

const at = (iso: string | null | undefined): number | undefined => {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
};

/** Whether the timeout applies to this session (legacy clients may be exempt). */
function timeoutApplies(spec: MfaSpec, session: ApiSessionPosture): boolean {
  return spec.timeoutSeconds !== MFA_NO_TIMEOUT && !(spec.ignoreLegacyEndpoints && isLegacyClient(session.sdkInfo));
}

export function isTimedOut(spec: MfaSpec, session: ApiSessionPosture | undefined, now: number): boolean {
  const passed = at(session?.passedMfaAt);
  if (!session || passed === undefined || !timeoutApplies(spec, session)) return false;
  return passed + spec.timeoutSeconds * 1000 < now;
}

/** An event after MFA passes only during its grace; an event before MFA (or none) passes. */
function passedEvent(prompt: boolean, eventIso: string | null, session: ApiSessionPosture | undefined, now: number): boolean {
  if (!prompt) return true;
  const passed = at(session?.passedMfaAt);
  if (passed === undefined) return false;
  const event = at(eventIso);
  return event === undefined || event < passed || now - MFA_GRACE_MS < event;
}

export function passedOnWake(spec: MfaSpec, session: ApiSessionPosture | undefined, now: number): boolean {
  return passedEvent(spec.promptOnWake, session?.wokenAt ?? null, session, now);
}

export function passedOnUnlock(spec: MfaSpec, session: ApiSessionPosture | undefined, now: number): boolean {
  return passedEvent(spec.promptOnUnlock, session?.unlockedAt ?? null, session, now);
}

export function evaluateMfa(spec: MfaSpec, session: ApiSessionPosture | undefined, now: number): boolean {
  if (!session || at(session.passedMfaAt) === undefined) return false;
  if (isTimedOut(spec, session, now)) return false;
  return passedOnWake(spec, session, now) && passedOnUnlock(spec, session, now);
}

/**
 * Seconds until the check times out: -1 without a timeout (or for an exempt legacy client), 0
 * before MFA is passed or once timed out, otherwise the time left, reduced to what remains of
 * a wake / unlock grace period that started after MFA.
 */
export function mfaTimeoutRemaining(spec: MfaSpec, session: ApiSessionPosture | undefined, now: number): number {
  if (spec.timeoutSeconds === MFA_NO_TIMEOUT) return MFA_NO_TIMEOUT;
  const passed = at(session?.passedMfaAt);
  if (!session || passed === undefined) return 0;
  if (!timeoutApplies(spec, session)) return MFA_NO_TIMEOUT;
  let remaining = spec.timeoutSeconds - Math.trunc((now - passed) / 1000);
  if (remaining <= 0) return 0;
  for (const [prompt, eventIso] of [[spec.promptOnWake, session.wokenAt], [spec.promptOnUnlock, session.unlockedAt]] as const) {
    const event = at(eventIso);
    if (!prompt || event === undefined || event <= passed) continue;
    remaining = Math.min(remaining, Math.max(0, Math.trunc((MFA_GRACE_MS - (now - event)) / 1000)));
  }
  return remaining;
}

/** The wake / unlock time a posture query shows as `updatedAt` when newer than the check's. */
export function mfaLastUpdatedAt(spec: MfaSpec, session: ApiSessionPosture | undefined): string | null {
  if (!session || !session.passedMfaAt) return null;
  let latest: string | null = null;
  if (spec.promptOnWake && session.wokenAt) latest = session.wokenAt;
  if (spec.promptOnUnlock && session.unlockedAt && (latest === null || (at(session.unlockedAt) ?? 0) > (at(latest) ?? 0))) {
    latest = session.unlockedAt;
  }
  return latest;
}

/**
 * The next moment (epoch ms, > now) at which a passing check would start failing with no new
 * event: the timeout expiry or the end of a running grace period. Undefined when none is due.
 */
export function mfaNextChange(spec: MfaSpec, session: ApiSessionPosture | undefined, now: number): number | undefined {
  const passed = at(session?.passedMfaAt);
  if (!session || passed === undefined) return undefined;
  const candidates: number[] = [];
  // Fails once passedMfaAt + timeout is strictly in the past.
  if (timeoutApplies(spec, session)) candidates.push(passed + spec.timeoutSeconds * 1000 + 1);
  for (const [prompt, eventIso] of [[spec.promptOnWake, session.wokenAt], [spec.promptOnUnlock, session.unlockedAt]] as const) {
    const event = at(eventIso);
    if (prompt && event !== undefined && event >= passed) candidates.push(event + MFA_GRACE_MS);
  }
  const future = candidates.filter((t) => t > now);
  return future.length > 0 ? Math.min(...future) : undefined;
}

/** Upstream's failure values of an MFA check: actual vs expected flags and the criteria. */
export function mfaFailureValues(spec: MfaSpec, session: ApiSessionPosture | undefined, now: number): Record<string, unknown> {
  const passedMfa = Boolean(session?.passedMfaAt);
  return {
    actualValue: {
      passedMfa,
      passedOnWake: session ? passedOnWake(spec, session, now) : false,
      passedOnUnlock: session ? passedOnUnlock(spec, session, now) : false,
      timedOut: passedMfa ? isTimedOut(spec, session, now) : true,
    },
    expectedValue: { passedMfa: true, passedOnWake: spec.promptOnWake, passedOnUnlock: spec.promptOnUnlock, timedOut: false },
    criteria: {
      passedMfaAt: session?.passedMfaAt ?? null,
      wokenAt: session?.wokenAt ?? null,
      unlockedAt: session?.unlockedAt ?? null,
      timeoutSeconds: spec.timeoutSeconds,
      timeoutRemainingSeconds: passedMfa ? mfaTimeoutRemaining(spec, session, now) : 0,
    },
  };
}
