// The `/fabric/v1` subset admin consoles read: routers (transit and edge, as upstream's fabric
// sees every router), services and terminators from the same store as the edge API, and links
// and circuits, which are always empty: Weft has no data plane. Admin only, as upstream.

import type { Context } from 'koa';
import type Router from '@koa/router';
import { newId } from '../../domain/ids.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../domain/paging.js';
import { resourceOf } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { sendCreated, sendData, sendDataJson, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireAdmin } from '../middleware/session.js';
import { sendList } from '../list-answer.js';
import type { NodeClient } from '../node-client.js';
import { listParams, viewer } from './resource-routes.js';

export const FABRIC_PATH = '/fabric/v1';

type Wire = Record<string, unknown>;

export function addFabricRoutes(router: Router, node: NodeClient): void {
  const list = (kind: string) => async (ctx: Context) => {
    requireAdmin(ctx);
    await sendList(ctx, node, { op: 'list', kind, params: listParams(ctx), viewer: viewer(ctx) });
  };
  const get = (kind: string) => async (ctx: Context & { params: Record<string, string> }) => {
    requireAdmin(ctx);
    sendDataJson(ctx, await node.queryJson({ op: 'get', kind, id: ctx.params.id, viewer: viewer(ctx) }));
  };
  const empty = async (ctx: Context) => {
    requireAdmin(ctx);
    const { limit, offset } = pageOf(ctx);
    sendData(ctx, [], { pagination: { limit, offset, totalCount: 0 }, filterableFields: [] });
  };

  router.get('/routers', async (ctx) => {
    requireAdmin(ctx);
    const { limit, offset } = pageOf(ctx);
    const requested = listParams(ctx);
    // Fabric router lists merge two kinds of at most one full page (MAX_LIMIT) each.
    const params = { ...requested, limit: String(MAX_LIMIT), offset: '0' };
    const pages = await Promise.all(['routers', 'edge-routers'].map((kind) => node.query({ op: 'list', kind, params, viewer: viewer(ctx) })));
    const all = pages.flatMap((page) => (page.data as Wire[]).map(fabricRouter));
    if (!requested.sort) all.sort((a, b) => String(a.name).localeCompare(String(b.name)));
    const totalCount = pages.reduce((sum, page) => sum + Number((page.meta.pagination as Wire | undefined)?.totalCount ?? 0), 0);
    sendData(ctx, all.slice(offset, offset + limit), { pagination: { limit, offset, totalCount }, filterableFields: pages[0].meta.filterableFields ?? [] });
  });
  router.get('/routers/:id', async (ctx) => {
    requireAdmin(ctx);
    for (const kind of ['routers', 'edge-routers']) {
      try {
        sendData(ctx, fabricRouter(await node.query({ op: 'get', kind, id: ctx.params.id, viewer: viewer(ctx) })));
        return;
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'NOT_FOUND') throw err;
      }
    }
    throw new ApiError('NOT_FOUND');
  });
  router.get('/services', list('services'));
  router.get('/services/:id', get('services'));
  router.get('/services/:id/terminators', async (ctx) => {
    requireAdmin(ctx);
    await sendList(ctx, node, { op: 'related', parent: { kind: 'services', id: ctx.params.id }, kind: 'terminators', params: listParams(ctx), viewer: viewer(ctx) });
  });
  const terminators = resourceOf('terminators');
  router.get('/terminators', list('terminators'));
  router.get('/terminators/:id', get('terminators'));
  router.post('/terminators', async (ctx) => {
    requireAdmin(ctx);
    const created = await node.command<{ id: string }>(terminators, 'create', newId(), { body: jsonBody(ctx) });
    sendCreated(ctx, 'terminators', created.id);
  });
  router.delete('/terminators/:id', async (ctx) => {
    requireAdmin(ctx);
    await node.command(terminators, 'delete', ctx.params.id, {});
    sendEmpty(ctx);
  });
  router.get('/links', empty);
  router.get('/circuits', empty);
}

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

/** limit / offset as upstream defaults them (10, 0; at most 500). */
function pageOf(ctx: Context): { limit: number; offset: number } {
  const number = (name: string, fallback: number) => {
    const raw = ctx.query[name];
    const value = Number(Array.isArray(raw) ? raw[0] : raw);
    return Number.isInteger(value) && value >= 0 ? value : fallback;
  };
  return { limit: Math.min(number('limit', DEFAULT_LIMIT), MAX_LIMIT), offset: number('offset', 0) };
}
