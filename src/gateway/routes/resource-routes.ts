// Routes derived from a resource declaration: list, get, create, replace, patch and delete,
// each with the access the declaration names. Nothing here is specific to one resource.

import type { Context } from 'koa';
import { newId } from '../../domain/ids.js';
import { kindOf } from '../../domain/registry.js';
import type { Operation, ResourceDecl } from '../../domain/resource.js';
import { sendCreated, sendDataJson, sendEmpty } from '../envelope.js';
import { sendList } from '../list-answer.js';
import { jsonBody } from '../middleware/body.js';
import type { ListParams, Viewer } from '../../protocol/v1/query-messages.js';
import type { DeclaredRoute, Method, RouteAccess, RouteContext, RouteDeps } from './route-table.js';

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

/** A route derived from a declaration, with the operation it serves. */
export type ResourceRoute = DeclaredRoute & { op: Operation };

/** The declared operations of a resource as routes, each with the access the declaration names
 * (`admin-403` for an operation in its `forbiddenToNonAdmins`). `path` serves the kind under
 * another URL segment too (e.g. routers as `transit-routers`). */
export function resourceRoutes(decl: ResourceDecl, path: string = decl.kind): ResourceRoute[] {
  const base = `/${path}`;
  const { ops } = decl;
  const kind = kindOf(decl.kind);
  const accessOf = (op: Operation): RouteAccess => (decl.forbiddenToNonAdmins?.includes(op) ? 'admin-403' : (ops[op] ?? 'admin'));
  const routes: ResourceRoute[] = [];
  const add = (op: Operation, method: Method, at: string, handler: ResourceRoute['handler']) => {
    if (ops[op]) routes.push({ declared: true, op, method, path: at, access: accessOf(op), handler });
  };
  add('list', 'get', base, (ctx, { node }) => sendList(ctx, node, { op: 'list', kind, params: listParams(ctx), viewer: viewer(ctx) }));
  add('get', 'get', `${base}/:id`, async (ctx, { node }) => {
    sendDataJson(ctx, await node.queryJson({ op: 'get', kind, id: ctx.params.id, viewer: viewer(ctx) }));
  });
  add('create', 'post', base, async (ctx, { node }) => {
    const created = await node.command<{ id: string }>(decl, 'create', newId(), { body: jsonBody(ctx) });
    sendCreated(ctx, kind, created.id);
  });
  const update = (op: 'replace' | 'patch') => async (ctx: RouteContext, { node }: RouteDeps) => {
    await node.command(decl, op, ctx.params.id, { body: jsonBody(ctx) });
    sendEmpty(ctx);
  };
  add('replace', 'put', `${base}/:id`, update('replace'));
  add('patch', 'patch', `${base}/:id`, update('patch'));
  add('delete', 'delete', `${base}/:id`, async (ctx, { node }) => {
    await node.command(decl, 'delete', ctx.params.id, {});
    sendEmpty(ctx);
  });
  return routes;
}
