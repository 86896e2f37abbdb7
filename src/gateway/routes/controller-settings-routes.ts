// Controller settings beyond the declared list and get: create for a controller (its id is the
// controller id), and a controller's effective settings (global overridden by its own), which
// PUT / PATCH write and DELETE removes. Admin only.

import { resourceOf } from '../../domain/registry.js';
import { GLOBAL_CONTROLLER_SETTINGS } from '../../domain/resources/controller-settings.js';
import { ApiError, fieldError } from '../../errors.js';
import { sendCreated, sendData, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import type { NodeClient } from '../node-client.js';
import { objectSchema, STRING, type HandRoute, type RouteContext, type RouteDeps } from './route-table.js';

type Wire = Record<string, unknown>;
const KIND = 'controller-settings';
const decl = resourceOf(KIND);

async function read(node: NodeClient, id: string): Promise<Wire | undefined> {
  try {
    return await node.query({ op: 'get', kind: KIND, id });
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  }
}

const write = (mode: 'replace' | 'patch') => async (ctx: RouteContext, { node }: RouteDeps) => {
  const body = jsonBody(ctx) ?? {};
  if (await read(node, ctx.params.id)) await node.command(decl, mode, ctx.params.id, { body });
  else await node.command(decl, 'create', ctx.params.id, { body });
  sendEmpty(ctx);
};

const URIS = { type: 'array', items: STRING };
const OIDC = objectSchema({ redirectUris: URIS, postLogoutUris: URIS });
const TAGS = { type: 'object', additionalProperties: true };
const SETTINGS = objectSchema({ oidc: OIDC, tags: TAGS });

export const CONTROLLER_SETTINGS_ROUTES: readonly HandRoute[] = [
  {
    method: 'post', path: '/controller-settings', access: 'admin', operationId: 'createControllerSetting', summary: 'Create a controller specific setting',
    body: objectSchema({ controllerId: STRING, oidc: OIDC, tags: TAGS }, ['controllerId']), ok: { status: 201, description: 'The settings have been created' },
    handler: async (ctx, { node }) => {
      const { controllerId, ...settings } = (jsonBody(ctx) ?? {}) as Wire;
      if (typeof controllerId !== 'string' || controllerId === '') throw fieldError('controllerId', controllerId ?? null, 'controllerId is required');
      await node.command(decl, 'create', controllerId, { body: settings });
      sendCreated(ctx, KIND, controllerId);
    },
  },
  {
    method: 'get', path: '/controller-settings/:id/effective', access: 'admin', operationId: 'detailControllerSettingEffective',
    summary: "Retrieves a single controller's effective calculated settings from the instance and global configuration.",
    handler: async (ctx, { node }) => {
      const global = await read(node, GLOBAL_CONTROLLER_SETTINGS);
      const instance = ctx.params.id === GLOBAL_CONTROLLER_SETTINGS ? global : await read(node, ctx.params.id);
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
    },
  },
  {
    method: 'put', path: '/controller-settings/:id/effective', access: 'admin', operationId: 'updateControllerSetting',
    summary: 'Update all fields on a controller setting object', body: SETTINGS, handler: write('replace'),
  },
  {
    method: 'patch', path: '/controller-settings/:id/effective', access: 'admin', operationId: 'patchControllerSetting',
    summary: 'Update the supplied fields on a controller setting object', body: SETTINGS, handler: write('patch'),
  },
  {
    method: 'delete', path: '/controller-settings/:id/effective', access: 'admin', operationId: 'deleteControllerSetting', summary: 'Delete a controller setting object',
    handler: async (ctx, { node }) => {
      if (ctx.params.id === GLOBAL_CONTROLLER_SETTINGS) throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'the global controller settings cannot be deleted' });
      await node.command(decl, 'delete', ctx.params.id, {});
      sendEmpty(ctx);
    },
  },
];

/** Global's OIDC settings with each list the controller sets replaced by its own. */
function effectiveOidc(global: unknown, own: unknown): Wire {
  const g = (global ?? {}) as Wire;
  const o = (own ?? {}) as Wire;
  return { redirectUris: o.redirectUris ?? g.redirectUris ?? [], postLogoutUris: o.postLogoutUris ?? g.postLogoutUris ?? [] };
}
