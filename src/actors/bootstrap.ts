// First start: seeds the identity types, upstream's built-in config types, the global controller
// settings, the default auth policy and the default admin with its updb authenticator. With no
// password given, one is generated and stored owner-only. Later starts add the built-in config
// types (and the global controller settings) a node lacks. Safe when several cluster nodes
// start at once: one seeding command wins at apply.

import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { BUILTIN_CONFIG_TYPES } from '../domain/builtin-config-types.js';
import type { Entity, Op } from '../domain/commands.js';
import { newId } from '../domain/ids.js';
import { DEFAULT_AUTH_POLICY } from '../domain/resources/auth-policies.js';
import { GLOBAL_CONTROLLER_SETTINGS } from '../domain/resources/controller-settings.js';
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
  if (opts.replica.count('identity-types') > 0) {
    await addMissingConfigTypes(opts);
    return undefined;
  }
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
    ...BUILTIN_CONFIG_TYPES.map((type) => configTypeOp(opts.writer, type, at)),
    globalSettingsOp(opts.writer, at),
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

function configTypeOp(writer: EntityWriter, type: (typeof BUILTIN_CONFIG_TYPES)[number], at: string): Op {
  return writer.buildCreate('config-types', type.id, { name: type.name, schema: type.schema, target: 'service' }, at);
}

function globalSettingsOp(writer: EntityWriter, at: string): Op {
  return writer.buildCreate('controller-settings', GLOBAL_CONTROLLER_SETTINGS, { oidc: { redirectUris: [], postLogoutUris: [] } }, at);
}

/** Nodes whose data predates a built-in config type get it, unless its id or name is taken;
 * likewise the global controller settings. */
async function addMissingConfigTypes(opts: BootstrapOptions): Promise<void> {
  const at = new Date().toISOString();
  const ops: Op[] = [];
  for (const type of BUILTIN_CONFIG_TYPES) {
    if (await opts.replica.get('config-types', type.id)) continue;
    if (await opts.replica.findUnique('config-types', 'name', type.name)) continue;
    ops.push(configTypeOp(opts.writer, type, at));
  }
  if (!(await opts.replica.get('controller-settings', GLOBAL_CONTROLLER_SETTINGS))) ops.push(globalSettingsOp(opts.writer, at));
  if (ops.length === 0) return;
  try {
    await opts.proposer.propose(ops, at);
  } catch (err) {
    // In a cluster another node starting at the same time may have added them first.
    if (!(await opts.replica.get('controller-settings', GLOBAL_CONTROLLER_SETTINGS))) throw err;
  }
}
