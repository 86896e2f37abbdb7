// Time slices for long scans (integrity check, access-index check): a scan calls `pause()` (or
// asks `due()` in a tight loop) often, and every ~10 ms of work it yields one turn of the event
// loop, so requests queued meanwhile run before it goes on. Owns no data; reads the clock only.

import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work done between two yields, in ms: a request needing a few turns of the event loop still
 * waits well under 50 ms behind a scan. */
export const SLICE_MS = 10;

export class TimeSlicer {
  private sliceStart = performance.now();
  /** How many times the scan yielded (for tests). */
  yields = 0;

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** True once the slice is used up (a synchronous loop then awaits pause()). */
  due(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  /** Resolves at once within a slice; at a slice's end, after one turn of the event loop. */
  async pause(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await nextTurn();
    this.yields++;
    this.sliceStart = performance.now();
  }
}
