// Client-API reads SDKs, tunnelers and the console's login page make: enabled external JWT
// signers (no session needed), protocols, controllers, the caller's edge routers, a service's
// edge routers and terminators as the caller may see them, and when services last changed.

import type { Context } from 'koa';
import { ApiError } from '../../errors.js';
import { API_META, dataStreamTail, sendData } from '../envelope.js';
import { openList, pageItems, sendItemStream } from '../item-stream.js';
import { sendList } from '../list-answer.js';
import { requireCaller, type Caller } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';
import { listParams, viewer } from './resource-routes.js';
import type { HandRoute } from './route-table.js';

type Wire = Record<string, unknown>;


const SIGNER_FIELDS = [
  'id', 'createdAt', 'updatedAt', 'tags', '_links', 'name', 'externalAuthUrl', 'clientId', 'audience', 'scopes',
  'openIdConfigurationUrl', 'targetToken', 'enrollToCertEnabled', 'enrollToTokenEnabled',
] as const;

const EDGE_ROUTER_FIELDS = [
  'id', 'createdAt', 'updatedAt', 'tags', '_links', 'name', 'hostname', 'supportedProtocols', 'syncStatus', 'isOnline',
  'cost', 'noTraversal', 'disabled', 'appData',
] as const;

const pick = (wire: Wire, fields: readonly string[]): Wire => Object.fromEntries(fields.filter((f) => f in wire).map((f) => [f, wire[f]]));

const LIST_QUERY = ['filter', 'limit', 'offset'] as const;

export const CLIENT_DISCOVERY_ROUTES: readonly HandRoute[] = [
  {
    method: 'get', path: '/external-jwt-signers', access: 'none', operationId: 'listExternalJwtSigners', summary: 'List Client Authentication External JWT',
    query: LIST_QUERY,
    handler: async (ctx, { node }) => {
      const shown = (s: Wire): Wire | undefined =>
        s.enabled !== true ? undefined : { ...pick(s, SIGNER_FIELDS), externalAuthUrl: s.externalAuthUrl ?? '', openIdConfigurationUrl: s.openIdConfigurationUrl ?? '' };
      await sendList(ctx, node, { op: 'list', kind: 'external-jwt-signers', params: listParams(ctx), viewer: {} }, shown);
    },
  },
  {
    method: 'get', path: '/protocols', access: 'none', operationId: 'listProtocols', summary: 'Return a list of the listening Edge protocols',
    handler: (ctx, { baseUrl }) => sendData(ctx, { https: { address: new URL(baseUrl()).host } }),
  },
  {
    method: 'get', path: '/controllers', access: 'authenticated', operationId: 'listControllers', summary: 'List controllers',
    handler: async (ctx, { node }) => {
      const page = await node.query({ op: 'controllers' });
      sendData(ctx, page.data, page.meta);
    },
  },
  {
    method: 'get', path: '/current-identity/edge-routers', access: 'authenticated', operationId: 'getCurrentIdentityEdgeRouters',
    summary: 'Return this list of Edge Routers the identity has access to',
    handler: async (ctx, { node }) => {
      const routers = await callerEdgeRouters(ctx, node, requireCaller(ctx));
      const shown = { n: 0 };
      const items = pageItems(routers.batches, 0, (r) => pick(r, EDGE_ROUTER_FIELDS), shown);
      sendItemStream(ctx, items, () => dataStreamTail({ pagination: { limit: shown.n, offset: 0, totalCount: shown.n } }), [routers]);
    },
  },
  {
    method: 'get', path: '/services/:id/edge-routers', access: 'authenticated', operationId: 'listServiceEdgeRouters',
    summary: 'List of edge routers permitted to handle traffic for the specified service',
    handler: async (ctx, { node }) => {
      const caller = requireCaller(ctx);
      await requireServiceAccess(node, caller, ctx.params.id);
      // The caller's routers are kept as ids only; the service's stream through them.
      const mine = new Set<unknown>();
      for await (const batch of (await callerEdgeRouters(ctx, node, caller)).batches) for (const r of batch) mine.add(r.id);
      const serving = await openList(node, { op: 'related', parent: { kind: 'services', id: ctx.params.id }, kind: 'edge-routers', params: UNPAGED, viewer: {} });
      const items = pageItems(serving.batches, 0, (r) => (mine.has(r.id) ? pick(r, EDGE_ROUTER_FIELDS) : undefined), { n: 0 });
      sendItemStream(ctx, items, () => `]},"meta":${JSON.stringify(API_META)}}`, [serving], '{"data":{"edgeRouters":[');
    },
  },
  {
    method: 'get', path: '/services/:id/terminators', access: 'authenticated', operationId: 'listServiceTerminators',
    summary: 'List of terminators assigned to a service', query: LIST_QUERY,
    handler: async (ctx, { node }) => {
      await requireServiceAccess(node, requireCaller(ctx), ctx.params.id);
      const msg = { op: 'related' as const, parent: { kind: 'services' as const, id: ctx.params.id }, kind: 'terminators' as const, params: listParams(ctx), viewer: {} };
      await sendList(ctx, node, msg, (t) => pick(t, ['id', 'createdAt', 'updatedAt', 'tags', '_links', 'serviceId', 'service', 'routerId', 'identity']));
    },
  },
  {
    method: 'get', path: '/current-api-session/service-updates', access: 'authenticated', operationId: 'listServiceUpdates',
    summary: 'Returns data indicating whether a client should updates it service list',
    handler: async (ctx, { node }) => sendData(ctx, await node.query({ op: 'serviceUpdates' })),
  },
];

const UNPAGED = { limit: '-1' };

/** The edge routers the caller's edge router policies give it, as they stream. */
function callerEdgeRouters(ctx: Context, node: NodeClient, caller: Caller) {
  return openList(node, { op: 'related', parent: { kind: 'identities', id: caller.identityId }, kind: 'edge-routers', params: UNPAGED, viewer: viewer(ctx) });
}

/** 404 unless the caller may dial or bind the service (the client API's service read). */
async function requireServiceAccess(node: NodeClient, caller: Caller, serviceId: string): Promise<void> {
  if (!(await node.query({ op: 'clientServiceVisible', identityId: caller.identityId, id: serviceId }))) throw new ApiError('NOT_FOUND');
}
