// BTreeCursor: reads a frozen (snapshot) B+tree — the node shapes MemoryKv builds, binary
// search within nodes, the ranged, optionally reversed walk behind entries()/keys(), and
// O(log n) range counts from the subtree sizes every node keeps.

import { compareUtf8, nativeOrderExact } from './compare-utf8.js';
import type { KvRange } from './kv.js';

/** A leaf: sorted keys and their values. `gen` is the writer generation that may mutate it;
 * `size` is keys.length, kept so that every node answers "how many keys below me" alike. */
export interface Leaf {
  gen: number;
  keys: string[];
  vals: string[];
  kids: null;
  size: number;
}

/** An inner node; keys[i] is the smallest key under kids[i]; `size` counts the keys (leaf
 * entries) of the whole subtree. */
export interface Branch {
  gen: number;
  keys: string[];
  vals: null;
  kids: BTreeNode[];
  size: number;
}

/** Any node of the tree. */
export type BTreeNode = Leaf | Branch;

/** A range end; `native` = nativeOrderExact(key), so `<` may stand in for compareUtf8. */
interface Bound {
  key: string;
  inclusive: boolean;
  native: boolean;
}

/** Index of the first key >= `key`. Pass `native` when searching one key through many nodes. */
export function lowerBound(keys: string[], key: string, native = nativeOrderExact(key)): number {
  let lo = 0;
  let hi = keys.length;
  if (native) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareUtf8(keys[mid], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first key > `key`. */
export function upperBound(keys: string[], key: string, native = nativeOrderExact(key)): number {
  let lo = 0;
  let hi = keys.length;
  if (native) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] <= key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareUtf8(keys[mid], key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The child of a branch whose subtree would hold `key`. */
export function childIndex(keys: string[], key: string, native = nativeOrderExact(key)): number {
  return Math.max(0, upperBound(keys, key, native) - 1);
}

function lowerOf(range: KvRange): Bound | null {
  if (range.gte !== undefined) return { key: range.gte, inclusive: true, native: nativeOrderExact(range.gte) };
  return range.gt !== undefined ? { key: range.gt, inclusive: false, native: nativeOrderExact(range.gt) } : null;
}

function upperOf(range: KvRange): Bound | null {
  if (range.lte !== undefined) return { key: range.lte, inclusive: true, native: nativeOrderExact(range.lte) };
  return range.lt !== undefined ? { key: range.lt, inclusive: false, native: nativeOrderExact(range.lt) } : null;
}

function limitOf(range: KvRange): number {
  return Number.isInteger(range.limit) && (range.limit as number) >= 0 ? (range.limit as number) : Infinity;
}

/** Counts a frozen tree's keys within a range in O(log n), as many as scanRange would yield. */
export function countRange(root: BTreeNode, range: KvRange): number {
  const lower = lowerOf(range);
  const upper = upperOf(range);
  const from = lower === null ? 0 : keysBefore(root, lower.key, lower.native, !lower.inclusive);
  const to = upper === null ? root.size : keysBefore(root, upper.key, upper.native, upper.inclusive);
  return Math.min(Math.max(0, to - from), limitOf(range));
}

/** How many keys sort before `key` (and equal to it, with `orEqual`): the sizes of the subtrees
 * left of the search path plus the position in the leaf. */
function keysBefore(root: BTreeNode, key: string, native: boolean, orEqual: boolean): number {
  let node = root;
  let n = 0;
  while (node.kids !== null) {
    const at = childIndex(node.keys, key, native);
    for (let i = 0; i < at; i++) n += node.kids[i].size;
    node = node.kids[at];
  }
  return n + (orEqual ? upperBound : lowerBound)(node.keys, key, native);
}

/** Walks a frozen tree within a range (LevelDB semantics: lte/gte win over lt/gt, limit < 0 = none). */
export function* scanRange(root: BTreeNode, range: KvRange): Generator<[string, string]> {
  const limit = limitOf(range);
  const lower = lowerOf(range);
  const upper = upperOf(range);
  const reverse = range.reverse === true;
  const cursor = new BTreeCursor(root);
  if (reverse) cursor.seekLast(upper);
  else cursor.seekFirst(lower);
  for (let n = 0; n < limit && cursor.valid(); n++) {
    const key = cursor.key();
    if (reverse ? below(key, lower) : above(key, upper)) return;
    yield [key, cursor.value()];
    if (reverse) cursor.prev();
    else cursor.next();
  }
}

function above(key: string, upper: Bound | null): boolean {
  if (upper === null) return false;
  if (upper.native) return upper.inclusive ? key > upper.key : key >= upper.key;
  const c = compareUtf8(key, upper.key);
  return c > 0 || (c === 0 && !upper.inclusive);
}

function below(key: string, lower: Bound | null): boolean {
  if (lower === null) return false;
  if (lower.native) return lower.inclusive ? key < lower.key : key <= lower.key;
  const c = compareUtf8(key, lower.key);
  return c < 0 || (c === 0 && !lower.inclusive);
}

/** A position in a frozen tree: the path of nodes from the root and the index taken in each. */
export class BTreeCursor {
  readonly #nodes: BTreeNode[] = [];
  readonly #idx: number[] = [];

  constructor(private readonly root: BTreeNode) {}

  valid(): boolean {
    return this.#nodes.length > 0;
  }

  key(): string {
    return this.#leaf().keys[this.#idx[this.#idx.length - 1]];
  }

  value(): string {
    return this.#leaf().vals[this.#idx[this.#idx.length - 1]];
  }

  seekFirst(lower: Bound | null): void {
    let node = this.root;
    for (;;) {
      if (node.kids === null) {
        const at = lower === null ? 0 : (lower.inclusive ? lowerBound : upperBound)(node.keys, lower.key, lower.native);
        this.#push(node, at);
        if (at >= node.keys.length) this.#climbForward();
        return;
      }
      const at = lower === null ? 0 : childIndex(node.keys, lower.key, lower.native);
      this.#push(node, at);
      node = node.kids[at];
    }
  }

  seekLast(upper: Bound | null): void {
    let node = this.root;
    for (;;) {
      if (node.kids === null) {
        const end = upper === null ? node.keys.length : (upper.inclusive ? upperBound : lowerBound)(node.keys, upper.key, upper.native);
        this.#push(node, end - 1);
        if (end === 0) this.#climbBack();
        return;
      }
      const at = upper === null ? node.kids.length - 1 : childIndex(node.keys, upper.key, upper.native);
      this.#push(node, at);
      node = node.kids[at];
    }
  }

  next(): void {
    const top = this.#idx.length - 1;
    if (++this.#idx[top] >= this.#leaf().keys.length) this.#climbForward();
  }

  prev(): void {
    const top = this.#idx.length - 1;
    if (--this.#idx[top] < 0) this.#climbBack();
  }

  #leaf(): Leaf {
    return this.#nodes[this.#nodes.length - 1] as Leaf;
  }

  #push(node: BTreeNode, at: number): void {
    this.#nodes.push(node);
    this.#idx.push(at);
  }

  #pop(): void {
    this.#nodes.pop();
    this.#idx.pop();
  }

  /** Leaves an exhausted leaf for the first entry of the next one (or becomes invalid). */
  #climbForward(): void {
    this.#pop();
    while (this.#nodes.length > 0) {
      const top = this.#nodes.length - 1;
      const kids = (this.#nodes[top] as Branch).kids;
      if (++this.#idx[top] < kids.length) {
        let node = kids[this.#idx[top]];
        while (node.kids !== null) {
          this.#push(node, 0);
          node = node.kids[0];
        }
        if (node.keys.length > 0) return this.#push(node, 0);
        continue;
      }
      this.#pop();
    }
  }

  /** Leaves an exhausted leaf for the last entry of the previous one (or becomes invalid). */
  #climbBack(): void {
    this.#pop();
    while (this.#nodes.length > 0) {
      const top = this.#nodes.length - 1;
      const kids = (this.#nodes[top] as Branch).kids;
      if (--this.#idx[top] >= 0) {
        let node = kids[this.#idx[top]];
        while (node.kids !== null) {
          this.#push(node, node.kids.length - 1);
          node = node.kids[node.kids.length - 1];
        }
        if (node.keys.length > 0) return this.#push(node, node.keys.length - 1);
        continue;
      }
      this.#pop();
    }
  }
}
