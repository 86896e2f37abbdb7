// The parsed form of a ZitiQL query: boolean expression tree, literals, set expressions and
// the query envelope (sort/skip/limit). Produced by the parser, consumed by evaluate/planner.

import type { SortKey } from './types.js';

/**
 * A literal. Numbers keep whether they were written as an integer; datetimes are epoch
 * milliseconds (sub-millisecond fractions are truncated) plus the RFC 3339 text.
 */
export type Literal =
  | { type: 'string'; value: string }
  | { type: 'number'; value: number; int: boolean }
  | { type: 'bool'; value: boolean }
  | { type: 'datetime'; value: number; text: string }
  | { type: 'null' };

/** The comparison operators of a `compare` node. */
export type CompareOp =
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'contains'
  | 'not contains'
  | 'icontains'
  | 'not icontains';

/** A set: a set symbol, or the sub-records of `from <symbol> where <query>` that match. */
export type SetExpr =
  | { kind: 'set'; symbol: string }
  | { kind: 'subquery'; symbol: string; query: Query };

/**
 * The left side of an operation: a scalar symbol; `anyOf(s)` / `allOf(s)`, which apply the
 * operation to each element of set symbol s; or `count(set)`, a number.
 */
export type Operand =
  | { kind: 'symbol'; symbol: string }
  | { kind: 'anyOf'; symbol: string }
  | { kind: 'allOf'; symbol: string }
  | { kind: 'count'; set: SetExpr };

/**
 * A boolean expression. `and`/`or` are n-ary. For `in` and `between`, `negated` negates the
 * whole predicate (upstream wraps `not in` / `not between` in a NOT), so
 * `anyOf(x) not in [..]` means "no element of x is in [..]".
 */
export type Expr =
  | { kind: 'and'; args: Expr[] }
  | { kind: 'or'; args: Expr[] }
  | { kind: 'not'; arg: Expr }
  | { kind: 'const'; value: boolean }
  | { kind: 'boolSymbol'; symbol: string }
  | { kind: 'isEmpty'; set: SetExpr }
  | { kind: 'compare'; lhs: Operand; op: CompareOp; rhs: Literal }
  | { kind: 'in'; lhs: Operand; negated: boolean; values: Literal[] }
  | { kind: 'between'; lhs: Operand; negated: boolean; lower: Literal; upper: Literal };

/**
 * A whole query. filter null means `true`. sort holds at most 5 keys (extras dropped).
 * skip/limit are the raw integers written in the filter; `limit none` gives 'none'.
 */
export interface Query {
  filter: Expr | null;
  sort: SortKey[];
  skip?: number;
  limit?: number | 'none';
}

/** Upstream keeps at most this many sort keys (boltz SortMax). */
export const SORT_MAX = 5;
