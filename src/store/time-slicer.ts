// Time slices for long scans (integrity check, access-index check): a scan calls `pause()` often,
// and every ~20 ms of work it yields one turn of the event loop, so requests queued meanwhile
// run before it goes on. Owns no data; reads the clock only.

import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work done between two yields, in ms: well under the 50 ms a request may wait behind a scan. */
export const SLICE_MS = 20;

export class TimeSlicer {
  private sliceStart = performance.now();
  /** How many times the scan yielded (for tests). */
  yields = 0;

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Resolves at once within a slice; at a slice's end, after one turn of the event loop. */
  async pause(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await nextTurn();
    this.yields++;
    this.sliceStart = performance.now();
  }
}
