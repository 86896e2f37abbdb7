// Public API of the ZitiQL query language: parsing (filter and sort parameter), evaluation,
// sort ordering and the planner's index hint.

export type { CompareOp, Expr, Literal, Operand, Query, SetExpr } from './ast.js';
export { SORT_MAX } from './ast.js';
export { compareStrings, compareValues, sortComparator } from './compare.js';
export { QueryError } from './errors.js';
export { evaluate, readPath } from './evaluate.js';
export { extractIndexHint, type IndexHint, type IndexValue } from './index-hint.js';
export { MAX_FILTER_LENGTH, parseQuery, parseSortParam } from './parse-query.js';
export { MAX_FILTER_DEPTH } from './parser.js';
export type { SortKey, SymbolInfo, SymbolResolver, ValueGetter, ValueType } from './types.js';
