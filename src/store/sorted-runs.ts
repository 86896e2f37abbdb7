// Sorting a large set without one long synchronous sort: runs of RUN_LENGTH items are sorted
// one at a time (a yield point after each), then merged lazily through a small heap.

/** Items per sorted run: a run sorts in a few ms, well inside one time slice. */
export const RUN_LENGTH = 4096;

/** Marks a point where a consumer of a long iteration may give the event loop a turn. */
export const TICK: unique symbol = Symbol('tick');

/**
 * Yields every item in comparator order, with TICK after each run is sorted and every
 * RUN_LENGTH merged items. n·log n overall; never sorts more than RUN_LENGTH items at once.
 */
export function* sortedRuns<T>(items: T[], compare: (a: T, b: T) => number): Generator<T | typeof TICK> {
  const runs: T[][] = [];
  for (let i = 0; i < items.length; i += RUN_LENGTH) {
    runs.push(items.slice(i, i + RUN_LENGTH).sort(compare));
    yield TICK;
  }
  items.length = 0;
  // Heap of run indexes ordered by each run's head; `next[r]` is run r's head position.
  const next = runs.map(() => 0);
  const head = (r: number) => runs[r][next[r]];
  const less = (a: number, b: number) => {
    const c = compare(head(a), head(b));
    return c < 0 || (c === 0 && a < b);
  };
  const heap = runs.map((_, r) => r);
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  let emitted = 0;
  while (heap.length > 0) {
    const r = heap[0];
    yield runs[r][next[r]++];
    if (next[r] >= runs[r].length) {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    if (heap.length > 0) siftDown(0);
    if (++emitted % RUN_LENGTH === 0) yield TICK;
  }
}
