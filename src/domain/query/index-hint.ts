// Query-planner hint: the most selective indexed predicate in a filter's top-level AND chain.
// Only a narrowing — the caller still evaluates the whole filter on every candidate.

import type { Expr, Literal } from './ast.js';
import { compareValues } from './compare.js';

/** An index key value taken from a literal: datetimes as Date, the rest as JS primitives. */
export type IndexValue = string | number | boolean | Date;

/**
 * Candidate narrowing for one indexed field. `eq`: the field equals one of `values` (with
 * `set`, some element of the set field does). `range`: bounds compared as compareValues does.
 */
export type IndexHint =
  | { field: string; kind: 'eq'; values: IndexValue[]; set?: boolean }
  | { field: string; kind: 'range'; gt?: IndexValue; gte?: IndexValue; lt?: IndexValue; lte?: IndexValue };

type EqHint = Extract<IndexHint, { kind: 'eq' }>;
type RangeHint = Extract<IndexHint, { kind: 'range' }>;

/**
 * Picks a usable predicate from the top-level conjunction (never inside OR/NOT): equality
 * (fewest values, scalar before set) beats a range; ranges on one field are merged, and a
 * two-sided range beats a one-sided one. Undefined when nothing indexed is usable.
 */
export function extractIndexHint(expr: Expr | null, isIndexed: (field: string) => boolean): IndexHint | undefined {
  if (expr === null) return undefined;
  const eqs: EqHint[] = [];
  const ranges = new Map<string, RangeHint>();
  for (const term of conjuncts(expr)) {
    const eq = eqHint(term);
    if (eq && isIndexed(eq.field)) eqs.push(eq);
    const range = rangeHint(term);
    if (range && isIndexed(range.field)) ranges.set(range.field, merge(ranges.get(range.field), range));
  }
  if (eqs.length > 0) return bestEq(eqs);
  return bestRange([...ranges.values()]);
}

function conjuncts(expr: Expr): Expr[] {
  return expr.kind === 'and' ? expr.args.flatMap(conjuncts) : [expr];
}

function indexValue(lit: Literal): IndexValue | undefined {
  if (lit.type === 'null') return undefined;
  return lit.type === 'datetime' ? new Date(lit.value) : lit.value;
}

function eqHint(term: Expr): EqHint | undefined {
  let values: Literal[];
  if (term.kind === 'compare' && term.op === '=') values = [term.rhs];
  else if (term.kind === 'in' && !term.negated) values = term.values;
  else return undefined;
  if (term.lhs.kind !== 'symbol' && term.lhs.kind !== 'anyOf') return undefined;
  const keys = dedupe(values.map(indexValue));
  if (keys === undefined) return undefined;
  const hint: EqHint = { field: term.lhs.symbol, kind: 'eq', values: keys };
  if (term.lhs.kind === 'anyOf') hint.set = true;
  return hint;
}

function dedupe(values: (IndexValue | undefined)[]): IndexValue[] | undefined {
  const out: IndexValue[] = [];
  for (const v of values) {
    if (v === undefined) return undefined;
    if (!out.some((o) => compareValues(o, v) === 0 && typeof o === typeof v)) out.push(v);
  }
  return out;
}

function rangeHint(term: Expr): RangeHint | undefined {
  if (term.kind === 'between' && !term.negated && term.lhs.kind === 'symbol') {
    return { field: term.lhs.symbol, kind: 'range', gte: indexValue(term.lower), lt: indexValue(term.upper) };
  }
  if (term.kind !== 'compare' || term.lhs.kind !== 'symbol') return undefined;
  const value = indexValue(term.rhs);
  if (value === undefined) return undefined;
  const field = term.lhs.symbol;
  switch (term.op) {
    case '<':
      return { field, kind: 'range', lt: value };
    case '<=':
      return { field, kind: 'range', lte: value };
    case '>':
      return { field, kind: 'range', gt: value };
    case '>=':
      return { field, kind: 'range', gte: value };
    default:
      return undefined;
  }
}

/** Intersects two ranges on one field, keeping the tighter bound on each side. */
function merge(a: RangeHint | undefined, b: RangeHint): RangeHint {
  if (!a) return b;
  const out: RangeHint = { field: a.field, kind: 'range' };
  const lower = tighter(bound(a, 'gt', 'gte'), bound(b, 'gt', 'gte'), 1);
  const upper = tighter(bound(a, 'lt', 'lte'), bound(b, 'lt', 'lte'), -1);
  if (lower) out[lower.exclusive ? 'gt' : 'gte'] = lower.value;
  if (upper) out[upper.exclusive ? 'lt' : 'lte'] = upper.value;
  return out;
}

interface Bound {
  value: IndexValue;
  exclusive: boolean;
}

function bound(r: RangeHint, strict: 'gt' | 'lt', loose: 'gte' | 'lte'): Bound | undefined {
  const strictValue = r[strict];
  if (strictValue !== undefined) return { value: strictValue, exclusive: true };
  const looseValue = r[loose];
  return looseValue === undefined ? undefined : { value: looseValue, exclusive: false };
}

/** The more restrictive bound: larger lower bound (dir 1) or smaller upper bound (dir -1). */
function tighter(a: Bound | undefined, b: Bound | undefined, dir: 1 | -1): Bound | undefined {
  if (!a || !b) return a ?? b;
  const c = compareValues(a.value, b.value) * dir;
  if (c !== 0) return c > 0 ? a : b;
  return a.exclusive ? a : b;
}

function bestEq(eqs: EqHint[]): EqHint {
  const cost = (h: EqHint) => h.values.length * 2 + (h.set ? 1 : 0);
  return eqs.reduce((best, h) => (cost(h) < cost(best) ? h : best));
}

function bestRange(ranges: RangeHint[]): RangeHint | undefined {
  const sides = (r: RangeHint) =>
    Number(r.gt !== undefined || r.gte !== undefined) + Number(r.lt !== undefined || r.lte !== undefined);
  return ranges.reduce<RangeHint | undefined>((best, r) => (!best || sides(r) > sides(best) ? r : best), undefined);
}
