// Reads the applied sequence recorded in a replica directory on disk (a data dir's replica or a
// received snapshot copy) without opening a Replica. Never writes.

import { existsSync } from 'node:fs';
import { APPLIED_SEQ_KEY } from './keys.js';
import { LevelKv } from './level-kv.js';

/** The applied sequence recorded in the LevelDB at `dir` (0 when there is none or no directory).
 * Opening checks the database: a copy missing a file it needs throws here. */
export async function readAppliedSeq(dir: string): Promise<number> {
  if (!existsSync(dir)) return 0;
  const kv = new LevelKv({ path: dir });
  await kv.open();
  try {
    return Number((await kv.get(APPLIED_SEQ_KEY)) ?? 0);
  } finally {
    await kv.close();
  }
}
