// The `/fabric/v1` subset admin consoles read: routers (transit and edge, as upstream's fabric
// sees every router), services and terminators from the same store as the edge API, and links
// and circuits, which are always empty: Weft has no data plane. Admin only, as upstream.

import type { Context } from 'koa';
import { newId } from '../../domain/ids.js';
import { NO_LIMIT_REPORTED, parsePagingParam, resolvePaging, type PageRequest } from '../../domain/paging.js';
import { MAX_FILTER_LENGTH, parseSortParam, readPath, sortComparator, type SortKey } from '../../domain/query/index.js';
import { parseSyntax } from '../../domain/query/parser.js';
import { resourceOf } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { dataStreamTail, sendCreated, sendData, sendDataJson, sendEmpty } from '../envelope.js';
import { mergeInOrder, openLists, pageItems, sendItemStream } from '../item-stream.js';
import { jsonBody } from '../middleware/body.js';
import { readPages, sendList } from '../list-answer.js';
import type { NodeClient } from '../node-client.js';
import type { KindName } from '../../protocol/v1/kind-names.js';
import type { ListParams } from '../../protocol/v1/query-messages.js';
import { listParams, viewer } from './resource-routes.js';
import type { HandRoute, RouteContext, RouteDeps } from './route-table.js';

export const FABRIC_PATH = '/fabric/v1';

type Wire = Record<string, unknown>;

const list = (kind: KindName) => (ctx: RouteContext, { node }: RouteDeps) =>
  sendList(ctx, node, { op: 'list', kind, params: listParams(ctx), viewer: viewer(ctx) });
const get = (kind: KindName) => async (ctx: RouteContext, { node }: RouteDeps) => {
  sendDataJson(ctx, await node.queryJson({ op: 'get', kind, id: ctx.params.id, viewer: viewer(ctx) }));
};
const empty = (ctx: RouteContext) => {
  const { limit, offset } = pageOf(listParams(ctx));
  sendData(ctx, [], { pagination: { limit: reportedLimit(limit), offset, totalCount: 0 }, filterableFields: [] });
};
const terminators = resourceOf('terminators');
const LIST_QUERY = ['filter', 'limit', 'offset'] as const;

/** Upstream fabric's operations (admin only, as upstream). */
export const FABRIC_ROUTES: readonly HandRoute[] = [
  {
    method: 'get', path: '/routers', access: 'admin', operationId: 'listRouters', summary: 'List routers', query: LIST_QUERY,
    handler: (ctx, { node }) => sendRouters(ctx, node),
  },
  {
    method: 'get', path: '/routers/:id', access: 'admin', operationId: 'detailRouter', summary: 'Retrieves a single router',
    handler: async (ctx, { node }) => {
      for (const kind of ['routers', 'edge-routers'] as const) {
        try {
          sendData(ctx, fabricRouter(await node.query({ op: 'get', kind, id: ctx.params.id, viewer: viewer(ctx) })));
          return;
        } catch (err) {
          if (!(err instanceof ApiError) || err.code !== 'NOT_FOUND') throw err;
        }
      }
      throw new ApiError('NOT_FOUND');
    },
  },
  { method: 'get', path: '/services', access: 'admin', operationId: 'listServices', summary: 'List services', query: LIST_QUERY, handler: list('services') },
  { method: 'get', path: '/services/:id', access: 'admin', operationId: 'detailService', summary: 'Retrieves a single service', handler: get('services') },
  {
    method: 'get', path: '/services/:id/terminators', access: 'admin', operationId: 'listServiceTerminators', summary: 'List of terminators assigned to a service',
    query: LIST_QUERY,
    handler: (ctx, { node }) =>
      sendList(ctx, node, { op: 'related', parent: { kind: 'services', id: ctx.params.id }, kind: 'terminators', params: listParams(ctx), viewer: viewer(ctx) }),
  },
  { method: 'get', path: '/terminators', access: 'admin', operationId: 'listTerminators', summary: 'List terminators', query: LIST_QUERY, handler: list('terminators') },
  { method: 'get', path: '/terminators/:id', access: 'admin', operationId: 'detailTerminator', summary: 'Retrieves a single terminator', handler: get('terminators') },
  {
    method: 'post', path: '/terminators', access: 'admin', operationId: 'createTerminator', summary: 'Create a terminator resource',
    body: { type: 'object', additionalProperties: true, description: 'A terminator, with the fields of the management API\'s terminator create' }, ok: { status: 201, description: 'The terminator has been created' },
    handler: async (ctx, { node }) => {
      const created = await node.command<{ id: string }>(terminators, 'create', newId(), { body: jsonBody(ctx) });
      sendCreated(ctx, 'terminators', created.id);
    },
  },
  {
    method: 'delete', path: '/terminators/:id', access: 'admin', operationId: 'deleteTerminator', summary: 'Delete a terminator',
    handler: async (ctx, { node }) => {
      await node.command(terminators, 'delete', ctx.params.id, {});
      sendEmpty(ctx);
    },
  },
  { method: 'get', path: '/links', access: 'admin', operationId: 'listLinks', summary: 'List links (always empty: Weft has no data plane)', query: LIST_QUERY, handler: empty },
  { method: 'get', path: '/circuits', access: 'admin', operationId: 'listCircuits', summary: 'List circuits (always empty: Weft has no data plane)', query: LIST_QUERY, handler: empty },
];

/** A router as upstream's fabric API shows it (`connected` rather than `isOnline`). */
function fabricRouter(wire: Wire): Wire {
  const { id, name, createdAt, updatedAt, tags, _links, cost, noTraversal, disabled, ctrlChanListeners, isOnline } = wire;
  return {
    id, name, createdAt, updatedAt, tags, _links,
    fingerprint: wire.fingerprint ?? '',
    connected: isOnline === true,
    cost: cost ?? 0,
    noTraversal: noTraversal === true,
    disabled: disabled === true,
    ctrlChanListeners: ctrlChanListeners ?? {},
    listenerAddresses: [],
    interfaces: [],
  };
}

/**
 * Transit and edge routers as one list: each kind is read in its own order up to the end of the
 * requested page (in pages of MAX_LIMIT), the two are merged in that order and the page cut. An
 * unpaged list (`limit=-1`) merges the two kinds' cursors as they stream.
 */
async function sendRouters(ctx: Context, node: NodeClient): Promise<void> {
  const requested = listParams(ctx);
  const { limit, offset } = pageOf(requested);
  // Without a sort, both kinds are read by name so that their merge is by name too.
  const sort = requested.sort ?? 'name';
  const order = sortComparator(mergeOrder(requested.filter, sort), (wire: Wire, field) => readPath(wire, field));
  if (limit === 'none') return streamRouters(ctx, node, { ...requested, sort, offset: undefined }, offset, order);
  const end = offset + limit;
  const kinds = await Promise.all(ROUTER_KINDS.map((kind) => readPages(node, { op: 'list', kind, params: { ...requested, sort }, viewer: viewer(ctx) }, end)));
  const merged = kinds.flatMap((k) => k.items).sort(order);
  const totalCount = kinds.reduce((sum, k) => sum + k.total, 0);
  const page = merged.slice(offset, end).map(fabricRouter);
  sendData(ctx, page, { pagination: { limit, offset, totalCount }, filterableFields: kinds[0].filterableFields });
}

const ROUTER_KINDS = ['routers', 'edge-routers'] as const;

const ANY_FIELD = () => ({ type: 'string' as const, sortable: true });

/** The order each kind's list comes in, so the merge's: a sort in the filter wins over the sort
 * parameter, as on every list. A filter that does not parse is left to the kinds' lists (400). */
function mergeOrder(filter: string | undefined, sort: string): SortKey[] {
  try {
    const inFilter = filter === undefined || filter.length > MAX_FILTER_LENGTH ? [] : parseSyntax(filter).sort;
    if (inFilter.length > 0) return inFilter;
  } catch {
    // The kinds' own lists answer the 400.
  }
  return parseSortParam(sort, ANY_FIELD);
}

/** Both kinds' unpaged lists (from offset 0: the offset applies to the merge), merged as they
 * are read, the first `offset` skipped: the bytes of the list built whole. */
async function streamRouters(ctx: Context, node: NodeClient, params: ListParams, offset: number, order: (a: Wire, b: Wire) => number): Promise<void> {
  const kinds = await openLists(node, ROUTER_KINDS.map((kind) => ({ op: 'list' as const, kind, params, viewer: viewer(ctx) })));
  const shown = { n: 0 };
  const items = pageItems(mergeInOrder(kinds.map((k) => k.batches), order), offset, fabricRouter, shown);
  sendItemStream(ctx, items, () => {
    const totalCount = kinds.reduce((sum, k) => sum + k.total(), 0);
    return dataStreamTail({ pagination: { limit: NO_LIMIT_REPORTED, offset, totalCount }, filterableFields: kinds[0].meta.filterableFields ?? [] });
  }, kinds);
}

/** limit / offset of a merged list by the rules of every list (400 INVALID_PAGINATION when not integers). */
function pageOf(params: ListParams): PageRequest {
  return resolvePaging({}, { limit: parsePagingParam('limit', params.limit), offset: parsePagingParam('offset', params.offset) });
}

function reportedLimit(limit: PageRequest['limit']): number | string {
  return limit === 'none' ? NO_LIMIT_REPORTED : limit;
}
