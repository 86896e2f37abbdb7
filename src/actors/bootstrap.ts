// First start: seeds the identity types, the default auth policy and the default admin with
// its updb authenticator. With no password given, one is generated and stored owner-only.
// Safe when several cluster nodes start at once: one seeding command wins at apply.

import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import type { Entity, Op } from '../domain/commands.js';
import { newId } from '../domain/ids.js';
import { DEFAULT_AUTH_POLICY } from '../domain/resources/auth-policies.js';
import { IDENTITY_TYPE_IDS } from '../domain/resources/identity-types.js';
import type { Replica } from '../store/replica.js';
import type { WorkerPool } from '../workers/pool.js';
import type { EntityWriter } from './entity-writer.js';
import type { Proposer } from './proposer.js';

export interface BootstrapOptions {
  replica: Replica;
  proposer: Proposer;
  writer: EntityWriter;
  pool: WorkerPool;
  username: string;
  password?: string;
  /** Where a generated password is kept (mode 0600). */
  passwordFile: string;
}

/** Returns the generated password when one was made (to be shown once), else undefined. */
export async function bootstrap(opts: BootstrapOptions): Promise<{ generatedPassword?: string } | undefined> {
  if (opts.replica.count('identity-types') > 0) return undefined;
  const generated = opts.password === undefined ? randomBytes(18).toString('base64url') : undefined;
  const password = opts.password ?? generated!;
  if (generated) await writeFile(opts.passwordFile, `${generated}\n`, { mode: 0o600, flag: 'w' });
  const { hash, salt } = await opts.pool.hashPassword(password);
  const at = new Date().toISOString();
  const base = (id: string, fields: Record<string, unknown>): Entity => ({ id, createdAt: at, updatedAt: at, tags: {}, ...fields });
  const adminId = newId();
  const admin = opts.writer.buildCreate('identities', adminId, { name: 'Default Admin', type: 'Default', isAdmin: true }, at);
  admin.record.isDefaultAdmin = true;
  const ops: Op[] = [
    ...IDENTITY_TYPE_IDS.map((id): Op => ({ op: 'create', kind: 'identity-types', record: base(id, { name: id }) })),
    { op: 'create', kind: 'auth-policies', record: base(DEFAULT_AUTH_POLICY.id, { ...DEFAULT_AUTH_POLICY }) },
    admin,
    {
      op: 'create',
      kind: 'authenticators',
      record: base(newId(), { identityId: adminId, method: 'updb', username: opts.username, passwordHash: hash, salt, fingerprint: null }),
    },
  ];
  try {
    await opts.proposer.propose(ops, at);
  } catch (err) {
    // In a cluster another node may have seeded first: its command won, this one was refused.
    if (opts.replica.count('identity-types') === 0) throw err;
    if (generated) await rm(opts.passwordFile, { force: true });
    return undefined;
  }
  return { generatedPassword: generated };
}
