// Builds MemoryKv's B+tree bottom-up from entries given in ascending key order: leaves are cut
// as they fill, then branches are built over them level by level. Holds only the tree it builds.

import type { BTreeNode, Leaf } from './btree-cursor.js';
import { PackedLeaf } from './packed-leaf.js';

/** Takes entries in ascending key order; `bytes` is the packed leaves' heap cost so far (0 for
 * plain leaves); finish() answers the tree (undefined when nothing was added). */
export interface TreeBuilder {
  add(key: string, value: string): void;
  readonly bytes: number;
  finish(): { root: BTreeNode; size: number } | undefined;
}

/** A builder whose leaves come from `makeLeaf` (plain or packed) and hold `fill` keys each. */
export function createTreeBuilder(makeLeaf: (keys: string[], vals: string[]) => Leaf, gen: number, fill: number): TreeBuilder {
  const leaves: BTreeNode[] = [];
  const firsts: string[] = [];
  let keys: string[] = [];
  let vals: string[] = [];
  let bytes = 0;
  let count = 0;
  const cut = () => {
    if (keys.length === 0) return;
    const leaf = makeLeaf(keys, vals);
    if (leaf instanceof PackedLeaf) bytes += leaf.packedBytes + keys[0].length;
    leaves.push(leaf);
    firsts.push(keys[0]);
    keys = [];
    vals = [];
  };
  return {
    add: (key, value) => {
      keys.push(key);
      vals.push(value);
      count++;
      if (keys.length >= fill) cut();
    },
    get bytes() {
      return bytes;
    },
    finish: () => {
      cut();
      return count === 0 ? undefined : { root: buildUp(leaves, firsts, gen, fill), size: count };
    },
  };
}

/** The number of keys under some nodes. */
export function sizeOf(kids: BTreeNode[]): number {
  let size = 0;
  for (const kid of kids) size += kid.size;
  return size;
}

/** Builds the branches over a level of nodes (firsts[i]: the smallest key under nodes[i]),
 * bottom-up, and returns the root. */
function buildUp(nodes: BTreeNode[], firsts: string[], gen: number, fill: number): BTreeNode {
  let level = nodes;
  let smallest = firsts;
  while (level.length > 1) {
    const parents: BTreeNode[] = [];
    const parentFirsts: string[] = [];
    for (let i = 0; i < level.length; i += fill) {
      const kids = level.slice(i, i + fill);
      const keys = smallest.slice(i, i + fill);
      parents.push({ gen, keys, vals: null, kids, size: sizeOf(kids) });
      parentFirsts.push(keys[0]);
    }
    level = parents;
    smallest = parentFirsts;
  }
  return level[0];
}
