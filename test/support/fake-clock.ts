// A fake clock with timers for posture tests: time only moves when a test advances it, and
// timers due by then run in time order (each followed by a macrotask turn so the work they
// start can finish).

import type { Clock, Timers } from '../../src/actors/posture/posture-runtime.js';

interface Pending {
  at: number;
  fn: () => void;
  id: number;
}

export class FakeClock implements Clock, Timers {
  private current: number;
  private pending: Pending[] = [];
  private nextId = 1;

  constructor(start = Date.now()) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  set(fn: () => void, ms: number): unknown {
    const timer = { at: this.current + Math.max(0, ms), fn, id: this.nextId++ };
    this.pending.push(timer);
    return timer.id;
  }

  clear(handle: unknown): void {
    this.pending = this.pending.filter((t) => t.id !== handle);
  }

  /** Timers armed and not yet run. */
  get armed(): number {
    return this.pending.length;
  }

  /** Moves time forward by `ms`, running every timer due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      this.pending.sort((a, b) => a.at - b.at || a.id - b.id);
      const due = this.pending[0];
      if (!due || due.at > target) break;
      this.pending.shift();
      this.current = Math.max(this.current, due.at);
      due.fn();
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.current = target;
  }
}
