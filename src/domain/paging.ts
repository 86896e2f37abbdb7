// Paging rules of the list endpoints (BEHAVIOR.md §1.5): how filter clauses and query
// parameters combine into an offset and a limit. Pure.

import { ApiError } from '../errors.js';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 500;
export const MAX_OFFSET = 100_000;

export interface PageRequest {
  offset: number;
  /** 'none' = every match (`limit none` or `limit=-1`). */
  limit: number | 'none';
}

export interface Page<T> extends PageRequest {
  items: T[];
  /** Every match of the filter, not only this page. */
  total: number;
}

/** Parses a `limit` / `offset` query parameter; non-integers are 400 INVALID_PAGINATION. */
export function parsePagingParam(name: 'limit' | 'offset', raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw.trim())) {
    throw new ApiError('INVALID_PAGINATION', { field: name, value: raw, reason: `could not parse ${name}, value is not an integer` });
  }
  return Number(raw);
}

/** Filter clauses win; parameters fill what the filter left unset; then defaults and caps. */
export function resolvePaging(
  filter: { skip?: number; limit?: number | 'none' },
  params: { limit?: number; offset?: number },
): PageRequest {
  const rawLimit = filter.limit ?? params.limit;
  const rawOffset = filter.skip ?? params.offset ?? 0;
  let limit: number | 'none';
  if (rawLimit === 'none' || rawLimit === -1) limit = 'none';
  else if (rawLimit === undefined || rawLimit === 0 || rawLimit < -1) limit = DEFAULT_LIMIT;
  else limit = Math.min(rawLimit, MAX_LIMIT);
  const offset = Math.min(Math.max(0, rawOffset), MAX_OFFSET);
  return { offset, limit };
}

/** The value reported as `meta.pagination.limit` for "no limit", as upstream reports it. */
export const NO_LIMIT_REPORTED = '9223372036854775807';
