// PackedLeaf: a B+tree leaf kept as one front-coded string (each key stored as the length it
// shares with the previous key and the rest), so that an index key costs a few bytes of heap
// instead of a string of its own (~70 bytes and up). Its keys and values are decoded on use into
// arrays held by a small ring of recently used leaves: a leaf pushed out of the ring is encoded
// again (if it was written meanwhile) and its arrays dropped. To the tree code a PackedLeaf looks
// like a plain leaf (`keys`, `vals`), so MemoryKv and BTreeCursor need not know.
//
// Rules: a leaf's arrays may be mutated in place only by the writer that owns it (MemoryKv marks
// it written through `touch()` before mutating); a leaf frozen in a snapshot is never mutated, so
// decoding it again always gives the same arrays' contents.

/** Decoded leaves a ring keeps by default (each a few dozen keys): bounds the decoded memory. */
const RING_SIZE = 1_024;
/** Heap bytes a decoded leaf is taken to cost: up to 64 keys and values of ~40 characters, as
 * strings of their own (header, characters) in two arrays. A budget's share for decoded leaves
 * divided by this is its ring's size. */
export const DECODED_LEAF_BYTES = 64 * 2 * (40 + 32);

/** The leaves whose arrays are decoded, at most `capacity`: the oldest decoded is packed again
 * when another is decoded. A store's ring is sized from its memory budget; trees made without
 * one share the process's default ring. */
export class LeafRing {
  readonly capacity: number;
  readonly #slots: (PackedLeaf | undefined)[];
  #at = 0;

  constructor(capacity = RING_SIZE) {
    this.capacity = Math.max(1, Math.floor(capacity));
    this.#slots = new Array(this.capacity);
  }

  /** A ring sized to hold about `bytes` of decoded leaves. */
  static forBytes(bytes: number): LeafRing {
    return new LeafRing(Math.max(16, Math.floor(bytes / DECODED_LEAF_BYTES)));
  }

  /** Leaves decoded now (at most capacity). */
  get decoded(): number {
    let n = 0;
    for (const leaf of this.#slots) if (leaf?.isDecoded) n++;
    return n;
  }

  /** Adds a leaf with decoded arrays, releasing the leaf it replaces. */
  enter(leaf: PackedLeaf): void {
    const old = this.#slots[this.#at];
    this.#slots[this.#at] = leaf;
    this.#at = (this.#at + 1) % this.capacity;
    if (old !== undefined && old !== leaf) old.release();
  }

  /** Releases every decoded leaf. */
  releaseAll(): void {
    for (let i = 0; i < this.capacity; i++) {
      this.#slots[i]?.release();
      this.#slots[i] = undefined;
    }
  }
}

const defaultRing = new LeafRing();

/** Heap bytes a packed leaf costs beyond its string's characters (object, string header, the
 * parent's slot and its copy of the first key's header). */
export const PACKED_LEAF_OVERHEAD = 160;

export class PackedLeaf {
  readonly kids = null;
  gen: number;
  size: number;
  #packed = '';
  #keys: string[] | undefined;
  #vals: string[] | undefined;
  #written = false;
  readonly #ring: LeafRing;

  /** A leaf of sorted keys and their values; `encodeNow` packs at once (bulk loads), otherwise
   * the arrays are kept decoded (and written) until the ring pushes the leaf out. */
  constructor(gen: number, keys: string[], vals: string[], encodeNow = false, ring: LeafRing = defaultRing) {
    this.gen = gen;
    this.#ring = ring;
    this.size = keys.length;
    if (encodeNow) {
      this.#packed = encode(keys, vals);
      return;
    }
    this.#keys = keys;
    this.#vals = vals;
    this.#written = true;
    ring.enter(this);
  }

  /** True while the arrays are decoded. */
  get isDecoded(): boolean {
    return this.#keys !== undefined;
  }

  get keys(): string[] {
    if (this.#keys === undefined) this.#decode();
    return this.#keys!;
  }

  set keys(keys: string[]) {
    if (this.#keys === undefined) this.#decode();
    this.#keys = keys;
    this.#written = true;
  }

  get vals(): string[] {
    if (this.#vals === undefined) this.#decode();
    return this.#vals!;
  }

  set vals(vals: string[]) {
    if (this.#vals === undefined) this.#decode();
    this.#vals = vals;
    this.#written = true;
  }

  /** Marks the leaf as about to be mutated in place (its arrays will be encoded again). */
  touch(): void {
    if (this.#keys === undefined) this.#decode();
    this.#written = true;
  }

  /** Heap bytes of the packed form as last encoded (one-byte strings cost a byte a character,
   * others two). */
  get packedBytes(): number {
    return this.#packed.length * (TWO_BYTE.test(this.#packed) ? 2 : 1) + PACKED_LEAF_OVERHEAD;
  }

  /** Packs the arrays again if they were written, and drops them. */
  release(): void {
    if (this.#keys === undefined) return;
    if (this.#written) this.#packed = encode(this.#keys, this.#vals!);
    this.#written = false;
    this.#keys = undefined;
    this.#vals = undefined;
  }

  #decode(): void {
    const [keys, vals] = decode(this.#packed);
    this.#keys = keys;
    this.#vals = vals;
    this.#ring.enter(this);
  }
}

/** Releases every decoded leaf of the default ring (tests; trees made without a ring). */
export function releaseDecodedLeaves(): void {
  defaultRing.releaseAll();
}

const TWO_BYTE = /[^\x00-\xff]/;

/** Lengths below 255 take one character; longer ones 255 and four more (base 256). */
function putLength(out: string[], n: number): void {
  if (n < 255) out.push(String.fromCharCode(n));
  else out.push(String.fromCharCode(255, (n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255));
}

function encode(keys: string[], vals: string[]): string {
  const out: string[] = [];
  let prev = '';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const max = Math.min(prev.length, key.length);
    let shared = 0;
    while (shared < max && prev.charCodeAt(shared) === key.charCodeAt(shared)) shared++;
    putLength(out, shared);
    putLength(out, key.length - shared);
    out.push(key.slice(shared));
    putLength(out, vals[i].length);
    out.push(vals[i]);
    prev = key;
  }
  return out.join('');
}

function decode(packed: string): [string[], string[]] {
  const keys: string[] = [];
  const vals: string[] = [];
  let at = 0;
  const length = (): number => {
    const c = packed.charCodeAt(at++);
    if (c < 255) return c;
    const n = packed.charCodeAt(at) * 0x1000000 + (packed.charCodeAt(at + 1) << 16) + (packed.charCodeAt(at + 2) << 8) + packed.charCodeAt(at + 3);
    at += 4;
    return n;
  };
  let prev = '';
  while (at < packed.length) {
    const shared = length();
    const rest = length();
    // Flattened (one string, not a concatenation that keeps the previous key alive).
    const key = shared === 0 ? packed.slice(at, at + rest) : flat(prev.slice(0, shared) + packed.slice(at, at + rest));
    at += rest;
    const valueLength = length();
    vals.push(packed.slice(at, at + valueLength));
    at += valueLength;
    keys.push(key);
    prev = key;
  }
  return [keys, vals];
}

/** A concatenation turned into a flat string (V8 flattens a cons string it is asked to index). */
function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}
