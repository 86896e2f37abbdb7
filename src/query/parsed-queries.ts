// Parsed list queries kept by their text: a client asks the same few filters again and again
// (the admin console, on every list page), and lexing and parsing one cost about as much CPU,
// and more garbage, as reading its page from the index. Keeps only what parsing gave (errors are
// thrown again each time); never reads the store.

import type { Query } from '../domain/query/index.js';

/** Most queries kept; when full, the eighth kept longest is dropped. */
const MAX_KEPT = 512;
/** Longer filter texts are parsed every time (they are rarely asked twice). */
const MAX_TEXT = 2_048;

/** Parsed queries by kind, filter and sort text. Each is deep-frozen: every list that asks the
 * same text shares it, so a caller that wants a changed query builds a new one. */
export class ParsedQueries {
  private readonly kept = new Map<string, Query>();

  /** The query parsed from this text before, or `parse()`'s (kept when it succeeds). */
  get(kind: string, filter: string, sort: string, parse: () => Query): Query {
    if (filter.length + sort.length > MAX_TEXT) return parse();
    const key = `${kind}\x00${sort.length}\x00${sort}${filter}`;
    const known = this.kept.get(key);
    if (known) return known;
    const query = deepFreeze(parse());
    if (this.kept.size >= MAX_KEPT) this.dropOldest(MAX_KEPT / 8);
    this.kept.set(key, query);
    return query;
  }

  /** Queries kept now. */
  get size(): number {
    return this.kept.size;
  }

  private dropOldest(count: number): void {
    for (const key of this.kept.keys()) {
      if (count-- <= 0) return;
      this.kept.delete(key);
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
