// AdminPasswordFile: the generated admin password's file stays while the admin's updb
// authenticator is as bootstrap wrote it, and goes once it changed or is gone.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Entity } from '../../../src/domain/commands.js';
import { AdminPasswordFile } from '../../../src/ops/admin-password-file.js';
import { memoryStore } from '../../support/memory-store.js';

const AT = '2026-01-01T00:00:00.000Z';
const authenticator = (updatedAt: string): Entity => ({ id: 'a1', createdAt: AT, updatedAt, tags: {}, identityId: 'admin', method: 'updb', username: 'admin', passwordHash: 'h', salt: 's', fingerprint: null });

async function setup() {
  const dir = await mkdtemp(join(tmpdir(), 'weft-admin-pw-'));
  const path = join(dir, 'admin-password');
  await writeFile(path, 'generated\n');
  const store = await memoryStore();
  const base = { createdAt: AT, updatedAt: AT, tags: {} };
  await store.proposer.propose([
    { op: 'create', kind: 'identity-types', record: { id: 'Default', ...base, name: 'Default' } },
    { op: 'create', kind: 'identities', record: { id: 'admin', ...base, name: 'Default Admin', typeId: 'Default', isAdmin: true, roleAttributes: [], authPolicyId: null, externalId: null } },
    { op: 'create', kind: 'authenticators', record: authenticator(AT) },
  ], AT);
  return { ...store, path, file: new AdminPasswordFile(path, store.replica, 'admin'), done: () => rm(dir, { recursive: true, force: true }) };
}

describe('AdminPasswordFile', () => {
  it('keeps the file while the admin authenticator is as bootstrap wrote it', async () => {
    const { file, path, done } = await setup();
    assert.equal(await file.sweep(), true);
    assert.equal(await readFile(path, 'utf8'), 'generated\n');
    await done();
  });

  it('removes the file once the password changed', async () => {
    const { file, path, proposer, done } = await setup();
    const later = '2026-01-02T00:00:00.000Z';
    await proposer.propose([{ op: 'update', kind: 'authenticators', record: authenticator(later) }], later);
    assert.equal(await file.sweep(), false);
    await assert.rejects(readFile(path), { code: 'ENOENT' });
    await done();
  });

  it('removes the file once the authenticator is gone', async () => {
    const { file, path, proposer, done } = await setup();
    await proposer.propose([{ op: 'delete', kind: 'authenticators', id: 'a1' }], AT);
    assert.equal(await file.sweep(), false);
    await assert.rejects(readFile(path), { code: 'ENOENT' });
    await done();
  });
});
