// The content of format 1 snapshots, which nodes of earlier versions send: every key of one
// point-in-time view of the replica as [u32 key length][key][u32 value length][value], UTF-8,
// big-endian lengths, in key order; its size, SHA-256 and key count come in the header (no
// trailer). Decoded here so that a mixed-version cluster can still transfer snapshots; this
// version sends only format 2 (snapshot-content.ts). No I/O of its own.

import { SnapshotContentError } from './snapshot-content.js';

/** The records format (received only). */
export const RECORDS_SNAPSHOT_FORMAT = 1;
/** A length field over this is corrupt content (LevelDB keys and replica values are far smaller). */
const MAX_FIELD_BYTES = 64 * 1024 * 1024;

/** Decodes content fed in arbitrary pieces into [key, value] entries. */
export class SnapshotRecordDecoder {
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
