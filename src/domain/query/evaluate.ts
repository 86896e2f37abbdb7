// Evaluates a parsed filter against one record (BEHAVIOR.md §1.3): null rules, half-open
// between, byte-wise strings, int/float promotion, datetimes, anyOf/allOf/count/isEmpty and
// `from X where q` subqueries over plain sub-records.

import type { CompareOp, Expr, Literal, Operand, SetExpr } from './ast.js';
import { compareStrings, sortComparator } from './compare.js';
import { toEpochMs } from './datetime.js';
import type { ValueGetter } from './types.js';

/** True when the record read through `get` matches; a null filter matches everything. */
export function evaluate(expr: Expr | null, get: ValueGetter): boolean {
  if (expr === null) return true;
  switch (expr.kind) {
    case 'and':
      return expr.args.every((e) => evaluate(e, get));
    case 'or':
      return expr.args.some((e) => evaluate(e, get));
    case 'not':
      return !evaluate(expr.arg, get);
    case 'const':
      return expr.value;
    case 'boolSymbol':
      return get(expr.symbol) === true;
    case 'isEmpty':
      return setValues(expr.set, get).length === 0;
    case 'compare':
      return applyOperand(expr.lhs, get, (v) => testScalar(v, expr.op, expr.rhs));
    case 'in': {
      const hit = applyOperand(expr.lhs, get, (v) => !isNull(v) && expr.values.some((lit) => testScalar(v, '=', lit)));
      return expr.negated ? !hit : hit;
    }
    case 'between': {
      const inRange = (v: unknown) => testScalar(v, '>=', expr.lower) && testScalar(v, '<', expr.upper);
      const hit = applyOperand(expr.lhs, get, inRange);
      return expr.negated ? !hit : hit;
    }
  }
}

/** Applies a scalar test to a symbol, to any/all elements of a set, or to a set's count. */
function applyOperand(lhs: Operand, get: ValueGetter, test: (value: unknown) => boolean): boolean {
  switch (lhs.kind) {
    case 'symbol':
      return test(get(lhs.symbol));
    case 'anyOf':
      return toArray(get(lhs.symbol)).some(test);
    case 'allOf':
      return toArray(get(lhs.symbol)).every(test);
    case 'count':
      return test(setValues(lhs.set, get).length);
  }
}

/** The elements of a set expression; for a subquery, the matching sub-records, paged. */
export function setValues(set: SetExpr, get: ValueGetter): unknown[] {
  const values = toArray(get(set.symbol));
  if (set.kind === 'set') return values;
  const { filter, sort, skip, limit } = set.query;
  const rows = values.filter(isRecord).filter((row) => evaluate(filter, (path) => readPath(row, path)));
  if (sort.length > 0) rows.sort(sortComparator(sort, readPath));
  const start = skip !== undefined && skip > 0 ? skip : 0;
  const end = typeof limit === 'number' && limit >= 0 ? start + limit : undefined;
  return rows.slice(start, end);
}

function toArray(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value;
  if (value instanceof Set) return [...value];
  return [value];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads `a.b.c` from a plain object (a property literally named `a.b` wins). */
export function readPath(record: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(record, path)) return record[path];
  let value: unknown = record;
  for (const part of path.split('.')) {
    if (!isRecord(value)) return undefined;
    value = value[part];
  }
  return value;
}

function isNull(value: unknown): boolean {
  return value === null || value === undefined;
}

/**
 * One scalar comparison. A missing value only satisfies `= null`, `!=` (exactly one side
 * null) and `not contains` / `not icontains`; a value of the wrong kind never matches.
 */
function testScalar(value: unknown, op: CompareOp, lit: Literal): boolean {
  if (lit.type === 'null') return op === '=' ? isNull(value) : !isNull(value);
  if (isNull(value)) return op === '!=' || op === 'not contains' || op === 'not icontains';
  if (op.endsWith('contains')) return testContains(value, op, lit);
  const c = compareTo(value, lit);
  return c !== undefined && holds(c, op);
}

/** value <=> literal, or undefined when they are not comparable. */
function compareTo(value: unknown, lit: Literal): number | undefined {
  switch (lit.type) {
    case 'string':
      return typeof value === 'string' ? compareStrings(value, lit.value) : undefined;
    case 'number':
      return typeof value === 'number' && !Number.isNaN(value) ? Math.sign(value - lit.value) : undefined;
    case 'bool':
      return typeof value === 'boolean' ? Number(value) - Number(lit.value) : undefined;
    case 'datetime': {
      const ms = toEpochMs(value);
      return ms === null ? undefined : Math.sign(ms - lit.value);
    }
    default:
      return undefined;
  }
}

function holds(c: number, op: CompareOp): boolean {
  switch (op) {
    case '=':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
    default:
      return false;
  }
}

/** Substring tests; numbers take part through their decimal string form. */
function testContains(value: unknown, op: CompareOp, lit: Literal): boolean {
  const hay = stringForm(value);
  const needle = lit.type === 'string' || lit.type === 'number' ? stringForm(lit.value) : undefined;
  if (hay === undefined || needle === undefined) return false;
  const found = op.includes('icontains') ? hay.toUpperCase().includes(needle.toUpperCase()) : hay.includes(needle);
  return op.startsWith('not ') ? !found : found;
}

function stringForm(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return value.toFixed(0);
  return String(value);
}
