// POST /database/snapshot: writes a restorable copy of this node's replica under
// <data-dir>/snapshots/<timestamp>/ (owner-only), at most one every 30 s as upstream limits it.
// Given the replica's directory, the copy is a checkpoint of LevelDB's own files (table files
// hard-linked, logs and MANIFEST copied): seconds at any size, and no record passes through
// memory. Otherwise (or where the snapshots directory is on another file system) every key is
// copied into a new LevelDB.

import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import { APPLIED_SEQ_KEY } from '../store/keys.js';
import type { KvStore } from '../store/kv.js';
import { checkpointLevelDb } from '../store/level-checkpoint.js';
import { writeSnapshot, type SnapshotInfo } from '../store/snapshot-writer.js';

export interface SnapshotTakerOptions {
  /** The replica's store. */
  kv: KvStore;
  /** The replica's LevelDB directory: snapshots are checkpoints of its files. */
  replicaDir?: string;
  /** Puts every write the store accepted on disk (before a checkpoint). */
  flush?: () => Promise<void>;
  /** The snapshots directory (`<data-dir>/snapshots`). */
  dir: string;
  /** Least time between two snapshots; default 30 s. */
  minIntervalMs?: number;
  log?: Logger;
  now?: () => number;
}

/** A snapshot written, as the API answers it. */
export interface SnapshotResult extends SnapshotInfo {
  createdAt: string;
}

export class SnapshotTaker {
  private lastStartedAt = -Infinity;
  private running = false;
  private readonly now: () => number;

  constructor(private readonly opts: SnapshotTakerOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Writes a snapshot; 429 RATE_LIMITED while one runs or within the interval of the last
   * (`force` skips the interval: the integrity fixer's own backup). */
  async take(force = false): Promise<SnapshotResult> {
    const now = this.now();
    const wait = this.lastStartedAt + (this.opts.minIntervalMs ?? 30_000) - now;
    if (this.running || (!force && wait > 0)) {
      throw new ApiError('RATE_LIMITED', { retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) });
    }
    this.running = true;
    // The fixer's own backup does not use up the operator's allowance.
    if (!force) this.lastStartedAt = now;
    try {
      await mkdir(this.opts.dir, { recursive: true, mode: 0o700 });
      await chmod(this.opts.dir, 0o700);
      const createdAt = new Date(now).toISOString();
      const path = this.freePath(createdAt);
      const info = (this.opts.replicaDir && (await this.checkpoint(this.opts.replicaDir, path))) || (await writeSnapshot(this.opts.kv, path));
      this.opts.log?.info('snapshot written', { path: info.path, appliedSeq: info.appliedSeq, keys: info.keys, bytes: info.bytes });
      return { ...info, createdAt };
    } finally {
      this.running = false;
    }
  }

  /** A checkpoint of the replica's files at `path` (made as `<path>.partial`, renamed once
   * complete); undefined where hard links cannot be made (another file system). */
  private async checkpoint(replicaDir: string, path: string): Promise<SnapshotInfo | undefined> {
    const partial = `${path}.partial`;
    try {
      await this.opts.flush?.();
      const appliedSeq = Number((await checkpointLevelDb(replicaDir, partial, APPLIED_SEQ_KEY)) ?? 0);
      await chmod(partial, 0o700);
      let bytes = 0;
      for (const name of await readdir(partial)) bytes += (await stat(join(partial, name))).size;
      await rename(partial, path);
      return { path, appliedSeq, bytes };
    } catch (err) {
      await rm(partial, { recursive: true, force: true });
      if ((err as NodeJS.ErrnoException).code === 'EXDEV') return undefined;
      throw err;
    }
  }

  /** `<dir>/2025-01-02T03-04-05.678Z`, with a suffix if that name is taken. */
  private freePath(createdAt: string): string {
    const base = join(this.opts.dir, createdAt.replace(/:/g, '-'));
    let path = base;
    for (let n = 1; existsSync(path) || existsSync(`${path}.partial`); n++) path = `${base}-${n}`;
    return path;
  }
}
