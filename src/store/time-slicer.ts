// Time slices for long scans (integrity check, access-index check): a scan asks `due()` at every
// item and awaits `pause()` when it is, so every ~5 ms of work it yields one turn of the event
// loop and requests queued meanwhile run before it goes on (asking first spares an item the
// promise and microtask of an await). Owns no data; reads the clock only.

import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work done between two yields, in ms. A request waits behind at most one slice, plus what
 * the slice cannot help: a garbage collection inside it, or the process losing its core on a
 * busy machine (the stall benchmark's baseline, with no job, already waits up to ~20 ms). At
 * 5 ms a yield costs well under 1% of the work. */
export const SLICE_MS = 5;

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
