// Entry points turning text into a validated Query: the `filter` parameter and the `sort`
// parameter (parsed as `true sort by <text>`, as upstream does).

import type { Query } from './ast.js';
import { QueryError } from './errors.js';
import { parseSyntax } from './parser.js';
import type { SortKey, SymbolResolver } from './types.js';
import { validateQuery } from './validate.js';

/** The longest filter (or sort) text accepted, in characters. */
export const MAX_FILTER_LENGTH = 8192;

/** Parses and validates a filter; blank text is the empty query (filter null = true). */
export function parseQuery(text: string, resolve: SymbolResolver): Query {
  if (text.length > MAX_FILTER_LENGTH) {
    throw new QueryError(`filter longer than ${MAX_FILTER_LENGTH} characters (the cap is ${MAX_FILTER_LENGTH})`);
  }
  if (/^[ \t\r\n]*$/.test(text)) return { filter: null, sort: [] };
  const query = parseSyntax(text);
  validateQuery(query, resolve);
  return query;
}

/** Parses a `sort` query parameter such as `name desc, createdAt`; throws QueryError. */
export function parseSortParam(text: string, resolve: SymbolResolver): SortKey[] {
  return parseQuery(`true sort by ${text}`, resolve).sort;
}
