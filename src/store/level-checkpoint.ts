// Consistent copies of a LevelDB directory that is open and being written, made of its own files:
// table files are hard-linked (LevelDB never changes one once written), the write-ahead logs and
// the MANIFEST copied, and the copy is kept only if no version edit happened meanwhile. Opening
// the copy replays the logs it holds: it is the store as of one instant. Never writes the source.

import { copyFile, link, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';

/** The files a LevelDB database is made of (LOCK and the info LOG are not). */
export const DB_FILE = /^(\d{6,}\.(ldb|sst|log)|MANIFEST-\d{6,}|CURRENT)$/;
const TABLE = /^\d{6,}\.(ldb|sst)$/;
const WAL = /^\d{6,}\.log$/;
/** Tries before giving up when the source's version keeps changing under the copy. */
const ATTEMPTS = 50;

/** Thrown when no consistent copy could be made (the source changed under every attempt). */
export class CheckpointError extends Error {}

/**
 * Makes `target` (created; replaced if present) a consistent copy of the LevelDB at `source`
 * while another handle has it open and writes to it, then opens the copy once (which replays its
 * logs into a table and checks it) and returns the value of `readKey` in it. `target` must be on
 * the same file system as `source` (hard links).
 */
export async function checkpointLevelDb(source: string, target: string, readKey: string): Promise<string | undefined> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    await rm(target, { recursive: true, force: true });
    await mkdir(target, { recursive: true, mode: 0o700 });
    if (await tryCopy(source, target)) return settle(target, readKey);
    await new Promise((resolve) => setTimeout(resolve, 5 * (attempt + 1)));
  }
  await rm(target, { recursive: true, force: true });
  throw new CheckpointError(`no consistent copy of ${source} after ${ATTEMPTS} attempts: its files kept changing`);
}

/**
 * One attempt. While the MANIFEST neither grows nor is replaced, the database's version (its
 * set of live table files and its log number) stays the same, and no live file is deleted: so
 * if it is unchanged from before the first link to after the last copy, the copy holds every
 * file that version needs, and the logs copied are a prefix of the writes after it (a record
 * cut at a log's end is dropped by recovery, and each record is one atomic batch).
 */
async function tryCopy(source: string, target: string): Promise<boolean> {
  try {
    const current = await readFile(join(source, 'CURRENT'), 'utf8');
    const manifest = current.trim();
    const before = (await stat(join(source, manifest))).size;
    const names = await readdir(source);
    for (const name of names.filter((n) => TABLE.test(n))) await link(join(source, name), join(target, name));
    for (const name of names.filter((n) => WAL.test(n))) await copyFile(join(source, name), join(target, name));
    await copyFile(join(source, manifest), join(target, manifest));
    const copied = (await stat(join(target, manifest))).size;
    const after = (await stat(join(source, manifest))).size;
    if ((await readFile(join(source, 'CURRENT'), 'utf8')) !== current || before !== after || copied !== before) return false;
    await writeFile(join(target, 'CURRENT'), current, { mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Opens the copy once (recovery writes its logs into a table and a fresh MANIFEST) and reads one key. */
async function settle(dir: string, readKey: string): Promise<string | undefined> {
  const db = new ClassicLevel<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8', createIfMissing: false });
  await db.open();
  try {
    return await db.get(readKey);
  } finally {
    await db.close();
  }
}

/** The database files in `dir` (for sending a copy), in name order. */
export async function dbFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => DB_FILE.test(name)).sort();
}
