// Seed data for benchmarks at OpenZiti's scale-model sizes, written straight into a data
// directory through the real log and apply path (batched commands), before a node starts on it.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { bootstrap } from '../../src/actors/bootstrap.js';
import { EntityWriter } from '../../src/actors/entity-writer.js';
import { Proposer } from '../../src/actors/proposer.js';
import type { Command, Op } from '../../src/domain/commands.js';
import type { Kind } from '../../src/domain/registry.js';
import { LocalLog } from '../../src/log/local-log.js';
import { LevelKv } from '../../src/store/level-kv.js';
import { Replica } from '../../src/store/replica.js';
import { WorkerPool } from '../../src/workers/pool.js';

export interface SeedSizes {
  identities: number;
  services: number;
  servicePolicies: number;
  edgeRouters: number;
  edgeRouterPolicies: number;
  serviceEdgeRouterPolicies: number;
}

export const SMALL: SeedSizes = { identities: 1_000, services: 200, servicePolicies: 250, edgeRouters: 500, edgeRouterPolicies: 250, serviceEdgeRouterPolicies: 100 };
export const LARGE: SeedSizes = { identities: 100_000, services: 1_000, servicePolicies: 500, edgeRouters: 500, edgeRouterPolicies: 250, serviceEdgeRouterPolicies: 100 };

export const BENCH_ADMIN = { username: 'admin', password: 'bench-admin-password' };

const BATCH = 1_000;
/** Log entries appended ahead of the apply (the append of one overlaps the apply of another). */
const AHEAD = 4;

/** A deterministic PRNG so every run seeds the same data. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Role attributes spread the way real deployments look: a few popular, a long tail. */
function attributes(rand: () => number, prefix: string, pool: number, max: number): string[] {
  const n = 1 + Math.floor(rand() * max);
  const out = new Set<string>();
  for (let i = 0; i < n; i++) out.add(`${prefix}${Math.floor(pool * rand() ** 1.5)}`);
  return [...out];
}

/** Opens a data dir's log and replica without a node (the node must not be running), runs
 * `work` with a proposer, and closes everything again. */
export async function withOfflineStore<T>(dataDir: string, work: (store: { replica: Replica; proposer: Proposer; writer: EntityWriter; log: LocalLog<Command> }) => Promise<T>): Promise<T> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const kv = new LevelKv({ path: join(dataDir, 'replica') });
  await kv.open();
  const replica = new Replica(kv);
  await replica.open();
  const commandLog = new LocalLog<Command>({ path: join(dataDir, 'log') });
  await commandLog.open();
  const following = commandLog.follow(replica.appliedSeq, (e) => replica.apply(e));
  try {
    const proposer = new Proposer(commandLog, replica, 'bench');
    return await work({ replica, proposer, writer: new EntityWriter(replica, proposer), log: commandLog });
  } finally {
    await following.close();
    await commandLog.close();
    await kv.close();
  }
}

export async function seedDataDir(dataDir: string, sizes: SeedSizes, log: (msg: string) => void = () => {}): Promise<{ identityIds: string[]; serviceIds: string[] }> {
  return withOfflineStore(dataDir, (store) => seedStore(store, sizes, log, dataDir));
}

async function seedStore(
  { replica, proposer, writer, log: commandLog }: { replica: Replica; proposer: Proposer; writer: EntityWriter; log: LocalLog<Command> },
  sizes: SeedSizes,
  log: (msg: string) => void,
  dataDir: string,
): Promise<{ identityIds: string[]; serviceIds: string[] }> {
  const pool = WorkerPool.create({ threads: 1 });
  await bootstrap({ replica, proposer, writer, pool, ...BENCH_ADMIN, passwordFile: join(dataDir, 'admin-password') });
  await pool.close();

  const pad = (n: number) => String(n).padStart(6, '0');
  const rand = prng(42);
  const at = new Date().toISOString();
  const base = (id: string, fields: Record<string, unknown>) => ({ id, createdAt: at, updatedAt: at, tags: {}, ...fields });
  // Proposed as the proposer does, waiting longer for the apply (a busy machine may take more
  // than a request's 10 s to apply a batch of 1,000 creates). Up to AHEAD entries are appended
  // before the first of them is waited for, so appending and applying overlap.
  const inFlight: number[] = [];
  const settle = async (keep: number) => {
    while (inFlight.length > keep) {
      const result = await replica.waitFor(inFlight.shift()!, 600_000);
      if (!result.ok) throw new Error(`seeding: ${JSON.stringify(result.error)}`);
    }
  };
  const flush = async (ops: Op[], skip = false) => {
    if (skip) return;
    for (let i = 0; i < ops.length; i += BATCH) {
      inFlight.push(await commandLog.append({ at, origin: 'bench', ops: ops.slice(i, i + BATCH) }));
      await settle(AHEAD - 1);
    }
  };
  // A seed stopped part way resumes: the fixed entities are there when the first router is,
  // and identities were written in order, so the next one is the count (less the admin). The
  // random draws are made again either way, so the data is the same as an unbroken seed's.
  const resumed = (await replica.get('edge-routers', `er-${pad(0)}`)) !== undefined;
  const have = resumed ? Math.max(0, replica.count('identities') - 1) : 0;
  if (resumed) log(`resuming: ${have} identities already seeded`);

  const routerIds = Array.from({ length: sizes.edgeRouters }, (_, i) => `er-${pad(i)}`);
  await flush(routerIds.map((id) => ({ op: 'create', kind: 'edge-routers', record: base(id, { name: id, roleAttributes: attributes(rand, 'region', 10, 2), cost: 0, isTunnelerEnabled: false, noTraversal: false, disabled: false, appData: {}, ctrlChanListeners: {}, isVerified: true, fingerprint: null, certPem: null, enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null }) })), resumed);
  const serviceIds = Array.from({ length: sizes.services }, (_, i) => `svc-${pad(i)}`);
  await flush(serviceIds.map((id) => ({ op: 'create', kind: 'services', record: base(id, { name: id, encryptionRequired: true, roleAttributes: attributes(rand, 'app', 60, 3), configs: [], terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 }) })), resumed);
  log(`seeded ${routerIds.length} edge routers and ${serviceIds.length} services`);

  const policy = (kind: Kind, i: number, fields: Record<string, unknown>): Op => ({ op: 'create', kind, record: base(`${kind}-${pad(i)}`, { name: `${kind}-${pad(i)}`, semantic: rand() < 0.5 ? 'AnyOf' : 'AllOf', ...fields }) });
  const roles = (prefix: string, pool: number) => attributes(rand, prefix, pool, 2).map((a) => `#${a}`).sort();
  await flush(Array.from({ length: sizes.servicePolicies }, (_, i) => policy('service-policies', i, { type: rand() < 0.7 ? 'Dial' : 'Bind', identityRoles: roles('team', 200), serviceRoles: roles('app', 60), postureCheckRoles: [] })), resumed);
  await flush(Array.from({ length: sizes.edgeRouterPolicies }, (_, i) => policy('edge-router-policies', i, { identityRoles: roles('team', 200), edgeRouterRoles: roles('region', 10), isSystem: false })), resumed);
  await flush(Array.from({ length: sizes.serviceEdgeRouterPolicies }, (_, i) => policy('service-edge-router-policies', i, { serviceRoles: roles('app', 60), edgeRouterRoles: roles('region', 10) })), resumed);
  log('seeded policies');

  const identityIds: string[] = [];
  let ops: Op[] = [];
  for (let i = 0; i < sizes.identities; i++) {
    const id = `id-${pad(i)}`;
    identityIds.push(id);
    const roleAttributes = attributes(rand, 'team', 200, 3);
    if (i < have) continue;
    ops.push(writer.buildCreate('identities', id, { name: `identity-${pad(i)}`, type: 'Device', isAdmin: false, roleAttributes }, at));
    if (ops.length >= BATCH) {
      await flush(ops);
      ops = [];
      if ((i + 1) % 20_000 === 0) log(`seeded ${i + 1} identities`);
    }
  }
  await flush(ops);
  await settle(0);
  log(`seeded ${identityIds.length} identities`);
  return { identityIds, serviceIds };
}
