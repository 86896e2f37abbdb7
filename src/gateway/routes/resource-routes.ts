// Routes derived from a resource declaration: list, get, create, replace, patch and delete,
// each with the access the declaration names. Nothing here is specific to one resource.

import type { Context } from 'koa';
import type Router from '@koa/router';
import { newId } from '../../domain/ids.js';
import type { Access, Operation, ResourceDecl } from '../../domain/resource.js';
import { ApiError } from '../../errors.js';
import { sendCreated, sendDataJson, sendEmpty } from '../envelope.js';
import { sendList } from '../list-answer.js';
import { jsonBody } from '../middleware/body.js';
import { requireAccess, requireCaller } from '../middleware/session.js';
import type { ListParams, Viewer } from '../../protocol/v1/query-messages.js';
import type { NodeClient } from '../node-client.js';

/** The list parameters of the request's query string. */
export function listParams(ctx: Context): ListParams {
  const one = (name: string) => {
    const value = ctx.query[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const many = (name: string) => {
    const value = ctx.query[name];
    return value === undefined ? undefined : (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(','));
  };
  return {
    filter: one('filter'),
    sort: one('sort'),
    limit: one('limit'),
    offset: one('offset'),
    roleFilter: many('roleFilter'),
    roleSemantic: one('roleSemantic'),
    policyType: one('policyType'),
  };
}

/** Who is reading, for caller-dependent fields (service permissions, service configs). */
export function viewer(ctx: Context): Viewer {
  const caller = ctx.state.caller as { identityId?: string } | undefined;
  const configTypes = ctx.query.configTypes;
  return {
    identityId: caller?.identityId,
    configTypes: configTypes === undefined ? undefined : (Array.isArray(configTypes) ? configTypes : [configTypes]).flatMap((v) => v.split(',')),
  };
}

/** `path` serves the kind under another URL segment too (e.g. routers as `transit-routers`). */
export function addResourceRoutes(router: Router, node: NodeClient, decl: ResourceDecl, path: string = decl.kind): void {
  const base = `/${path}`;
  const { ops, kind } = decl;
  /** The declared access of an operation, with the declaration's 403 for non-admin sessions. */
  const requireOp = (ctx: Context, op: Operation, access: Access) => {
    if (decl.forbiddenToNonAdmins?.includes(op) && !requireCaller(ctx).isAdmin) throw new ApiError('FORBIDDEN');
    requireAccess(ctx, access);
  };
  if (ops.list) {
    const access = ops.list;
    router.get(base, async (ctx) => {
      requireOp(ctx, 'list', access);
      await sendList(ctx, node, { op: 'list', kind, params: listParams(ctx), viewer: viewer(ctx) });
    });
  }
  if (ops.get) {
    const access = ops.get;
    router.get(`${base}/:id`, async (ctx) => {
      requireOp(ctx, 'get', access);
      sendDataJson(ctx, await node.queryJson({ op: 'get', kind, id: ctx.params.id, viewer: viewer(ctx) }));
    });
  }
  if (ops.create) {
    const access = ops.create;
    router.post(base, async (ctx) => {
      requireOp(ctx, 'create', access);
      const created = await node.command<{ id: string }>(decl, 'create', newId(), { body: jsonBody(ctx) });
      sendCreated(ctx, kind, created.id);
    });
  }
  const update = (op: 'replace' | 'patch' | 'delete') => async (ctx: Context & { params: Record<string, string> }) => {
    requireOp(ctx, op, ops[op] ?? 'admin');
    await node.command(decl, op, ctx.params.id, op === 'delete' ? {} : { body: jsonBody(ctx) });
    sendEmpty(ctx);
  };
  if (ops.replace) router.put(`${base}/:id`, update('replace'));
  if (ops.patch) router.patch(`${base}/:id`, update('patch'));
  if (ops.delete) router.delete(`${base}/:id`, update('delete'));
}
