import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RUN_LENGTH, sortedRuns, TICK } from '../../../src/store/sorted-runs.js';

describe('sortedRuns', () => {
  it('yields every item in comparator order across many runs, with ticks between runs', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const items = Array.from({ length: RUN_LENGTH * 3 + 17 }, () => random() % 1000);
    const expected = [...items].sort((a, b) => a - b);
    const out: number[] = [];
    let ticks = 0;
    for (const item of sortedRuns(items, (a, b) => a - b)) {
      if (item === TICK) ticks++;
      else out.push(item);
    }
    assert.deepEqual(out, expected);
    assert.ok(ticks >= 4 + 3, `${ticks} ticks`);
  });

  it('yields nothing for no items', () => {
    assert.deepEqual([...sortedRuns([], (a: number, b: number) => a - b)], []);
  });
});
