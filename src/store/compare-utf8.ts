// The key order and key rules both KvStores share: UTF-8 byte order (LevelDB's order) for
// JS strings, and which keys/ops are valid, so MemoryKv and LevelKv agree on every input.

import type { KvOp } from './kv.js';

/** Orders two strings as the bytes of their UTF-8 encodings (= code-point order), like LevelDB.
 * Plain `<` compares UTF-16 units, which misorders astral characters against U+E000..U+FFFF. */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (D800-DFFF) encode code points above FFFF, so they sort after E000-FFFF.
    if (x >= 0xd800 && y >= 0xd800) return shiftSurrogate(x) - shiftSurrogate(y);
    return x - y;
  }
  return a.length - b.length;
}

function shiftSurrogate(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  return unit <= 0xdfff ? unit + 0x2000 : unit;
}

const AT_OR_ABOVE_SURROGATES = /[\ud800-\uffff]/;

/** True when plain `<`, `>` and `===` against `key` give exactly compareUtf8's answer, whatever
 * the other string: `key` has no code unit >= 0xD800, so the first differing unit of any pair is
 * below the surrogates on one side, where UTF-16 and UTF-8 order agree. Test once per search. */
export function nativeOrderExact(key: string): boolean {
  return !AT_OR_ABOVE_SURROGATES.test(key);
}

/** True when the key survives a UTF-8 round trip (no lone surrogates), so both stores agree on it. */
export function isValidKey(key: string): boolean {
  return typeof key === 'string' && (key as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** Throws a TypeError naming the first malformed op; called before anything is applied. */
export function assertValidOps(ops: readonly KvOp[]): void {
  if (!Array.isArray(ops)) throw new TypeError('batch: ops must be an array');
  ops.forEach((op, i) => {
    if (op === null || typeof op !== 'object') throw new TypeError(`batch: op ${i} is not an object`);
    if (!isValidKey(op.key)) throw new TypeError(`batch: op ${i} key must be a well-formed string`);
    if (op.type === 'put' && typeof op.value === 'string') return;
    if (op.type === 'del') return;
    throw new TypeError(`batch: op ${i} must be {type:'put', key, value: string} or {type:'del', key}`);
  });
}
