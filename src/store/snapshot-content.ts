// The byte content of a replica snapshot sent between nodes (format 2): every key of one
// point-in-time view as records [u32 key length][key][u32 value length][value] — the UTF-8 bytes
// LevelDB holds, big-endian lengths, in key order — packed into chunks of whole records. Encodes
// from bulk reads of the view and splits chunks into records without decoding; no I/O of its own.

import { entryChunks, type KvSnapshot } from './kv-snapshot.js';

/** The content format this version writes and reads. */
export const SNAPSHOT_FORMAT_VERSION = 2;
/** A chunk is handed out once it holds about this many bytes. */
const CHUNK_BYTES = 1024 * 1024;
/** Entries read from the view per bulk read. */
const READ_ENTRIES = 8192;
/** A length field over this is corrupt content (LevelDB keys and replica values are far smaller). */
const MAX_FIELD_BYTES = 64 * 1024 * 1024;

/** The content of a snapshot view in chunks of whole records, about 1 MiB each (only one chunk
 * is held at a time); `counted.keys` counts the keys encoded. */
export async function* encodeSnapshot(view: KvSnapshot, counted: { keys: number } = { keys: 0 }): AsyncIterable<Buffer> {
  // Records are written straight into one chunk buffer; a full chunk is handed out and a new
  // one started (a chunk handed out is never written again). UTF-8 takes at most 3 bytes per
  // UTF-16 code unit, so 8 + 3 × (characters) bounds a record.
  let buf = Buffer.allocUnsafe(CHUNK_BYTES * 2);
  let at = 0;
  for await (const entries of entryChunks(view, READ_ENTRIES)) {
    for (const [key, value] of entries) {
      const bound = 8 + 3 * (key.length + value.length);
      if (at + bound > buf.length) {
        if (at > 0) yield buf.subarray(0, at);
        buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES * 2, bound));
        at = 0;
      }
      const keyLength = buf.write(key, at + 4, 'utf8');
      buf.writeUInt32BE(keyLength, at);
      at += 4 + keyLength;
      const valueLength = buf.write(value, at + 4, 'utf8');
      buf.writeUInt32BE(valueLength, at);
      at += 4 + valueLength;
    }
    counted.keys += entries.length;
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

/** Calls `record` with each record of one chunk, key and value as views of `chunk` (no copy, no
 * decoding); returns the number of records. Throws SnapshotContentError unless the chunk is a
 * sequence of whole, well-formed records. */
export function forEachRecord(chunk: Buffer, record: (key: Buffer, value: Buffer) => void): number {
  let at = 0;
  let n = 0;
  while (at < chunk.length) {
    if (chunk.length - at < 8) throw new SnapshotContentError(`a chunk ends inside a record (${chunk.length - at} bytes left over)`);
    const keyLength = chunk.readUInt32BE(at);
    if (keyLength === 0 || keyLength > MAX_FIELD_BYTES) throw new SnapshotContentError(`bad key length ${keyLength} at byte ${at}`);
    const valueAt = at + 4 + keyLength;
    if (valueAt + 4 > chunk.length) throw new SnapshotContentError(`a chunk ends inside a record (${chunk.length - at} bytes left over)`);
    const valueLength = chunk.readUInt32BE(valueAt);
    if (valueLength > MAX_FIELD_BYTES) throw new SnapshotContentError(`bad value length ${valueLength} at byte ${at}`);
    const end = valueAt + 4 + valueLength;
    if (end > chunk.length) throw new SnapshotContentError(`a chunk ends inside a record (${chunk.length - at} bytes left over)`);
    record(chunk.subarray(at + 4, valueAt), chunk.subarray(valueAt + 4, end));
    at = end;
    n++;
  }
  return n;
}
