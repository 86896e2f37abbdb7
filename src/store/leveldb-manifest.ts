// Reads a LevelDB MANIFEST: the log of version edits that says which table files make up the
// database and which write-ahead logs recovery replays. A checkpoint must link exactly those
// tables: a table file the MANIFEST does not name yet (a compaction's output being written) may
// get the same number as a file the copy writes when it is opened, and LevelDB would then
// truncate the file it shares with the live database.

/** What a MANIFEST's edits add up to. */
export interface ManifestVersion {
  /** Numbers of the live table files. */
  tables: Set<number>;
  /** Logs numbered at least this are replayed by recovery. */
  logNumber: number;
  /** An older log recovery also replays (0 when none). */
  prevLogNumber: number;
  /** The next file number the database will use. */
  nextFileNumber: number;
}

/** Thrown when the bytes are not a MANIFEST this reader understands. */
export class ManifestError extends Error {}

const BLOCK = 32768;
const HEADER = 7;
const enum RecordType { Zero = 0, Full = 1, First = 2, Middle = 3, Last = 4 }
const enum Tag { Comparator = 1, LogNumber = 2, NextFile = 3, LastSequence = 4, CompactPointer = 5, DeletedFile = 6, NewFile = 7, PrevLogNumber = 9 }

/** Applies every edit in `manifest` (the whole file) and returns the resulting version. */
export function readManifest(manifest: Buffer): ManifestVersion {
  const version: ManifestVersion = { tables: new Set(), logNumber: 0, prevLogNumber: 0, nextFileNumber: 0 };
  for (const edit of records(manifest)) applyEdit(version, edit);
  return version;
}

/** The log-format records of a file: 32 KiB blocks of [crc u32][length u16][type u8][data]. */
function* records(file: Buffer): Generator<Buffer> {
  let parts: Buffer[] = [];
  let pos = 0;
  while (pos + HEADER <= file.length) {
    const left = BLOCK - (pos % BLOCK);
    if (left < HEADER) { pos += left; continue; }
    const length = file.readUInt16LE(pos + 4);
    const type = file[pos + 6] as RecordType;
    const start = pos + HEADER;
    if (start + length > file.length) return; // a record cut at the end was never acknowledged
    const data = file.subarray(start, start + length);
    pos = start + length;
    if (type === RecordType.Zero) continue;
    if (type === RecordType.Full) { yield data; parts = []; continue; }
    if (type === RecordType.First) { parts = [data]; continue; }
    if (type === RecordType.Middle) { parts.push(data); continue; }
    if (type === RecordType.Last) { parts.push(data); yield Buffer.concat(parts); parts = []; continue; }
    throw new ManifestError(`record type ${type} at byte ${pos - length - HEADER}`);
  }
}

function applyEdit(version: ManifestVersion, edit: Buffer): void {
  const r = new Reader(edit);
  while (!r.done()) {
    const tag = r.varint() as Tag;
    switch (tag) {
      case Tag.Comparator: r.slice(); break;
      case Tag.LogNumber: version.logNumber = r.varint(); break;
      case Tag.NextFile: version.nextFileNumber = r.varint(); break;
      case Tag.LastSequence: r.varint(); break;
      case Tag.CompactPointer: r.varint(); r.slice(); break;
      case Tag.DeletedFile: r.varint(); version.tables.delete(r.varint()); break;
      case Tag.NewFile: { r.varint(); const n = r.varint(); r.varint(); r.slice(); r.slice(); version.tables.add(n); break; }
      case Tag.PrevLogNumber: version.prevLogNumber = r.varint(); break;
      default: throw new ManifestError(`unknown version edit tag ${tag}`);
    }
  }
}

class Reader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  done(): boolean {
    return this.pos >= this.buf.length;
  }

  /** A varint of up to 64 bits, exact below 2^53 (file numbers; sequences are only skipped). */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new ManifestError('varint cut at the end of an edit');
      const byte = this.buf[this.pos++];
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw new ManifestError('varint longer than 10 bytes');
  }

  slice(): Buffer {
    const length = this.varint();
    if (this.pos + length > this.buf.length) throw new ManifestError('field cut at the end of an edit');
    const out = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }
}
