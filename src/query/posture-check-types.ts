// Reads of the fixed posture check types (/posture-check-types): list with filter, sort and
// paging over the in-memory catalogue, and detail by id. Answers upstream's
// postureCheckTypeDetail shape.

import { NO_LIMIT_REPORTED, parsePagingParam, resolvePaging } from '../domain/paging.js';
import { POSTURE_CHECK_TYPE_CATALOGUE, type PostureCheckTypeInfo } from '../domain/posture/index.js';
import { evaluate, parseQuery, parseSortParam, QueryError, readPath, sortComparator, type Query, type SymbolInfo } from '../domain/query/index.js';
import { ApiError, invalidFilter } from '../errors.js';
import type { MessageOf } from '../protocol/v1/handler-table.js';
import type { ListParams, QueryRequest } from '../protocol/v1/query-messages.js';
import { selfLink, type Wire } from './present.js';

const KIND = 'posture-check-types';
/** The types are seeded data; they carry a fixed timestamp. */
const SEEDED_AT = new Date(0).toISOString();

const SYMBOLS: Record<string, SymbolInfo> = {
  id: { type: 'string', sortable: true },
  name: { type: 'string', sortable: true },
  createdAt: { type: 'datetime', sortable: true },
  updatedAt: { type: 'datetime', sortable: true },
};

/** `{op:'postureCheckTypes', id}` answers one type (404 if unknown); without id, a list page. */
export function postureCheckTypes(msg: MessageOf<QueryRequest, 'postureCheckTypes'>): unknown {
  if (msg.id !== undefined) {
    const info = POSTURE_CHECK_TYPE_CATALOGUE.find((t) => t.id === msg.id);
    if (!info) throw new ApiError('NOT_FOUND');
    return present(info);
  }
  return list(msg.params ?? {});
}

function list(params: ListParams): unknown {
  const query = parse(params);
  const page = resolvePaging(query, {
    limit: parsePagingParam('limit', params.limit),
    offset: parsePagingParam('offset', params.offset),
  });
  const matched = POSTURE_CHECK_TYPE_CATALOGUE.map(present)
    .filter((wire) => evaluate(query.filter, (symbol) => readPath(wire, symbol)))
    .sort(sortComparator(query.sort, (wire, field) => readPath(wire, field)));
  const end = page.limit === 'none' ? undefined : page.offset + page.limit;
  return {
    data: matched.slice(page.offset, end),
    meta: {
      filterableFields: Object.keys(SYMBOLS).sort(),
      pagination: { limit: page.limit === 'none' ? NO_LIMIT_REPORTED : page.limit, offset: page.offset, totalCount: matched.length },
    },
  };
}

function parse(params: ListParams): Query {
  const resolve = (name: string): SymbolInfo | undefined => SYMBOLS[name];
  let query: Query;
  try {
    query = parseQuery(params.filter ?? '', resolve);
  } catch (err) {
    throw err instanceof QueryError ? invalidFilter(err.message) : err;
  }
  if (query.sort.length > 0 || !params.sort) return query;
  try {
    return { ...query, sort: parseSortParam(params.sort, resolve) };
  } catch (err) {
    throw err instanceof QueryError ? new ApiError('INVALID_SORT_IDENTIFIER', { code: 'UNHANDLED', message: err.message }) : err;
  }
}

/** Upstream never sets `version` on a type; the spec has a string, so it is empty. */
function present(info: PostureCheckTypeInfo): Wire {
  return {
    id: info.id,
    name: info.name,
    operatingSystems: structuredClone(info.operatingSystems),
    version: '',
    createdAt: SEEDED_AT,
    updatedAt: SEEDED_AT,
    tags: {},
    _links: selfLink(KIND, info.id),
  };
}
