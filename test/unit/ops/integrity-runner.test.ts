// The background integrity runner: one run at a time (429 RATE_LIMITED otherwise), upstream's
// results document, at most maxResults results kept while every problem is still fixed.

import assert from 'node:assert/strict';
import { memoryStore } from '../../support/memory-store.js';
import { describe, it } from 'node:test';
import type { Entity } from '../../../src/domain/commands.js';
import { ApiError } from '../../../src/errors.js';
import { IntegrityRunner, type IntegrityDetails } from '../../../src/ops/integrity-runner.js';
import { indexKey } from '../../../src/store/keys.js';

const AT = '2026-01-01T00:00:00.000Z';

async function setup(opts: { backup?: () => Promise<unknown>; maxResults?: number } = {}) {
  const { kv, replica, proposer } = await memoryStore();
  const base = (id: string, fields: Record<string, unknown>): Entity => ({ id, createdAt: AT, updatedAt: AT, tags: {}, ...fields });
  await proposer.propose([{ op: 'create', kind: 'identity-types', record: base('User', { name: 'User' }) }], AT);
  const runner = new IntegrityRunner({ replica, proposer, ...opts });
  return { kv, runner };
}

async function finished(runner: IntegrityRunner): Promise<IntegrityDetails> {
  for (let i = 0; i < 500; i++) {
    const details = runner.results();
    if (!details.inProgress) return details;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the run did not finish');
}

describe('IntegrityRunner', () => {
  it('reports no run before the first one', async () => {
    const { runner } = await setup();
    assert.deepEqual(runner.results(), {
      inProgress: false, fixingErrors: false, tooManyErrors: false, startTime: null, endTime: null, error: null, results: [],
    });
  });

  it('refuses a second start while a run is under way with 429 RATE_LIMITED', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { runner } = await setup({ backup: () => gate });
    runner.start(true);
    assert.equal(runner.results().inProgress, true);
    assert.equal(runner.results().fixingErrors, true);
    for (const fix of [false, true]) {
      assert.throws(() => runner.start(fix), (err: unknown) => err instanceof ApiError && err.code === 'RATE_LIMITED' && err.status === 429);
    }
    release();
    const details = await finished(runner);
    assert.equal(details.error, null);
    assert.ok(details.startTime && details.endTime && details.endTime >= details.startTime);
    runner.start(false);
    await finished(runner);
  });

  it('keeps at most maxResults results (tooManyErrors) but fixes every problem', async () => {
    const { kv, runner } = await setup({ maxResults: 2 });
    await kv.batch(['a', 'b', 'c', 'd', 'e'].map((id) => ({ type: 'put' as const, key: indexKey('identities', 'name', id, id), value: '' })));
    runner.start(true);
    const fixed = await finished(runner);
    assert.equal(fixed.results.length, 2);
    assert.equal(fixed.tooManyErrors, true);
    assert.ok(fixed.results.every((r) => r.fixed));
    runner.start(false);
    const after = await finished(runner);
    assert.deepEqual(after.results, []);
    assert.equal(after.tooManyErrors, false);
  });
});
