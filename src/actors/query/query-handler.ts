// The node-local query handler: answers reads (get, list, sessions, role attributes, counts)
// from this node's replica, so reads never cross the network. It never writes.

import type { Entity } from '../../domain/commands.js';
import { NO_LIMIT_REPORTED, parsePagingParam, resolvePaging } from '../../domain/paging.js';
import { evaluate, parseQuery, parseSortParam, QueryError, type Query } from '../../domain/query/index.js';
import { resolveSymbol } from '../../domain/query-symbols.js';
import { RESOURCES, hasResource, resourceOf } from '../../domain/registry.js';
import { filterableFields } from '../../domain/resource.js';
import { isDisabled } from '../../domain/identity-state.js';
import { ApiError, invalidFilter } from '../../errors.js';
import { QueryEngine, type Scope } from '../../store/query-engine.js';
import type { Replica } from '../../store/replica.js';
import { hashToken } from '../identity-actor.js';
import type { SessionKeeper } from '../session-keeper.js';
import { Presenter } from './present.js';

/** The query parameters of a list request, as the gateway received them. */
export interface ListParams {
  filter?: string;
  sort?: string;
  limit?: string;
  offset?: string;
}

/** What the gateway learns about the caller from a session token. */
export interface SessionInfo {
  apiSessionId: string;
  identityId: string;
  identityName: string;
  isAdmin: boolean;
  expiresAt: string;
  expirationSeconds: number;
}

export class QueryHandler {
  private readonly engine: QueryEngine;
  private readonly presenter: Presenter;

  constructor(
    private readonly replica: Replica,
    private readonly sessions: SessionKeeper,
  ) {
    this.engine = new QueryEngine(replica);
    this.presenter = new Presenter(replica);
  }

  async handle(msg: Record<string, unknown>): Promise<unknown> {
    switch (msg.op) {
      case 'get':
        return this.get(String(msg.kind), String(msg.id));
      case 'list':
        return this.list(String(msg.kind), (msg.params ?? {}) as ListParams, msg.scope as Scope | undefined);
      case 'related':
        return this.related(msg.parent as { kind: string; id: string }, String(msg.kind), String(msg.field), (msg.params ?? {}) as ListParams);
      case 'resolveSession':
        return this.resolveSession(String(msg.token ?? ''));
      case 'currentSession':
        return this.currentSession(String(msg.token ?? ''));
      case 'findUpdb':
        return this.findUpdb(String(msg.username ?? ''));
      case 'roleAttributes':
        return this.roleAttributes(String(msg.kind), String((msg.params as ListParams | undefined)?.filter ?? ''));
      case 'summary':
        return this.summary();
      case 'status':
        return { appliedSeq: this.replica.appliedSeq };
      default:
        throw new ApiError('UNHANDLED', { code: 'UNHANDLED', message: `unknown query ${String(msg.op)}` });
    }
  }

  private async get(kind: string, id: string): Promise<unknown> {
    if (!hasResource(kind)) throw new ApiError('NOT_FOUND');
    const record = await this.replica.get(kind, id);
    if (!record) throw new ApiError('NOT_FOUND');
    return this.presenter.present(kind, record);
  }

  private async list(kind: string, params: ListParams, scope?: Scope): Promise<unknown> {
    const query = parseListQuery(kind, params);
    const page = resolvePaging(query, {
      limit: parsePagingParam('limit', params.limit),
      offset: parsePagingParam('offset', params.offset),
    });
    const result = await this.engine.list(kind, query, page, scope);
    return {
      data: await this.presenter.presentAll(kind, result.items),
      meta: {
        filterableFields: filterableFields(resourceOf(kind)),
        pagination: {
          limit: result.limit === 'none' ? NO_LIMIT_REPORTED : result.limit,
          offset: result.offset,
          totalCount: result.total,
        },
      },
    };
  }

  /** A list scoped to one parent (e.g. an identity's authenticators); 404 when it is missing. */
  private async related(parent: { kind: string; id: string }, kind: string, field: string, params: ListParams): Promise<unknown> {
    if (!(await this.replica.get(parent.kind, parent.id))) throw new ApiError('NOT_FOUND');
    return this.list(kind, params, { field, value: parent.id });
  }

  private async sessionOf(token: string): Promise<{ session: Entity; identity: Entity }> {
    const session = token ? await this.replica.findUnique('api-sessions', 'tokenHash', hashToken(token)) : undefined;
    if (!session || this.sessions.isExpired(session)) throw new ApiError('UNAUTHORIZED');
    const identity = await this.replica.get('identities', String(session.identityId));
    if (!identity || isDisabled(identity)) throw new ApiError('UNAUTHORIZED');
    return { session, identity };
  }

  /** Validates a token, marks the session active (sliding expiry) and says who the caller is. */
  private async resolveSession(token: string): Promise<SessionInfo> {
    const { session, identity } = await this.sessionOf(token);
    this.sessions.touch(session.id);
    const expiresAt = this.sessions.expiresAt(session);
    return {
      apiSessionId: session.id,
      identityId: identity.id,
      identityName: String(identity.name),
      isAdmin: identity.isAdmin === true || identity.isDefaultAdmin === true,
      expiresAt: new Date(expiresAt).toISOString(),
      expirationSeconds: Math.round(this.sessions.timeoutMs / 1000),
    };
  }

  /** The current-API-session detail (token included: the caller presented it). */
  private async currentSession(token: string): Promise<unknown> {
    const { session } = await this.sessionOf(token);
    const wire = await this.presenter.present('api-sessions', session);
    const last = new Date(this.sessions.lastActivity(session)).toISOString();
    return {
      ...wire,
      token,
      lastActivityAt: last,
      expiresAt: new Date(this.sessions.expiresAt(session)).toISOString(),
      expirationSeconds: Math.round(this.sessions.timeoutMs / 1000),
    };
  }

  private async findUpdb(username: string): Promise<{ identityId: string; authenticatorId: string } | null> {
    const auth = await this.replica.findUnique('authenticators', 'username', username);
    if (!auth || auth.method !== 'updb') return null;
    return { identityId: String(auth.identityId), authenticatorId: auth.id };
  }

  /** Distinct role attributes of a kind; the filter's symbol `id` is the attribute itself. */
  private async roleAttributes(kind: string, filter: string): Promise<unknown> {
    let query: Query;
    try {
      query = parseQuery(filter, (name) => (name === 'id' ? { type: 'string', sortable: true } : undefined));
    } catch (err) {
      throw err instanceof QueryError ? invalidFilter(err.message) : err;
    }
    const values = await this.replica.distinctValues(kind, 'roleAttributes');
    let matched = values.filter((v) => evaluate(query.filter, (symbol) => (symbol === 'id' ? v : undefined)));
    if (query.sort[0]?.direction === 'desc') matched.reverse();
    const offset = query.skip ?? 0;
    matched = matched.slice(offset, query.limit === undefined || query.limit === 'none' ? undefined : offset + query.limit);
    return {
      data: matched,
      meta: { pagination: { limit: NO_LIMIT_REPORTED, offset, totalCount: matched.length }, filterableFields: ['id'] },
    };
  }

  private summary(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const decl of RESOURCES) {
      if (decl.ops.list) counts[decl.kind] = this.replica.count(decl.kind);
    }
    return counts;
  }
}

/** Parses filter + sort parameters against the kind's public symbols; 400s on bad input. */
export function parseListQuery(kind: string, params: ListParams): Query {
  const resolve = (name: string) => resolveSymbol(kind, name);
  let query: Query;
  try {
    query = parseQuery(params.filter ?? '', resolve);
  } catch (err) {
    throw err instanceof QueryError ? invalidFilter(err.message) : err;
  }
  if (query.sort.length === 0 && params.sort) {
    try {
      query = { ...query, sort: parseSortParam(params.sort, resolve) };
    } catch (err) {
      throw err instanceof QueryError ? new ApiError('INVALID_SORT_IDENTIFIER', { code: 'UNHANDLED', message: err.message }) : err;
    }
  }
  return query;
}
