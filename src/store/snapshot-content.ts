// The byte content of a replica snapshot sent between nodes (format 2): the files of a LevelDB
// checkpoint (level-checkpoint.ts) one after another, each as [u16 name length][name][u64 size]
// [bytes], big-endian. Encodes from a directory in chunks; the receiving side writes the files of
// content fed in arbitrary pieces into a new directory, refusing names that are not LevelDB's.

import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { DB_FILE } from './level-checkpoint.js';

/** The content format this version writes and reads. */
export const SNAPSHOT_FORMAT_VERSION = 2;
/** Bytes read from a file at a time (one chunk of content). */
const READ_BYTES = 1024 * 1024;
/** A file larger than this is corrupt content (LevelDB's tables and logs are far smaller). */
const MAX_FILE_BYTES = 2 ** 40;
/** Files made durable at once by sync() (each on a thread of libuv's pool). */
const SYNC_PARALLEL = 4;

/** The content for `names` in `dir`, in chunks of at most 1 MiB. */
export async function* encodeFiles(dir: string, names: string[]): AsyncIterable<Buffer> {
  for (const name of names) {
    const file = await open(join(dir, name), 'r');
    try {
      const { size } = await file.stat();
      const head = Buffer.alloc(2 + Buffer.byteLength(name) + 8);
      head.writeUInt16BE(Buffer.byteLength(name), 0);
      head.write(name, 2, 'utf8');
      head.writeBigUInt64BE(BigInt(size), head.length - 8);
      yield head;
      // Exactly `size` bytes: the file cannot change (a checkpoint is private to its transfer).
      let sent = 0;
      if (size > 0) for await (const data of createReadStream('', { fd: file, autoClose: false, highWaterMark: READ_BYTES, end: size - 1, start: 0 }) as AsyncIterable<Buffer>) {
        sent += data.length;
        yield data;
      }
      if (sent !== size) throw new Error(`${name} changed while it was sent (${sent} of ${size} bytes)`);
    } finally {
      await file.close();
    }
  }
}

/** The content is not a well-formed snapshot. */
export class SnapshotContentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotContentError';
  }
}

/** Writes the files of content fed in pieces into `dir` (which must exist and be empty). */
export class SnapshotFileWriter {
  private head = Buffer.alloc(0);
  private file: FileHandle | undefined;
  private name = '';
  private remaining = 0;
  /** Files completely written. */
  readonly files: string[] = [];

  constructor(private readonly dir: string) {}

  async push(data: Buffer): Promise<void> {
    let at = 0;
    while (at < data.length) {
      if (this.file) {
        const take = Math.min(this.remaining, data.length - at);
        await this.file.write(data, at, take);
        at += take;
        this.remaining -= take;
        if (this.remaining === 0) await this.closeFile();
        continue;
      }
      // A file's head: gather its bytes, which may span pieces.
      const needed = this.headLength();
      const take = Math.min(needed - this.head.length, data.length - at);
      this.head = Buffer.concat([this.head, data.subarray(at, at + take)]);
      at += take;
      if (this.head.length === this.headLength()) await this.openFile();
    }
  }

  /** Throws unless the content ended between files. */
  async end(): Promise<void> {
    if (this.file || this.head.length > 0) throw new SnapshotContentError(`the content ends inside ${this.name || 'a file head'}`);
  }

  /** Makes every file written durable, then the directory's entries. Files are not synced one by
   * one as they are written: a sync per file (hundreds of tables at 1M identities) would stall
   * the transfer for each; at the end the kernel has written most back already, and the rest is
   * synced several files at a time. */
  async sync(): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < this.files.length) {
        const file = await open(join(this.dir, this.files[next++]), 'r');
        try {
          await file.datasync();
        } finally {
          await file.close();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SYNC_PARALLEL, this.files.length) }, worker));
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  /** Closes a file left open by content that stopped (the caller removes `dir`). */
  async abort(): Promise<void> {
    await this.file?.close().catch(() => undefined);
    this.file = undefined;
  }

  /** Bytes the current head needs: 2 until its name length is known, then all of it. */
  private headLength(): number {
    return this.head.length < 2 ? 2 : 2 + this.head.readUInt16BE(0) + 8;
  }

  private async openFile(): Promise<void> {
    const nameLength = this.head.readUInt16BE(0);
    const name = this.head.toString('utf8', 2, 2 + nameLength);
    const size = this.head.readBigUInt64BE(2 + nameLength);
    this.head = Buffer.alloc(0);
    if (!DB_FILE.test(name)) throw new SnapshotContentError(`'${name}' is not a LevelDB file name`);
    if (size > BigInt(MAX_FILE_BYTES)) throw new SnapshotContentError(`${name} is announced as ${size} bytes`);
    if (this.files.includes(name)) throw new SnapshotContentError(`${name} comes twice`);
    this.name = name;
    this.remaining = Number(size);
    this.file = await open(join(this.dir, name), 'wx', 0o600);
    if (this.remaining === 0) await this.closeFile();
  }

  private async closeFile(): Promise<void> {
    await this.file!.close();
    this.file = undefined;
    this.files.push(this.name);
    this.name = '';
  }
}
