// Writes a restorable copy of a replica: every key as of one instant (a LevelDB snapshot, so
// the copy holds exactly the commands up to its applied sequence) into a fresh LevelDB
// directory, owner-only. The copy appears under its final name only once complete.

import { rename, rm } from 'node:fs/promises';
import { openSnapshot } from './kv-snapshot.js';
import { APPLIED_SEQ_KEY } from './keys.js';
import type { KvOp, KvStore } from './kv.js';
import { LevelKv } from './level-kv.js';

/** What a written snapshot holds. */
export interface SnapshotInfo {
  /** The directory written (a LevelDB database usable as `<data-dir>/replica`). */
  path: string;
  /** The last log sequence applied to the copy: a restored node replays from here. */
  appliedSeq: number;
  /** Keys copied (when copied key by key). */
  keys?: number;
  /** Bytes of the files written (when a checkpoint of the files). */
  bytes?: number;
}

const BATCH = 1000;

/**
 * Copies source into a new LevelDB at `dir` (which must not exist). The copy is written to
 * `<dir>.partial` and renamed when synced, so a crash never leaves a half copy under `dir`.
 */
export async function writeSnapshot(source: KvStore, dir: string): Promise<SnapshotInfo> {
  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true });
  const target = new LevelKv({ path: partial });
  await target.open();
  const view = openSnapshot(source);
  let appliedSeq = 0;
  let keys = 0;
  try {
    let ops: KvOp[] = [];
    for await (const [key, value] of view.entries({})) {
      if (key === APPLIED_SEQ_KEY) appliedSeq = Number(value);
      ops.push({ type: 'put', key, value });
      keys++;
      if (ops.length < BATCH) continue;
      await target.batch(ops);
      ops = [];
    }
    await target.batch(ops.length > 0 ? ops : [{ type: 'put', key: APPLIED_SEQ_KEY, value: String(appliedSeq) }], { sync: true });
  } catch (err) {
    await target.close().catch(() => undefined);
    await rm(partial, { recursive: true, force: true });
    throw err;
  } finally {
    await view.close();
  }
  await target.close();
  await rename(partial, dir);
  return { path: dir, appliedSeq, keys };
}
