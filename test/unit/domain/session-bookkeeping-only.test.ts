// sessionBookkeepingOnly tells logins (commands that only create API sessions) and activity
// flushes (commands that only set sessions' lastActivityAt) from every other command, which the
// caches must treat as a change to anything.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sessionBookkeepingOnly, type Command, type Op } from '../../../src/domain/commands.js';

const AT = '2026-11-21T10:00:00.000Z';
const command = (...ops: Op[]): Command => ({ at: AT, origin: 'n1', ops });
const session = (id: string, identityId: unknown) => ({ op: 'create' as const, kind: 'api-sessions' as const, record: { id, identityId, createdAt: AT, updatedAt: AT, tags: {} } });
const activity = (id: string): Op => ({ op: 'set', kind: 'api-sessions', id, fields: { lastActivityAt: AT }, ifExists: true });

describe('sessionBookkeepingOnly', () => {
  it('lists the sessions of a command that only creates API sessions', () => {
    assert.deepEqual(sessionBookkeepingOnly(command(session('s1', 'i1'), session('s2', 'i2'))), {
      created: [
        { id: 's1', identityId: 'i1' },
        { id: 's2', identityId: 'i2' },
      ],
      touched: [],
    });
  });

  it('lists the sessions of an activity flush, alone or next to logins', () => {
    assert.deepEqual(sessionBookkeepingOnly(command(activity('s1'), activity('s2'))), { created: [], touched: ['s1', 's2'] });
    assert.deepEqual(sessionBookkeepingOnly(command(session('s3', 'i1'), activity('s1'))), { created: [{ id: 's3', identityId: 'i1' }], touched: ['s1'] });
  });

  it('is undefined for a login that also updates its identity (envInfo, sdkInfo)', () => {
    assert.equal(sessionBookkeepingOnly(command(session('s1', 'i1'), { op: 'set', kind: 'identities', id: 'i1', fields: { envInfo: {} } })), undefined);
  });

  it('is undefined for any other change to a session, any other kind, and an empty command', () => {
    for (const op of [
      { op: 'set', kind: 'api-sessions', id: 's1', fields: { isMfaComplete: true } },
      { op: 'set', kind: 'api-sessions', id: 's1', fields: { lastActivityAt: AT, isMfaComplete: true } },
      { op: 'set', kind: 'api-sessions', id: 's1', fields: {} },
      { op: 'set', kind: 'identities', id: 'i1', fields: { lastActivityAt: AT } },
      { op: 'update', kind: 'api-sessions', record: { id: 's1', createdAt: AT, updatedAt: AT, tags: {} } },
      { op: 'delete', kind: 'api-sessions', id: 's1' },
      { op: 'deleteWhere', kind: 'api-sessions', field: 'identityId', value: 'i1' },
      { op: 'create', kind: 'identities', record: { id: 'i2', createdAt: AT, updatedAt: AT, tags: {} } },
      { op: 'repair', repair: { action: 'recount', kind: 'api-sessions' } },
    ] as Op[]) {
      assert.equal(sessionBookkeepingOnly(command(op)), undefined, JSON.stringify(op));
      assert.equal(sessionBookkeepingOnly(command(activity('s9'), op)), undefined, `next to a flush: ${JSON.stringify(op)}`);
    }
    assert.equal(sessionBookkeepingOnly(command()), undefined);
    assert.equal(sessionBookkeepingOnly(command(session('s1', undefined))), undefined, 'a session without an identity');
  });
});
