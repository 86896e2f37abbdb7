// BTreeCursor: reads a frozen (snapshot) B+tree — the node shapes MemoryKv builds, binary
// search within nodes, and the ranged, optionally reversed walk behind entries()/keys().

import { compareUtf8 } from './compare-utf8.js';
import type { KvRange } from './kv.js';

/** A leaf: sorted keys and their values. `gen` is the writer generation that may mutate it. */
export interface Leaf {
  gen: number;
  keys: string[];
  vals: string[];
  kids: null;
}

/** An inner node; keys[i] is the smallest key under kids[i]. */
export interface Branch {
  gen: number;
  keys: string[];
  vals: null;
  kids: BTreeNode[];
}

/** Any node of the tree. */
export type BTreeNode = Leaf | Branch;

interface Bound {
  key: string;
  inclusive: boolean;
}

/** Index of the first key >= `key`. */
export function lowerBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareUtf8(keys[mid], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first key > `key`. */
export function upperBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareUtf8(keys[mid], key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The child of a branch whose subtree would hold `key`. */
export function childIndex(keys: string[], key: string): number {
  return Math.max(0, upperBound(keys, key) - 1);
}

function lowerOf(range: KvRange): Bound | null {
  if (range.gte !== undefined) return { key: range.gte, inclusive: true };
  return range.gt !== undefined ? { key: range.gt, inclusive: false } : null;
}

function upperOf(range: KvRange): Bound | null {
  if (range.lte !== undefined) return { key: range.lte, inclusive: true };
  return range.lt !== undefined ? { key: range.lt, inclusive: false } : null;
}

/** Walks a frozen tree within a range (LevelDB semantics: lte/gte win over lt/gt, limit < 0 = none). */
export function* scanRange(root: BTreeNode, range: KvRange): Generator<[string, string]> {
  const limit = Number.isInteger(range.limit) && (range.limit as number) >= 0 ? (range.limit as number) : Infinity;
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
  const c = compareUtf8(key, upper.key);
  return c > 0 || (c === 0 && !upper.inclusive);
}

function below(key: string, lower: Bound | null): boolean {
  if (lower === null) return false;
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
        const at = lower === null ? 0 : (lower.inclusive ? lowerBound : upperBound)(node.keys, lower.key);
        this.#push(node, at);
        if (at >= node.keys.length) this.#climbForward();
        return;
      }
      const at = lower === null ? 0 : childIndex(node.keys, lower.key);
      this.#push(node, at);
      node = node.kids[at];
    }
  }

  seekLast(upper: Bound | null): void {
    let node = this.root;
    for (;;) {
      if (node.kids === null) {
        const end = upper === null ? node.keys.length : (upper.inclusive ? upperBound : lowerBound)(node.keys, upper.key);
        this.#push(node, end - 1);
        if (end === 0) this.#climbBack();
        return;
      }
      const at = upper === null ? node.kids.length - 1 : childIndex(node.keys, upper.key);
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
