// The CLI's poll: reads until a read is done, and stops with the last read once out of time.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pollUntil } from '../../../src/cli/poll-until.js';

describe('pollUntil', () => {
  it('reads again until a read is done, and answers that read', async () => {
    let reads = 0;
    const result = await pollUntil(async () => ++reads, (n) => n === 3, 60_000);
    assert.deepEqual(result, { value: 3, done: true });
    assert.equal(reads, 3);
  });

  it('answers the last read, not done, once out of time (a read is always made)', async () => {
    let reads = 0;
    const result = await pollUntil(async () => ++reads, () => false, 0);
    assert.deepEqual(result, { value: 1, done: false });
  });
});
