// A node's clock against JetStream's, from its own heartbeats: the estimate ignores transit time
// (the smallest recent sample), and a clock off by more than the limit is told once, as is its return.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClockOffset } from '../../../src/cluster/clock-offset.js';

describe('ClockOffset', () => {
  it('estimates the offset from the smallest recent sample (transit only adds to a sample)', () => {
    const clock = new ClockOffset(() => {});
    assert.equal(clock.offsetMs, undefined);
    for (const [sent, stored] of [[1_000, 1_240], [2_000, 2_205], [3_000, 3_900]]) clock.observe(sent, stored);
    assert.equal(clock.offsetMs, 205);
  });

  it('tells once when the clock goes past the limit and once when it is back, not for one slow heartbeat', () => {
    const told: [number, boolean][] = [];
    const clock = new ClockOffset((offset, off) => told.push([offset, off]), 500);
    let t = 0;
    const beat = (offset: number, transit = 3) => clock.observe((t += 1_000), t + offset + transit);
    beat(0, 2_000); // one heartbeat held up for 2 s: no verdict on it
    beat(0);
    beat(0);
    assert.deepEqual(told, []);
    // This node's clock jumps 1.2 s ahead of JetStream's; the older samples age out.
    for (let i = 0; i < 10; i++) beat(-1_200);
    assert.deepEqual(told, [[-1_197, true]]);
    for (let i = 0; i < 10; i++) beat(-1_200);
    for (let i = 0; i < 10; i++) beat(100);
    assert.deepEqual(told, [[-1_197, true], [103, false]]);
  });
});
