// Test support: a replica on MemoryKv fed by a MemoryLog, with a proposer — the real apply
// path without disk or a node — and a record builder with fixed timestamps.

import { Proposer } from '../../src/actors/proposer.js';
import type { Command, Entity } from '../../src/domain/commands.js';
import { MemoryLog } from '../../src/log/memory-log.js';
import { MemoryKv } from '../../src/store/memory-kv.js';
import { Replica } from '../../src/store/replica.js';

export const AT = '2026-01-01T00:00:00.000Z';

/** A stored record with fixed timestamps and empty tags. */
export function record(id: string, fields: Record<string, unknown>): Entity {
  return { id, createdAt: AT, updatedAt: AT, tags: {}, ...fields };
}

export interface MemoryStore {
  kv: MemoryKv;
  replica: Replica;
  log: MemoryLog<Command>;
  proposer: Proposer;
  /** Stops applying the log. */
  close(): Promise<void>;
}

/** A replica following a MemoryLog. `commandTtlMs` makes the proposer's commands expire, as in
 * cluster mode. */
export async function memoryStore(opts: { nodeId?: string; commandTtlMs?: number } = {}): Promise<MemoryStore> {
  const kv = new MemoryKv();
  await kv.open();
  const replica = new Replica(kv);
  await replica.open();
  const log = new MemoryLog<Command>();
  await log.open();
  const following = log.followBatches(0, (entries) => replica.applyBatch(entries));
  return { kv, replica, log, proposer: new Proposer(log, replica, opts.nodeId ?? 'test', opts.commandTtlMs), close: () => following.close() };
}
