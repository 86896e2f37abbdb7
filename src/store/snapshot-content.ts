// The byte content of a replica snapshot sent between nodes (format 1): every key of one
// point-in-time view as [u32 key length][key][u32 value length][value], UTF-8, big-endian
// lengths, in key order. Encodes in bounded chunks and decodes incrementally; no I/O of its own.

import type { KvSnapshot } from './kv-snapshot.js';

/** The content format this version writes and reads. */
export const SNAPSHOT_FORMAT_VERSION = 1;
/** Encoded content is handed out in chunks of about this many bytes. */
const CHUNK_BYTES = 256 * 1024;
/** A length field over this is corrupt content (LevelDB keys and replica values are far smaller). */
const MAX_FIELD_BYTES = 64 * 1024 * 1024;

/** The content of a snapshot view, in chunks of about 256 KiB (only one chunk is held at a time);
 * `counted.keys` counts the keys encoded. */
export async function* encodeSnapshot(view: KvSnapshot, counted: { keys: number } = { keys: 0 }): AsyncIterable<Buffer> {
  // Records are written straight into one chunk buffer; a full chunk is handed out and a new one
  // started (a chunk handed out is never written again).
  let buf = Buffer.allocUnsafe(CHUNK_BYTES * 2);
  let at = 0;
  for await (const [key, value] of view.entries({})) {
    const keyLength = Buffer.byteLength(key, 'utf8');
    const valueLength = Buffer.byteLength(value, 'utf8');
    const need = 8 + keyLength + valueLength;
    if (at + need > buf.length) {
      if (at > 0) yield buf.subarray(0, at);
      buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES * 2, need));
      at = 0;
    }
    buf.writeUInt32BE(keyLength, at);
    buf.write(key, at + 4, keyLength, 'utf8');
    buf.writeUInt32BE(valueLength, at + 4 + keyLength);
    buf.write(value, at + 8 + keyLength, valueLength, 'utf8');
    at += need;
    counted.keys++;
    if (at < CHUNK_BYTES) continue;
    yield buf.subarray(0, at);
    buf = Buffer.allocUnsafe(CHUNK_BYTES * 2);
    at = 0;
  }
  if (at > 0) yield buf.subarray(0, at);
}

/** The content is not a well-formed snapshot. */
export class SnapshotContentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotContentError';
  }
}

/** Decodes content fed in arbitrary pieces into [key, value] entries. */
export class SnapshotDecoder {
  private pending: Buffer = Buffer.alloc(0);

  /** The complete entries in `data` plus what was left over from earlier pieces. */
  push(data: Buffer): [string, string][] {
    const buf = this.pending.length > 0 ? Buffer.concat([this.pending, data]) : data;
    const out: [string, string][] = [];
    let at = 0;
    for (;;) {
      if (buf.length - at < 4) break;
      const keyLength = buf.readUInt32BE(at);
      if (keyLength === 0 || keyLength > MAX_FIELD_BYTES) throw new SnapshotContentError(`bad key length ${keyLength} at byte ${at}`);
      if (buf.length - at < 8 + keyLength) break;
      const valueLength = buf.readUInt32BE(at + 4 + keyLength);
      if (valueLength > MAX_FIELD_BYTES) throw new SnapshotContentError(`bad value length ${valueLength} at byte ${at}`);
      const end = at + 8 + keyLength + valueLength;
      if (buf.length < end) break;
      out.push([buf.toString('utf8', at + 4, at + 4 + keyLength), buf.toString('utf8', at + 8 + keyLength, end)]);
      at = end;
    }
    this.pending = at === buf.length ? Buffer.alloc(0) : Buffer.from(buf.subarray(at));
    return out;
  }

  /** Throws unless the content ended on a record boundary. */
  end(): void {
    if (this.pending.length > 0) throw new SnapshotContentError(`the content ends inside a record (${this.pending.length} bytes left over)`);
  }
}
