// Controller settings beyond the declared list and get: create for a controller (its id is the
// controller id), and a controller's effective settings (global overridden by its own), which
// PUT / PATCH write and DELETE removes. Admin only.

import type { Context } from 'koa';
import type Router from '@koa/router';
import { resourceOf } from '../../domain/registry.js';
import { GLOBAL_CONTROLLER_SETTINGS } from '../../domain/resources/controller-settings.js';
import { ApiError, fieldError } from '../../errors.js';
import { sendCreated, sendData, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

type Wire = Record<string, unknown>;
const KIND = 'controller-settings';

export function addControllerSettingsRoutes(router: Router, node: NodeClient): void {
  const decl = resourceOf(KIND);
  const read = async (id: string): Promise<Wire | undefined> => {
    try {
      return await node.query({ op: 'get', kind: KIND, id });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'NOT_FOUND') return undefined;
      throw err;
    }
  };

  router.post('/controller-settings', async (ctx) => {
    requireAdmin(ctx);
    const { controllerId, ...settings } = (jsonBody(ctx) ?? {}) as Wire;
    if (typeof controllerId !== 'string' || controllerId === '') throw fieldError('controllerId', controllerId ?? null, 'controllerId is required');
    await node.command(decl, 'create', controllerId, { body: settings });
    sendCreated(ctx, KIND, controllerId);
  });
  router.get('/controller-settings/:id/effective', async (ctx) => {
    requireAdmin(ctx);
    const global = await read(GLOBAL_CONTROLLER_SETTINGS);
    const instance = ctx.params.id === GLOBAL_CONTROLLER_SETTINGS ? global : await read(ctx.params.id);
    const base = instance ?? global ?? {};
    sendData(ctx, {
      id: ctx.params.id,
      createdAt: base.createdAt,
      updatedAt: base.updatedAt,
      tags: base.tags ?? {},
      _links: { self: { href: `./controller-settings/${encodeURIComponent(ctx.params.id)}/effective` } },
      effective: { oidc: effectiveOidc(global?.oidc, instance?.oidc) },
      instance: { oidc: instance?.oidc ?? null },
    });
  });
  const write = (mode: 'replace' | 'patch') => async (ctx: Context & { params: Record<string, string> }) => {
    requireAdmin(ctx);
    const body = jsonBody(ctx) ?? {};
    if (await read(ctx.params.id)) await node.command(decl, mode, ctx.params.id, { body });
    else await node.command(decl, 'create', ctx.params.id, { body });
    sendEmpty(ctx);
  };
  router.put('/controller-settings/:id/effective', write('replace'));
  router.patch('/controller-settings/:id/effective', write('patch'));
  router.delete('/controller-settings/:id/effective', async (ctx) => {
    requireAdmin(ctx);
    if (ctx.params.id === GLOBAL_CONTROLLER_SETTINGS) throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'the global controller settings cannot be deleted' });
    await node.command(decl, 'delete', ctx.params.id, {});
    sendEmpty(ctx);
  });
}

/** Global's OIDC settings with each list the controller sets replaced by its own. */
function effectiveOidc(global: unknown, own: unknown): Wire {
  const g = (global ?? {}) as Wire;
  const o = (own ?? {}) as Wire;
  return { redirectUris: o.redirectUris ?? g.redirectUris ?? [], postLogoutUris: o.postLogoutUris ?? g.postLogoutUris ?? [] };
}
