// Routes as data: every route module exports a table of routes (method, path, access, handler and
// how the API document describes it); `mountRoutes` is the one place that registers a table on a
// router, and route-document.ts describes the same table in the served API document.

import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ResourceDecl } from '../../domain/resource.js';
import { ApiError } from '../../errors.js';
import { routeBodyMiddleware } from '../middleware/body.js';
import { requireAccess, requireCaller } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route, checked before its handler runs: `none`; `authenticated` (a session, else
 * 401 UNAUTHORIZED); `admin` (an admin session, else 401 as upstream answers); `admin-403` (a
 * session, else 401; a non-admin session 403 FORBIDDEN: a declaration's `forbiddenToNonAdmins`).
 */
export type RouteAccess = 'none' | 'authenticated' | 'admin' | 'admin-403';

/** A Swagger 2.0 schema object. */
export type Schema = Record<string, unknown>;

/** The advertised base URL of this node, e.g. https://127.0.0.1:1280 */
export type BaseUrl = () => string;

/** One API: its prefix, the resources its document is derived from, and every route it serves,
 * in mount order. */
export interface Api {
  /** The spec id under `/specs` (`edge-management`, `edge-client`). */
  id: string;
  name: string;
  /** The router's prefix, e.g. `/edge/management/v1`. */
  path: string;
  /** The declarations whose operations the document describes (the routes marked `declared`). */
  resources: readonly ResourceDecl[];
  routes: readonly Route[];
}

/** What a handler may use besides the request: the bus client, the advertised URL, its own API. */
export interface RouteDeps {
  node: NodeClient;
  baseUrl: BaseUrl;
  api: Api;
}

export type RouteContext = Context & { params: Record<string, string> };

interface RouteBase {
  method: Method;
  /** The router path, with `:name` parameters. */
  path: string;
  access: RouteAccess;
  /** Upstream accepts a body on this GET (the app-wide body reader skips GETs). */
  getBody?: boolean;
  handler(ctx: RouteContext, deps: RouteDeps): unknown;
}

/** A route of a resource declaration: the declaration's document describes it. */
export interface DeclaredRoute extends RouteBase {
  declared: true;
}

/** A hand-written route, with its own description in the document. */
export interface HandRoute extends RouteBase {
  declared?: false;
  /** Upstream's operationId where upstream has the operation, so generated clients keep working. */
  operationId: string;
  /** Upstream's summary where upstream has the operation. */
  summary: string;
  /** The JSON request body, when the route reads one (a string schema: a text body). */
  body?: Schema;
  /** The body's media types when not JSON (e.g. a PEM body). */
  consumes?: readonly string[];
  /** Query parameters the route reads. */
  query?: readonly string[];
  /** The answer on success: status (200 unless given), description, and its schema when it is
   * not the `{data, meta}` envelope (or the envelope's `data` schema). */
  ok?: { status?: number; description: string; data?: Schema; produces?: string };
}

export type Route = DeclaredRoute | HandRoute;

/** Registers the routes on the router, in table order (which decides which of two routes that
 * match the same request runs). The access check runs right before the handler. */
export function mountRoutes(router: Router, routes: readonly Route[], deps: RouteDeps): void {
  for (const route of routes) {
    const { handler, access } = route;
    const run = (ctx: Context) => {
      checkAccess(ctx, access);
      return handler(ctx as RouteContext, deps);
    };
    if (route.getBody) router[route.method](route.path, routeBodyMiddleware, run);
    else router[route.method](route.path, run);
  }
}

function checkAccess(ctx: Context, access: RouteAccess): void {
  if (access === 'none') return;
  if (access === 'admin-403') {
    if (!requireCaller(ctx).isAdmin) throw new ApiError('FORBIDDEN');
    return;
  }
  requireAccess(ctx, access);
}

/** An object schema with these properties (none required unless named). */
export function objectSchema(properties: Record<string, Schema>, required: readonly string[] = []): Schema {
  return { type: 'object', properties, ...(required.length > 0 ? { required: [...required] } : {}) };
}

export const STRING: Schema = { type: 'string' };

