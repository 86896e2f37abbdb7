// How a list query over the replica is read (QueryEngine's plan): the kind's indexed fields,
// the sort, the scope, the index hint the filter gives, and whether index keys alone answer it
// (the exact-range shortcut). Pure: reads no store.

import { sortableScalar } from '../domain/query-symbols.js';
import { extractIndexHint, type Expr, type IndexHint, type Query } from '../domain/query/index.js';
import { declarationOf } from '../domain/registry.js';
import { fieldsOf, indexedFields } from '../domain/resource.js';
import { encodeValue, indexPrefix } from './keys.js';
import type { KvRange } from './kv.js';

/** A pre-narrowed candidate set: children by an indexed field (`/identities/{id}/authenticators`)
 * or an explicit id set (entities reached through policies). `stored`: every id was read from
 * the replica's links, so each names a stored record (an id set a caller typed is not). */
export type Scope = { field: string; value: string } | { ids: Iterable<string>; stored?: boolean };

/** What list() and stream() both start from: the kind's indexed fields, the sort (id by
 * default), the scope's ids, and the index hint the filter (or the scope) gives. */
export function plan(kind: string, query: Query, scope?: Scope) {
  const decl = declarationOf(kind);
  const fields = fieldsOf(decl);
  const indexed = new Set(indexedFields(decl));
  const sort = query.sort.length > 0 ? query.sort : [{ field: 'id', direction: 'asc' as const }];
  // Distinct ids (a Set, as the access reader gives them, is copied once, not deduplicated again).
  const ids = scope && 'ids' in scope ? (scope.ids instanceof Set ? [...scope.ids] : [...new Set(scope.ids)]) : undefined;
  const stored = scope !== undefined && 'ids' in scope && scope.stored === true;
  const hint =
    scope && 'field' in scope
      ? ({ field: scope.field, kind: 'eq', values: [scope.value] } as IndexHint)
      : extractIndexHint(query.filter, (f) => indexed.has(f) && Boolean(fields[f]));
  return { indexed, sort, ids, stored, hint, exact: scope ? undefined : exactPlan(kind, query.filter, sort, hint) };
}

/** Reading index keys alone answers a query: which hint, in which order, and whether by id. */
export interface ExactPlan {
  hint: IndexHint;
  reverse: boolean;
  /** The sort is id within one index value (whose keys are in id order), not the hint's field. */
  byId: boolean;
}

/**
 * The exact-range shortcut list() and stream() both take: the filter is exactly the hint's
 * range(s) and the sort is that field (a sortable scalar), or id over a single index value.
 */
function exactPlan(kind: string, filter: Expr | null, sort: Query['sort'], hint: IndexHint | undefined): ExactPlan | undefined {
  if (!hint || sort.length !== 1 || !isExactHint(filter, hint)) return undefined;
  const reverse = sort[0].direction === 'desc';
  if (sort[0].field === hint.field && sortableScalar(kind, hint.field)) return { hint, reverse, byId: false };
  // One value's index keys are in id order: the default sort needs no record either.
  const oneValue = hint.kind === 'eq' && hint.values.length === 1 && (hint.set === true || sortableScalar(kind, hint.field));
  if (sort[0].field === 'id' && oneValue) return { hint, reverse, byId: true };
  return undefined;
}

/**
 * True when the filter is exactly what the hint reads, so counting index keys counts matches.
 * A range without a lower bound is never exact (nulls sort first in the index but never match
 * a comparison).
 */
function isExactHint(filter: Expr | null, hint: IndexHint): boolean {
  if (filter === null) return false;
  const leaves = filter.kind === 'and' ? filter.args : [filter];
  const onField = (lhs: { kind: string; symbol?: string }) => lhs.kind === 'symbol' && lhs.symbol === hint.field;
  if (hint.kind === 'eq') {
    // One `=` or `in` leaf: the hint's values are exactly its values. `anyOf(set) = v` matches
    // exactly the entities with an index key for v (one key per element).
    const [leaf] = leaves;
    if (leaves.length !== 1) return false;
    const onSet = (lhs: { kind: string; symbol?: string }) => lhs.kind === 'anyOf' && lhs.symbol === hint.field;
    if (leaf.kind === 'compare') return (onField(leaf.lhs) || onSet(leaf.lhs)) && leaf.op === '=' && leaf.rhs.type !== 'null';
    return leaf.kind === 'in' && onField(leaf.lhs) && !leaf.negated;
  }
  if (hint.gt === undefined && hint.gte === undefined) return false;
  // At most a lower and an upper bound (or one `between`), all on the field.
  if (leaves.length > 2) return false;
  return leaves.every((leaf) =>
    (leaf.kind === 'compare' && onField(leaf.lhs) && ['<', '<=', '>', '>='].includes(leaf.op)) ||
    (leaf.kind === 'between' && onField(leaf.lhs) && !leaf.negated),
  );
}

/** The KV ranges an index hint covers (one per equality value, or one range). */
export function hintRanges(kind: string, hint: IndexHint): KvRange[] {
  const prefix = indexPrefix(kind, hint.field);
  const sep = '\x00';
  if (hint.kind === 'eq') {
    return hint.values.map((v) => ({ gt: `${prefix}${encodeValue(normalise(v))}${sep}`, lt: `${prefix}${encodeValue(normalise(v))}${sep}\xff` }));
  }
  const range: KvRange = { gt: prefix, lt: `${prefix}\xff` };
  if (hint.gte !== undefined) range.gt = `${prefix}${encodeValue(normalise(hint.gte))}${sep}`;
  if (hint.gt !== undefined) range.gt = `${prefix}${encodeValue(normalise(hint.gt))}${sep}\xff`;
  if (hint.lt !== undefined) range.lt = `${prefix}${encodeValue(normalise(hint.lt))}${sep}`;
  if (hint.lte !== undefined) range.lt = `${prefix}${encodeValue(normalise(hint.lte))}${sep}\xff`;
  return [range];
}

/** Literal values compare with stored ones: datetimes are stored as ISO-8601 UTC strings. */
function normalise(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object' && 'datetime' in value) {
    return new Date((value as { datetime: number | string }).datetime).toISOString();
  }
  return value;
}

/** Reads `a.b.c` from a record (tags.location and the like). */
export function readPath(record: Record<string, unknown>, path: string): unknown {
  if (!path.includes('.')) return record[path];
  let value: unknown = record;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
