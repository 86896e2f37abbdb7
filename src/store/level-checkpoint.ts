// Consistent copies of a LevelDB directory that is open and being written, made of its own files:
// the live table files (those the MANIFEST names) are hard-linked (LevelDB never changes one once
// written), the write-ahead logs recovery needs and the MANIFEST copied, and the copy is kept
// only if no version edit happened meanwhile. Opening the copy replays the logs it holds: it is
// the store as of one instant. Never writes the source.

import { copyFile, link, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { readManifest } from './leveldb-manifest.js';

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
 * if it is unchanged from before the copy of the MANIFEST to after the last log copied, the
 * copy holds every file that version needs, and the logs copied are a prefix of the writes
 * after it (a record cut at a log's end is dropped by recovery, and each record is one atomic
 * batch). Only the tables the MANIFEST names are linked: a table file it does not name yet is
 * a compaction's output still being written, whose number the copy may reuse when it is opened,
 * truncating the file it would share with the source.
 */
async function tryCopy(source: string, target: string): Promise<boolean> {
  try {
    const current = await readFile(join(source, 'CURRENT'), 'utf8');
    const manifest = current.trim();
    const before = (await stat(join(source, manifest))).size;
    await copyFile(join(source, manifest), join(target, manifest));
    const copied = await readFile(join(target, manifest));
    if (copied.length !== before) return false;
    const version = readManifest(copied);
    const names = await readdir(source);
    for (const name of names) {
      const number = Number(name.slice(0, name.indexOf('.')));
      if (TABLE.test(name) && version.tables.has(number)) await link(join(source, name), join(target, name));
      if (WAL.test(name) && (number >= version.logNumber || number === version.prevLogNumber)) await copyFile(join(source, name), join(target, name));
    }
    const after = (await stat(join(source, manifest))).size;
    if ((await readFile(join(source, 'CURRENT'), 'utf8')) !== current || before !== after) return false;
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
