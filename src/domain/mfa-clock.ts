// The clock TOTP codes are checked against. Real time unless a test sets another, so tests can
// pin time or step it by 30 s without sleeping; it reads no environment.

let clock: () => number = Date.now;

/** Milliseconds since the epoch, as TOTP checks see them. */
export function mfaNow(): number {
  return clock();
}

/**
 * Replaces the TOTP clock; call with no argument to go back to real time. Tests that start a
 * node in-process (test/support/test-node.ts) share this module with it:
 * `setMfaClock(() => fixedMs)` in `before`, codes computed for `fixedMs`, `setMfaClock()` in
 * `after`. Only TOTP checks use it; record times and session expiry stay on real time.
 */
export function setMfaClock(now?: () => number): void {
  clock = now ?? Date.now;
}
