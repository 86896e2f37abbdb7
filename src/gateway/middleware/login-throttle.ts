// Failed-login throttling (before any password hash): failures are counted per username and per
// source address; past a few free failures each further attempt must wait twice as long as the
// one before (1 s, 2 s, 4 s ... up to 60 s), or it is refused with 429 RATE_LIMITED and
// Retry-After. Counts live in this node's memory and are forgotten 15 minutes after a failure.

import type { Context, Next } from 'koa';
import { ApiError } from '../../errors.js';

export interface LoginThrottleOptions {
  /** Failures of one username before attempts are slowed (default 5). */
  freePerUsername?: number;
  /** Failures from one source address before attempts are slowed (default 100: many users may
   * share one address behind NAT). */
  freePerAddress?: number;
  /** The first wait after the free failures, doubled per further failure (ms, default 1000). */
  baseDelayMs?: number;
  /** The longest wait (ms, default 60,000). */
  maxDelayMs?: number;
  /** A key with no failure for this long starts afresh (ms, default 15 minutes). */
  forgetAfterMs?: number;
  /** Keys tracked at most per kind; the least recently failed go first (default 10,000). */
  maxTracked?: number;
  now?: () => number;
}

interface Failures {
  count: number;
  last: number;
}

export class LoginThrottle {
  private readonly opts: Required<LoginThrottleOptions>;
  private readonly usernames = new Map<string, Failures>();
  private readonly addresses = new Map<string, Failures>();

  constructor(opts: LoginThrottleOptions = {}) {
    this.opts = {
      freePerUsername: 5,
      freePerAddress: 100,
      baseDelayMs: 1000,
      maxDelayMs: 60_000,
      forgetAfterMs: 15 * 60_000,
      maxTracked: 10_000,
      now: Date.now,
      ...opts,
    };
  }

  /** Milliseconds before this login may be tried (0 = now). */
  waitMs(username: string | undefined, address: string): number {
    const now = this.opts.now();
    const byName = username === undefined ? 0 : this.wait(this.usernames, username, this.opts.freePerUsername, now);
    return Math.max(byName, this.wait(this.addresses, address, this.opts.freePerAddress, now));
  }

  /** Counts a failed login (wrong username or password). */
  failed(username: string | undefined, address: string): void {
    const now = this.opts.now();
    if (username !== undefined) this.count(this.usernames, username, now);
    this.count(this.addresses, address, now);
  }

  /** A successful login clears its username's failures (its address's decay with time). */
  succeeded(username: string | undefined): void {
    if (username !== undefined) this.usernames.delete(username);
  }

  private wait(map: Map<string, Failures>, key: string, free: number, now: number): number {
    const failures = map.get(key);
    if (!failures || failures.count < free || now - failures.last > this.opts.forgetAfterMs) return 0;
    const delay = Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** Math.min(30, failures.count - free));
    return Math.max(0, failures.last + delay - now);
  }

  private count(map: Map<string, Failures>, key: string, now: number): void {
    const previous = map.get(key);
    const count = previous && now - previous.last <= this.opts.forgetAfterMs ? previous.count + 1 : 1;
    map.delete(key); // re-inserted last: the map stays ordered by last failure
    map.set(key, { count, last: now });
    if (map.size > this.opts.maxTracked) map.delete(map.keys().next().value!);
  }
}

/** Throttles the requests `isPasswordLogin` selects (after the body parser: reads `username`). */
export function loginThrottleMiddleware(throttle: LoginThrottle, isPasswordLogin: (ctx: Context) => boolean) {
  const throttled = async (ctx: Context, next: Next): Promise<void> => {
    const body = (ctx.request as unknown as { body?: unknown }).body as { username?: unknown } | undefined;
    const username = typeof body?.username === 'string' ? body.username : undefined;
    const waitMs = throttle.waitMs(username, ctx.ip);
    if (waitMs > 0) throw new ApiError('RATE_LIMITED', { code: 'UNHANDLED', message: 'too many failed logins: try again later', retryAfterSeconds: Math.ceil(waitMs / 1000) });
    try {
      await next();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'INVALID_AUTH') throttle.failed(username, ctx.ip);
      throw err;
    }
    throttle.succeeded(username);
  };
  return function throttleLogins(ctx: Context, next: Next): Promise<void> {
    return isPasswordLogin(ctx) ? throttled(ctx, next) : next();
  };
}
