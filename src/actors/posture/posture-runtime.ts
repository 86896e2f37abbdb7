// What the posture feature needs from the node besides the replica and the proposer: a clock
// and timers (injectable, so tests drive MFA timeouts and grace periods without sleeping), a
// way to message identity actors, where revocations are announced, and operations hooks.

/** Milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

/** One-shot timers; the handle is opaque. */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** A service session the posture feature revoked. */
export interface RevokedSession {
  id: string;
  serviceId: string;
  apiSessionId: string;
  type: string;
}

/** Announced after sessions were revoked (routers with streams for the identity learn of it). */
export interface RevocationEvent {
  identityId: string;
  sessions: RevokedSession[];
  /** Why: a posture event or timer of the identity, or a policy / check change. */
  reason: 'posture' | 'timer' | 'policy';
}

/** One handled posture submission, for metrics and tracing (operations). */
export interface PostureEventInfo {
  identityId: string;
  source: string;
  types: string[];
  revoked: number;
  ms: number;
}

/**
 * Operations hooks. `onEvent` sees each handled submission, `count` each outcome (`session`
 * granted / refused / revoked, per check type received); `isTraced` + `trace` log evaluation
 * details of traced identities. All optional; the defaults do nothing.
 */
export interface PostureObserver {
  onEvent?(event: PostureEventInfo): void;
  count?(type: string, result: string, n?: number): void;
  isTraced?(identityId: string): boolean;
  trace?(identityId: string, message: string, detail: Record<string, unknown>): void;
}

export interface PostureRuntime {
  clock: Clock;
  timers: Timers;
  /** Sends a message to an identity's actor (through the bus, so it runs in its mailbox). */
  tell?: (identityId: string, msg: { op: 'postureForget' | 'postureSnapshot' | 'postureReevaluate' | 'postureTimer' }) => Promise<unknown>;
  /** Announces revoked sessions (the node publishes them on the bus). */
  publishRevocation?: (event: RevocationEvent) => void;
  observer?: PostureObserver;
}

export const SYSTEM_CLOCK: Clock = { now: () => Date.now() };

export const REAL_TIMERS: Timers = {
  set(fn, ms) {
    const timer = setTimeout(fn, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
    timer.unref();
    return timer;
  },
  clear(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/** The runtime with defaults for anything missing (real clock and timers, no messaging). */
export function postureRuntime(partial: Partial<PostureRuntime> = {}): PostureRuntime {
  return { ...partial, clock: partial.clock ?? SYSTEM_CLOCK, timers: partial.timers ?? REAL_TIMERS };
}

/** Writes a trace line through the observer when the identity is traced. */
export function tracePosture(runtime: PostureRuntime, identityId: string, message: string, detail: () => Record<string, unknown>): void {
  const observer = runtime.observer;
  if (observer?.trace && observer.isTraced?.(identityId)) observer.trace(identityId, message, detail());
}
