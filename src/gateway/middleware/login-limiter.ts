// The adaptive login limiter (BEHAVIOR §8, upstream's auth rate limiter): at most `window`
// logins run at once; the window starts at the maximum, grows by one every 10 timely logins
// and shrinks below the position of a slow one. Excess logins get 429 at once.

import type { Context, Next } from 'koa';
import { ApiError } from '../../errors.js';

export interface LoginLimiterOptions {
  /** Smallest window (default 5). */
  minSize?: number;
  /** Largest window, and the starting one (default 250). */
  maxSize?: number;
  /** A login slower than this (ms) shrinks the window (default 5000). */
  slowMs?: number;
}

export class LoginLimiter {
  readonly minSize: number;
  readonly maxSize: number;
  readonly slowMs: number;
  private current: number;
  private running = 0;
  private timely = 0;

  constructor(opts: LoginLimiterOptions = {}) {
    this.minSize = Math.max(1, opts.minSize ?? 5);
    this.maxSize = Math.max(this.minSize, opts.maxSize ?? 250);
    this.slowMs = opts.slowMs ?? 5000;
    this.current = this.maxSize;
  }

  /** Admits one login and returns its position, or throws 429 SERVER_TOO_MANY_REQUESTS. */
  acquire(): number {
    const position = this.running + 1;
    if (position > this.current) throw new ApiError('SERVER_TOO_MANY_REQUESTS');
    this.running = position;
    return position;
  }

  /** Ends an admitted login that took `elapsedMs`: a slow one shrinks the window to ten below
   * its position (never under the minimum); every tenth timely one grows it by one. */
  release(position: number, elapsedMs: number): void {
    this.running = Math.max(0, this.running - 1);
    if (elapsedMs > this.slowMs) {
      this.current = Math.min(this.current, Math.max(this.minSize, position - 10));
    } else if (this.current < this.maxSize && ++this.timely % 10 === 0) {
      this.current++;
    }
  }

  /** The window and the logins under way (for metrics). */
  state(): { window: number; inFlight: number } {
    return { window: this.current, inFlight: this.running };
  }
}

/** Runs the requests `isLogin` selects through the limiter; all others pass untouched (and
 * without an async step of their own: this runs for every request). */
export function loginLimiterMiddleware(limiter: LoginLimiter, isLogin: (ctx: Context) => boolean) {
  const limited = async (next: Next): Promise<void> => {
    const position = limiter.acquire();
    const started = performance.now();
    try {
      await next();
    } finally {
      limiter.release(position, performance.now() - started);
    }
  };
  return function limitLogins(ctx: Context, next: Next): Promise<void> {
    return isLogin(ctx) ? limited(next) : next();
  };
}
