// Sliding API-session expiry: activity extends a session, idle ones are swept, activity is
// flushed to the log so restarts and other nodes see it, and a sweep spares a session whose
// activity another node flushed while the sweep prepared its deletes.

import assert from 'node:assert/strict';
import { memoryStore } from '../../support/memory-store.js';
import { describe, it } from 'node:test';
import type { Proposer } from '../../../src/actors/proposer.js';
import { SessionKeeper } from '../../../src/actors/session-keeper.js';
import type { Entity, Op } from '../../../src/domain/commands.js';

async function setup() {
  const { replica, proposer } = await memoryStore();
  const at = '2026-01-01T00:00:00.000Z';
  const base = (id: string, fields: Record<string, unknown>): Entity => ({ id, createdAt: at, updatedAt: at, tags: {}, ...fields });
  await proposer.propose([
    { op: 'create', kind: 'identity-types', record: base('Default', { name: 'Default' }) },
    { op: 'create', kind: 'auth-policies', record: base('default', { name: 'Default', primary: {}, secondary: {} }) },
    { op: 'create', kind: 'identities', record: base('i1', { name: 'one', typeId: 'Default', isAdmin: false, authPolicyId: 'default', roleAttributes: [] }) },
    { op: 'create', kind: 'api-sessions', record: base('s1', { identityId: 'i1', tokenHash: 'h1', lastActivityAt: at }) },
    { op: 'create', kind: 'api-sessions', record: base('s2', { identityId: 'i1', tokenHash: 'h2', lastActivityAt: at }) },
  ]);
  const keeper = new SessionKeeper(replica, proposer, { timeoutMinutes: 30 });
  return { replica, proposer, keeper, base, at: Date.parse(at) };
}

describe('SessionKeeper', () => {
  it('computes expiry as last activity plus the timeout', async () => {
    const { replica, keeper, at } = await setup();
    const s1 = (await replica.get('api-sessions', 's1'))!;
    assert.equal(keeper.expiresAt(s1), at + 30 * 60_000);
    assert.equal(keeper.isExpired(s1, at + 29 * 60_000), false);
    assert.equal(keeper.isExpired(s1, at + 30 * 60_000), true);
  });

  it('slides the expiry on activity', async () => {
    const { replica, keeper, at } = await setup();
    keeper.touch('s1', at + 20 * 60_000);
    const s1 = (await replica.get('api-sessions', 's1'))!;
    assert.equal(keeper.isExpired(s1, at + 45 * 60_000), false);
  });

  it('sweeps idle sessions and keeps active ones', async () => {
    const { replica, keeper, at } = await setup();
    keeper.touch('s1', at + 20 * 60_000);
    await keeper.sweep(at + 40 * 60_000);
    assert.ok(await replica.get('api-sessions', 's1'));
    assert.equal(await replica.get('api-sessions', 's2'), undefined);
  });

  it('keeps a session whose activity another node flushed while the sweep prepared its deletes', async () => {
    const { replica, proposer, at } = await setup();
    const proposed: Op[][] = [];
    // Ahead of the sweep's first proposal, another node writes activity of s1 (a flush).
    const racing = {
      async propose(ops: Op[], when?: string): Promise<number> {
        if (proposed.push(ops) === 1) {
          await proposer.propose([{ op: 'set', kind: 'api-sessions', id: 's1', fields: { lastActivityAt: new Date(at + 35 * 60_000).toISOString() }, ifExists: true }]);
        }
        return proposer.propose(ops, when);
      },
    } as Proposer;
    await new SessionKeeper(replica, racing, { timeoutMinutes: 30 }).sweep(at + 40 * 60_000);
    assert.ok(await replica.get('api-sessions', 's1'));
    assert.equal(await replica.get('api-sessions', 's2'), undefined);
    assert.deepEqual(proposed.map((ops) => ops.map((op) => (op.op === 'delete' ? op.id : op.op))), [['s1', 's2'], ['s1'], ['s2']]);
  });

  it('flushes activity into the replicated record', async () => {
    const { replica, keeper, at } = await setup();
    keeper.touch('s2', at + 10 * 60_000);
    await keeper.flush();
    const s2 = (await replica.get('api-sessions', 's2'))!;
    assert.equal(s2.lastActivityAt, new Date(at + 10 * 60_000).toISOString());
  });

  it('moves the resolution version on every applied change except logins and activity flushes', async () => {
    const { proposer, keeper, base, at } = await setup();
    const before = keeper.resolutionVersion;
    await proposer.propose([{ op: 'create', kind: 'api-sessions', record: base('s3', { identityId: 'i1', tokenHash: 'h3', lastActivityAt: at }) }]);
    assert.equal(keeper.resolutionVersion, before, 'a new session changes no existing one');
    keeper.touch('s1', at + 60_000);
    await keeper.flush();
    assert.equal(keeper.resolutionVersion, before, 'an activity flush only moves expiry later');
    await proposer.propose([{ op: 'set', kind: 'api-sessions', id: 's1', fields: { isMfaComplete: true } }]);
    assert.equal(keeper.resolutionVersion, before + 1, 'any other change to a session');
    await keeper.sweep(at + 120 * 60_000);
    assert.equal(keeper.resolutionVersion, before + 2, 'a sweep deletes sessions');
    await proposer.propose([{ op: 'set', kind: 'identities', id: 'i1', fields: { isAdmin: true } }]);
    assert.equal(keeper.resolutionVersion, before + 3);
  });
});
