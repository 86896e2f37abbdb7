// newSessionsOnly tells a login (a command that only creates API sessions) from every other
// command, which the caches must treat as a change to anything.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newSessionsOnly, type Command, type Op } from '../../../src/domain/commands.js';

const AT = '2026-11-21T10:00:00.000Z';
const command = (...ops: Op[]): Command => ({ at: AT, origin: 'n1', ops });
const session = (id: string, identityId: unknown) => ({ op: 'create' as const, kind: 'api-sessions', record: { id, identityId, createdAt: AT, updatedAt: AT, tags: {} } });

describe('newSessionsOnly', () => {
  it('lists the sessions of a command that only creates API sessions', () => {
    assert.deepEqual(newSessionsOnly(command(session('s1', 'i1'), session('s2', 'i2'))), [
      { id: 's1', identityId: 'i1' },
      { id: 's2', identityId: 'i2' },
    ]);
  });

  it('is undefined for a login that also updates its identity (envInfo, sdkInfo)', () => {
    assert.equal(newSessionsOnly(command(session('s1', 'i1'), { op: 'set', kind: 'identities', id: 'i1', fields: { envInfo: {} } })), undefined);
  });

  it('is undefined for any change to a session, any other kind, and an empty command', () => {
    for (const op of [
      { op: 'set', kind: 'api-sessions', id: 's1', fields: { isMfaComplete: true } },
      { op: 'delete', kind: 'api-sessions', id: 's1' },
      { op: 'deleteWhere', kind: 'api-sessions', field: 'identityId', value: 'i1' },
      { op: 'create', kind: 'identities', record: { id: 'i2', createdAt: AT, updatedAt: AT, tags: {} } },
    ] as Op[]) {
      assert.equal(newSessionsOnly(command(op)), undefined, JSON.stringify(op));
    }
    assert.equal(newSessionsOnly(command()), undefined);
    assert.equal(newSessionsOnly(command(session('s1', undefined))), undefined, 'a session without an identity');
  });
});
