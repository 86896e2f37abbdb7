// Value ordering shared by evaluation and sorting: byte-wise strings, numeric numbers,
// false < true, chronological datetimes, nulls first; plus the multi-key sort comparator.

import { toEpochMs } from './datetime.js';
import type { SortKey } from './types.js';

/** Maps a UTF-16 code unit so that code-unit order equals code-point (UTF-8 byte) order. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** Compares strings by their UTF-8 bytes (case-sensitive), like Go's string comparison. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) < codePointRank(y) ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

/** Orders values of different kinds: null < bool < number < string < Date < other. */
function kindRank(v: unknown): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'boolean') return 1;
  if (typeof v === 'number' || typeof v === 'bigint') return 2;
  if (typeof v === 'string') return 3;
  if (v instanceof Date) return 4;
  return 5;
}

/**
 * Sort order of two field values (ascending): null/undefined first, numbers numerically,
 * strings byte-wise, false before true, Dates chronologically (a Date against an ISO string or
 * epoch ms compares as a datetime). Values of different kinds order by kind.
 */
export function compareValues(a: unknown, b: unknown): number {
  const ra = kindRank(a);
  const rb = kindRank(b);
  if (ra === 0 || rb === 0) return sign(ra - rb);
  if (ra === 2 && rb === 2) return a === b ? 0 : (a as number) < (b as number) ? -1 : 1;
  if (ra === 3 && rb === 3) return compareStrings(a as string, b as string);
  if (ra === 1 && rb === 1) return a === b ? 0 : a ? 1 : -1;
  if (ra === 4 || rb === 4) {
    const x = toEpochMs(a);
    const y = toEpochMs(b);
    if (x !== null && y !== null) return sign(x - y);
  }
  if (ra !== rb) return sign(ra - rb);
  return compareStrings(String(a), String(b));
}

/**
 * A comparator for `sort by` keys; `id` ascending is always appended as the final tiebreaker,
 * so equal keys keep id order (also under desc). Nulls sort first ascending, last descending.
 */
export function sortComparator<R>(
  sort: SortKey[],
  get: (record: R, field: string) => unknown,
): (a: R, b: R) => number {
  const keys: SortKey[] = [...sort, { field: 'id', direction: 'asc' }];
  return (a, b) => {
    for (const { field, direction } of keys) {
      const c = compareValues(get(a, field), get(b, field));
      if (c !== 0) return direction === 'desc' ? -c : c;
    }
    return 0;
  };
}
