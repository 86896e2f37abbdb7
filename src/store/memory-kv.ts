// MemoryKv: the in-memory KvStore — a copy-on-write B+tree in UTF-8 byte order (LevelDB's order).
// Iterators read a snapshot, as LevelDB's do, while writers carry on in O(log n) per op; every
// node knows how many keys it holds, so range counts are O(log n) too. With `packed`, leaves are
// front-coded strings (PackedLeaf) decoded on use: a few bytes of heap a key instead of ~100.

import { type Branch, type BTreeNode, type Leaf, childIndex, countRange, lowerBound, scanRange } from './btree-cursor.js';
import { assertValidOps, nativeOrderExact } from './compare-utf8.js';
import type { KvOp, KvRange, KvStore } from './kv.js';
import type { KvSnapshot } from './kv-snapshot.js';
import { findIn, scanAsync, snapshotView } from './btree-snapshot.js';
import { PackedLeaf, type LeafRing } from './packed-leaf.js';
import { createTreeBuilder, sizeOf } from './btree-builder.js';

/** Most keys (or children) per node before it splits; fewer than MIN_FILL triggers a merge. */
const MAX_FILL = 64;
const MIN_FILL = 16;

/** Options for {@link MemoryKv}. */
export interface MemoryKvOptions {
  /** Leaves kept packed (PackedLeaf): compact, each read of a leaf not recently used decodes it. */
  packed?: boolean;
  /** The ring that bounds the decoded leaves of a packed tree (default: the process's). */
  ring?: LeafRing;
}

/** The in-memory KvStore. Data survives close()/open() of the same instance, not the process. */
export class MemoryKv implements KvStore {
  readonly #packed: boolean;
  readonly #ring: LeafRing | undefined;
  #root: BTreeNode;
  /** Nodes with this generation may be mutated in place; older ones belong to a snapshot. */
  #gen = 0;
  #open = false;
  #size = 0;

  constructor(opts: MemoryKvOptions = {}) {
    this.#packed = opts.packed === true;
    this.#ring = opts.ring;
    this.#root = this.#leaf(0, [], []);
  }

  /** A new leaf (packed or plain) owning the arrays given. */
  #leaf(gen: number, keys: string[], vals: string[], encodeNow = false): Leaf {
    if (this.#packed) return new PackedLeaf(gen, keys, vals, encodeNow, this.#ring);
    return { gen, keys, vals, kids: null, size: keys.length };
  }

  /** Number of keys stored. */
  get size(): number {
    return this.#size;
  }

  async open(): Promise<void> {
    this.#open = true;
  }

  async close(): Promise<void> {
    this.#open = false;
  }

  async get(key: string): Promise<string | undefined> {
    this.#assertOpen();
    return findIn(this.#root, key);
  }

  /** See KvStore.getAbsent (a MemoryKv read never leaves this thread). */
  getAbsent(key: string): string | undefined {
    this.#assertOpen();
    return findIn(this.#root, key);
  }

  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    this.#assertOpen();
    return keys.map((key) => findIn(this.#root, key));
  }

  /** Validates every op, then applies all of them synchronously: atomic by construction. */
  async batch(ops: KvOp[], _opts?: { sync?: boolean }): Promise<void> {
    this.#assertOpen();
    assertValidOps(ops);
    for (const op of ops) {
      if (op.type === 'put') this.#put(op.key, op.value);
      else this.#del(op.key);
    }
  }

  async *entries(range: KvRange): AsyncIterable<[string, string]> {
    this.#assertOpen();
    const scan = this.#scan(range);
    // A copied-out range is looped over as an array: `yield*` or `for await` over a synchronous
    // iterable adds a promise per item (a streamed list asks three such ranges per identity).
    if (Array.isArray(scan)) for (const entry of scan) yield entry;
    else yield* scan;
  }

  /** Counts the keys in a range in O(log n) from the nodes' sizes (synchronous: no snapshot). */
  async countKeys(range: KvRange): Promise<number> {
    this.#assertOpen();
    return countRange(this.#root, range);
  }

  async *keys(range: KvRange): AsyncIterable<string> {
    this.#assertOpen();
    const scan = this.#scan(range);
    if (Array.isArray(scan)) for (const [key] of scan) yield key;
    else for await (const [key] of scan) yield key;
  }

  /** A scan that sees the store as it is now. A short range (most reads: an index value, an
   * entity's links) is copied out at once, so it needs no snapshot, and the next write need not
   * copy the nodes on its path; a longer one walks a snapshot. */
  #scan(range: KvRange): Iterable<[string, string]> | AsyncIterable<[string, string]> {
    if (countRange(this.#root, range) <= COPY_OUT) return [...scanRange(this.#root, range)];
    return scanAsync(this.#snapshot(), range);
  }

  /**
   * Replaces the (empty) store's contents with entries given in ascending key order, building
   * the tree bottom-up in O(n) instead of inserting one key at a time.
   */
  bulkLoad(sorted: [string, string][]): void {
    const loader = this.bulkLoader();
    for (const [key, value] of sorted) loader.add(key, value);
    loader.finish();
  }

  /**
   * Loads the (empty) store from entries added in ascending key order, one at a time, leaves
   * made (and packed) as they fill: nothing but the tree itself is held while loading. `bytes`
   * is the packed leaves' heap cost so far (0 for a plain tree). finish() installs the tree.
   */
  bulkLoader(): { add(key: string, value: string): void; readonly bytes: number; finish(): void } {
    this.#assertOpen();
    if (this.#size > 0) throw new Error('bulkLoad needs an empty MemoryKv');
    const gen = ++this.#gen;
    const builder = createTreeBuilder((keys, vals) => this.#leaf(gen, keys, vals, true), gen, (MAX_FILL * 3) >> 2);
    return {
      add: (key, value) => builder.add(key, value),
      get bytes() {
        return builder.bytes;
      },
      finish: () => {
        const tree = builder.finish();
        if (tree) ({ root: this.#root, size: this.#size } = tree);
      },
    };
  }

  /** A read-only view frozen at this instant (later writes copy the nodes they touch, as for
   * iterators); it costs nothing to keep and close() is a no-op. */
  snapshot(): KvSnapshot {
    this.#assertOpen();
    return snapshotView(this.#snapshot());
  }

  #assertOpen(): void {
    if (!this.#open) throw new Error('MemoryKv is not open');
  }

  /** Freezes the current tree for a reader: later writes copy the nodes they touch. */
  #snapshot(): BTreeNode {
    this.#gen++;
    return this.#root;
  }

  #mutable<N extends BTreeNode>(node: N): N {
    if (node.gen === this.#gen) {
      if (node instanceof PackedLeaf) node.touch();
      return node;
    }
    if (node.kids === null) return this.#leaf(this.#gen, node.keys.slice(), node.vals.slice()) as N;
    const { keys, kids, size } = node;
    return { gen: this.#gen, keys: keys.slice(), vals: null, kids: kids.slice(), size } as N;
  }

  #put(key: string, value: string): void {
    const root = this.#mutable(this.#root);
    const sibling = this.#insert(root, key, value, nativeOrderExact(key));
    if (sibling === null) this.#root = root;
    else this.#root = { gen: this.#gen, keys: [root.keys[0], sibling.keys[0]], vals: null, kids: [root, sibling], size: root.size + sibling.size };
  }

  /** Inserts into a mutable node; returns the new right sibling if the node split. */
  #insert(node: BTreeNode, key: string, value: string, native: boolean): BTreeNode | null {
    if (node.kids === null) {
      const i = lowerBound(node.keys, key, native);
      if (node.keys[i] === key) {
        node.vals[i] = value;
        return null;
      }
      node.keys.splice(i, 0, key);
      node.vals.splice(i, 0, value);
      node.size++;
      this.#size++;
    } else {
      const i = childIndex(node.keys, key, native);
      const child = (node.kids[i] = this.#mutable(node.kids[i]));
      const before = child.size;
      const sibling = this.#insert(child, key, value, native);
      node.size += child.size + (sibling?.size ?? 0) - before;
      node.keys[i] = child.keys[0];
      if (sibling !== null) {
        node.keys.splice(i + 1, 0, sibling.keys[0]);
        node.kids.splice(i + 1, 0, sibling);
      }
    }
    return node.keys.length > MAX_FILL ? this.#split(node) : null;
  }

  /** Moves the upper half of a node into a new right sibling, sizes adjusted on both. */
  #split(node: BTreeNode): BTreeNode {
    const half = node.keys.length >>> 1;
    const keys = node.keys.splice(half);
    let sibling: BTreeNode;
    if (node.kids === null) sibling = this.#leaf(this.#gen, keys, node.vals.splice(half));
    else {
      const kids = node.kids.splice(half);
      sibling = { gen: this.#gen, keys, vals: null, kids, size: sizeOf(kids) };
    }
    node.size -= sibling.size;
    return sibling;
  }

  #del(key: string): void {
    const native = nativeOrderExact(key);
    if (findIn(this.#root, key, native) === undefined) return;
    const root = (this.#root = this.#mutable(this.#root));
    this.#remove(root, key, native);
    this.#size--;
    while (this.#root.kids !== null && this.#root.kids.length === 1) this.#root = this.#root.kids[0];
  }

  /** Removes a key known to exist under a mutable node, merging underfull children. */
  #remove(node: BTreeNode, key: string, native: boolean): void {
    node.size--;
    if (node.kids === null) {
      const i = lowerBound(node.keys, key, native);
      node.keys.splice(i, 1);
      node.vals.splice(i, 1);
      return;
    }
    const i = childIndex(node.keys, key, native);
    const child = (node.kids[i] = this.#mutable(node.kids[i]));
    this.#remove(child, key, native);
    if (child.keys.length >= MIN_FILL || node.kids.length === 1) {
      if (child.keys.length > 0) node.keys[i] = child.keys[0];
    } else {
      this.#rebalance(node, i);
    }
  }

  /** Merges kids[i] with a neighbour, or splits the pair evenly if together they are too big. */
  #rebalance(parent: Branch, i: number): void {
    const l = i + 1 < parent.kids.length ? i : i - 1;
    const left = (parent.kids[l] = this.#mutable(parent.kids[l]));
    const right = parent.kids[l + 1];
    const keys = left.keys.concat(right.keys);
    const items = itemsOf(left).concat(itemsOf(right));
    if (keys.length <= MAX_FILL) {
      setItems(left, keys, items);
      parent.keys.splice(l + 1, 1);
      parent.kids.splice(l + 1, 1);
    } else {
      const half = keys.length >>> 1;
      const moved = (parent.kids[l + 1] = this.#mutable(right));
      setItems(left, keys.slice(0, half), items.slice(0, half));
      setItems(moved, keys.slice(half), items.slice(half));
      parent.keys[l + 1] = moved.keys[0];
    }
    parent.keys[l] = left.keys[0];
  }
}

function itemsOf(node: BTreeNode): unknown[] {
  return node.kids === null ? node.vals : node.kids;
}

function setItems(node: BTreeNode, keys: string[], items: unknown[]): void {
  node.keys = keys;
  if (node.kids === null) {
    node.vals = items as string[];
    node.size = keys.length;
  } else {
    node.kids = items as BTreeNode[];
    node.size = sizeOf(node.kids);
  }
}

/** Ranges of at most this many entries are copied out instead of scanned on a snapshot. */
const COPY_OUT = 256;
