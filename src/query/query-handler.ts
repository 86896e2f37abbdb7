// The node-local query handler: answers reads (get, list, sessions, role attributes, counts)
// from this node's replica, so reads never cross the network. It never writes.

import { JsonText } from '../bus/bus.js';
import { sessionBookkeepingOnly, type Command, type Entity } from '../domain/commands.js';
import { NO_LIMIT_REPORTED, parsePagingParam, resolvePaging } from '../domain/paging.js';
import { evaluate, parseQuery, parseSortParam, QueryError, type Query } from '../domain/query/index.js';
import { resolveSymbol } from '../domain/query-symbols.js';
import { RESOURCES, isKind, declarationOf, type Kind } from '../domain/registry.js';
import { filterableFields } from '../domain/resource.js';
import { ApiError, invalidFilter } from '../errors.js';
import { QueryEngine } from '../store/query-engine.js';
import { TimeSlicer } from '../store/time-slicer.js';
import type { AppliedEvent, Replica } from '../store/replica.js';
import type { NodeDirectory } from '../protocol/v1/node-announcements.js';
import { listControllers } from './controllers.js';
import { clientQueries, type DecorateItem, type ListOptions } from './client-queries.js';
import type { PresenceView } from './present-routers.js';
import { AccessQueries } from './access-queries.js';
import { answerConfigQuery } from './config-queries.js';
import { credentialQueries } from './credential-queries.js';
import { enrollmentQueries } from './enrollment-queries.js';
import { ListCursors } from './list-cursors.js';
import type { Presenter, Viewer, Wire } from './present.js';
import { createPresenter } from './presentations.js';
import { ParsedQueries } from './parsed-queries.js';
import { RenderCache } from './render-cache.js';
import { mfaQueries } from './mfa-queries.js';
import { SessionQueries, type SessionActivity } from './session-queries.js';
import { postureCheckTypes } from './posture-check-types.js';
import { dispatch, readMessage, type HandlerTable } from '../protocol/v1/handler-table.js';
import { QUERY_PROTOCOL, type ListParams, type QueryRequest, type SessionInfo } from '../protocol/v1/query-messages.js';

export type { ListParams, SessionInfo };

export class QueryHandler {
  private readonly engine: QueryEngine;
  private readonly presenter: Presenter;
  private readonly access: AccessQueries;
  /** Entities presented recently, as JSON text (see RenderCache). */
  private readonly rendered: RenderCache;
  private readonly sessionQueries: SessionQueries;
  /** When this node last applied a write other than session bookkeeping (or started): the
   * client API's `service-updates`, which SDKs poll to know when to re-read their services. */
  private lastChangeAt = new Date().toISOString();
  /** Unpaged lists answered chunk by chunk (`stream` lists, then `listNext`). */
  private readonly cursors = new ListCursors();
  /** List queries parsed before, by their text. */
  private readonly parsed = new ParsedQueries();
  /** `meta.filterableFields` of each kind, derived once from its declaration. */
  private readonly filterable = new Map<string, string[]>();
  /** One handler per op of the query family. */
  private readonly table: HandlerTable<QueryRequest>;
  /** Node-local features answering queries under their own prefix (`ops.` → OpsHandler). */
  private readonly delegates = new Map<string, (msg: Record<string, unknown>) => Promise<unknown>>();

  constructor(
    private readonly replica: Replica,
    sessions: SessionActivity,
    /** The running nodes (for `controllers`); absent in tests that need no registry. */
    private readonly nodes?: NodeDirectory,
    /** Routers with a live stream to this node (edge router `isOnline`, identity connections). */
    presence?: PresenceView,
  ) {
    this.engine = new QueryEngine(replica);
    this.rendered = new RenderCache(() => presence?.version ?? 0);
    replica.events.on('applied', (event: AppliedEvent) => this.forgetChanged(event.command));
    this.access = new AccessQueries(replica);
    // Each kind's computed fields, as its declaration names them (`present`).
    this.presenter = createPresenter(replica, { reader: this.access.reader, presence });
    this.sessionQueries = new SessionQueries(replica, sessions, this.presenter);
    this.table = this.handlers();
  }

  /** Drops the renderings a command may have changed: for a login, its identity's (whose
   * `hasApiSession` it changes; the new session was never rendered); for an activity flush, the
   * sessions' own; for anything else, all. */
  private forgetChanged(command: Command): void {
    const sessions = sessionBookkeepingOnly(command);
    if (!sessions) {
      this.lastChangeAt = new Date().toISOString();
      return this.rendered.clear();
    }
    for (const session of sessions.created) this.rendered.forget('identities', session.identityId);
    for (const id of sessions.touched) this.rendered.forget('api-sessions', id);
  }

  /** Routes every query whose op is `<prefix>.<name>` to handler (node-local features). */
  delegate(prefix: string, handler: (msg: Record<string, unknown>) => Promise<unknown>): void {
    this.delegates.set(prefix, handler);
  }

  /** Answers one message of the query family (or a delegated feature's); a malformed message
   * is 400 INVALID_MESSAGE, an unknown op 501 UNKNOWN_OPERATION. */
  handle(msg: unknown): Promise<unknown> {
    const op = (msg as { op?: unknown } | null | undefined)?.op;
    const dot = typeof op === 'string' ? op.indexOf('.') : -1;
    const delegated = dot > 0 ? this.delegates.get((op as string).slice(0, dot)) : undefined;
    if (delegated) return delegated(msg as Record<string, unknown>);
    try {
      return Promise.resolve(dispatch(this.table, readMessage(QUERY_PROTOCOL, msg), undefined));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** One handler per query op (a missing one does not compile). */
  private handlers(): HandlerTable<QueryRequest> {
    return {
      get: (m) => {
        // Serialised here once: the gateway writes the text into the response as it is. A kept
        // rendering is answered without another async step.
        const viewer = viewerOf(m);
        const kept = this.rendered.fresh(m.kind, m.id, viewerKey(viewer));
        return kept !== undefined ? new JsonText(kept) : this.getJson(m.kind, m.id, viewer).then((json) => new JsonText(json));
      },
      list: (m) => this.list(m.kind, m.params ?? {}, viewerOf(m), { stream: m.stream === true, asText: true }),
      related: (m) => this.related(m.parent, m.kind, m.params ?? {}, viewerOf(m), m.stream === true),
      listNext: (m) => this.cursors.next(m.cursor),
      listClose: (m) => {
        this.cursors.close(m.cursor);
        return {};
      },
      ...clientQueries({
        replica: this.replica,
        list: (kind, params, viewer, options) => this.list(kind, params, viewer, options),
        get: (kind, id, viewer) => this.get(kind, id, viewer),
      }),
      configQuery: (m) =>
        answerConfigQuery(m, {
          replica: this.replica,
          list: (kind, params, scope) => this.list(kind, params, viewerOf(m), { scope, stream: m.stream === true }),
          stream: m.stream === true,
          openCursor: (source) => this.cursors.open(source, async (items) => items, 0),
        }),
      policyAdvice: (m) => this.access.policyAdvice(m.identityId, m.serviceId),
      ...this.sessionQueries.handlers(),
      ...mfaQueries(this.replica),
      ...credentialQueries(this.replica),
      ...enrollmentQueries(this.replica),
      roleAttributes: (m) => this.roleAttributes(m.kind, m.params?.filter ?? '', m.stream === true),
      controllers: () => listControllers(this.nodes),
      postureCheckTypes: (m) => postureCheckTypes(m),
      summary: () => this.summary(),
      status: () => ({ appliedSeq: this.replica.appliedSeq }),
      serviceUpdates: () => ({ lastChangeAt: this.lastChangeAt }),
    };
  }

  /** An entity as the wire shows it to this viewer, as JSON text (kept in the render cache). */
  private async getJson(kind: string, id: string, viewer: Viewer): Promise<string> {
    const since = this.rendered.version;
    return this.renderJson(await this.stored(kind, id), viewer, since);
  }

  /** A record as JSON text, as `GET /<kind>/{id}` shows it to this viewer: a kept rendering, or
   * one made now and kept unless a commit came after `since` (when the record was read). */
  private renderJson({ kind, record }: { kind: Kind; record: Entity }, viewer: Viewer, since: number, now = Date.now()): Promise<string> {
    return this.rendered.render(kind, record.id, viewerKey(viewer), async () => {
      const wire = await this.presenter.present(kind, record, viewer);
      return { json: JSON.stringify(wire), record };
    }, now, since);
  }

  private async get(kind: string, id: string, viewer: Viewer): Promise<unknown> {
    const stored = await this.stored(kind, id);
    return this.presenter.present(stored.kind, stored.record, viewer);
  }

  /** One stored entity; 404 when there is none. */
  private async stored(kind: string, id: string): Promise<{ kind: Kind; record: Entity }> {
    if (!isKind(kind)) throw new ApiError('NOT_FOUND');
    const record = await this.replica.get(kind, id);
    if (!record) throw new ApiError('NOT_FOUND');
    return { kind, record };
  }

  /** A list page (see ListOptions); with `stream`, an unpaged list answers `{cursor, meta}`
   * instead (no data and no totalCount yet) and its items come from `listNext`. */
  private async list(kind: string, params: ListParams, viewer: Viewer, options: ListOptions = {}): Promise<unknown> {
    const { stream = false, decorate, asText = false } = options;
    let scope = options.scope;
    if (!scope && params.roleFilter && params.roleFilter.length > 0) {
      scope = await this.access.roleFilterScope(kind, params.roleFilter, params.roleSemantic);
    }
    const query = this.parsed.get(kind, params.filter ?? '', params.sort ?? '', () => parseListQuery(kind, params));
    const page = resolvePaging(query, {
      limit: parsePagingParam('limit', params.limit),
      offset: parsePagingParam('offset', params.offset),
    });
    const limit = page.limit === 'none' ? NO_LIMIT_REPORTED : page.limit;
    const filterable = this.filterableOf(kind);
    if (stream && page.limit === 'none') {
      const present = (records: Entity[]) => this.presentAll(kind, records, viewer, decorate, false);
      const cursor = this.cursors.open(this.engine.stream(kind, query, scope), present, page.offset);
      return { cursor, meta: { filterableFields: filterable, pagination: { limit, offset: page.offset } } };
    }
    const since = this.rendered.version;
    const result = await this.engine.list(kind, query, page, scope);
    const meta = { filterableFields: filterable, pagination: { limit, offset: result.offset, totalCount: result.total } };
    if (asText && !decorate && isKind(kind)) {
      const now = Date.now();
      const items = await Promise.all(result.items.map((record) => this.renderJson({ kind, record }, viewer, since, now)));
      return new JsonText(`{"data":[${items.join(',')}],"meta":${JSON.stringify(meta)}}`);
    }
    return { data: await this.presentAll(kind, result.items, viewer, decorate), meta };
  }

  private async presentAll(kind: string, records: Entity[], viewer: Viewer, decorate?: DecorateItem, keepReads = true): Promise<unknown[]> {
    const wires = await this.presenter.presentAll(kind, records, viewer, keepReads);
    return decorate ? Promise.all(wires.map((wire) => decorate(wire as Wire))) : wires;
  }

  /** `/<parent>/{id}/<child>` as RELATIONS derives it; 404 when the parent is missing. */
  private async related(parent: { kind: string; id: string }, kind: string, params: ListParams, viewer: Viewer, stream = false): Promise<unknown> {
    const scope = await this.access.relationScope(parent, kind, params.policyType);
    return this.list(kind, params, viewer, { scope, stream, asText: true });
  }

  private filterableOf(kind: string): string[] {
    let fields = this.filterable.get(kind);
    if (!fields) this.filterable.set(kind, (fields = filterableFields(declarationOf(kind))));
    return fields;
  }

  /** Closes the open list cursors (node shutdown). */
  close(): void {
    this.cursors.closeAll();
  }

  /** Distinct role attributes of a kind; the filter's symbol `id` is the attribute itself. As
   * upstream, only the filter pages (no default limit): with `stream` and no `limit` in the
   * filter, the answer is a cursor over the index (the same bytes, never built whole); a page
   * (`limit` in the filter) reads no further than its end, yielding every slice. */
  private async roleAttributes(kind: string, filter: string, stream: boolean): Promise<unknown> {
    let query: Query;
    try {
      query = parseQuery(filter, (name) => (name === 'id' ? { type: 'string', sortable: true } : undefined));
    } catch (err) {
      throw err instanceof QueryError ? invalidFilter(err.message) : err;
    }
    const reverse = query.sort[0]?.direction === 'desc';
    const matches = (v: string) => evaluate(query.filter, (symbol) => (symbol === 'id' ? v : undefined));
    const offset = query.skip ?? 0;
    const limit = query.limit === 'none' ? undefined : query.limit;
    const meta = { pagination: { limit: NO_LIMIT_REPORTED, offset }, filterableFields: ['id'] };
    const values = this.replica.eachDistinctValue(kind, 'roleAttributes', reverse);
    // The matches from `offset` on, at most `limit`; one turn of the event loop every slice.
    const source = (async function* () {
      const slicer = new TimeSlicer();
      let skipped = 0;
      let given = 0;
      for await (const value of values) {
        if (slicer.due()) await slicer.pause();
        if (!matches(value)) continue;
        if (skipped < offset) skipped++;
        else if (limit !== undefined && given >= limit) return;
        else {
          given++;
          yield value;
        }
      }
    })();
    if (stream && limit === undefined) {
      const cursor = this.cursors.open(source, async (items) => items, 0);
      return { cursor, meta };
    }
    const matched: string[] = [];
    for await (const value of source) matched.push(value);
    return { data: matched, meta: { ...meta, pagination: { ...meta.pagination, totalCount: matched.length } } };
  }

  private summary(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const decl of RESOURCES) {
      if (decl.ops.list) counts[decl.kind] = this.replica.count(decl.kind);
    }
    return counts;
  }
}

/** What the render cache tells one viewer's renderings of an entity apart by. */
function viewerKey(viewer: Viewer): string {
  return `${viewer.identityId ?? ''}\u0000${viewer.configTypes?.join(',') ?? ''}`;
}

/** The message's viewer (already a fresh object its reader built), or nobody in particular. */
function viewerOf(msg: { viewer?: Viewer }): Viewer {
  return msg.viewer ?? {};
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
