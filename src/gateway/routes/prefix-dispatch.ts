// Running the gateway's routers. Each router serves the paths under its own prefix, so a request
// runs only that router (and its allowed-methods check) instead of passing through every router
// in turn. A request that matches exactly one route runs that route's handlers directly, with the
// context fields @koa/router sets; anything else (no route, several, a host-bound router) goes
// through the router's own middleware.

import type Router from '@koa/router';
import type { Middleware, Next, ParameterizedContext } from 'koa';
import compose from 'koa-compose';

type Layer = Router['stack'][number];

export interface Mount {
  /** The router's path prefix ('' for the fallback that takes every other path). */
  prefix: string;
  router: Router;
  /** The router's allowedMethods middleware, run after it as when both are mounted in turn. */
  allowedMethods: ReturnType<Router['allowedMethods']>;
}

export function dispatchByPrefix(mounts: Mount[]): Middleware {
  const chains = mounts.map((mount) => {
    const routes = routeMiddleware(mount.router);
    // Router middleware is typed for a router context; it runs on the same Koa context.
    const allowed = mount.allowedMethods as unknown as Middleware;
    return {
      // Routers match paths case-insensitively (their default), so prefixes are compared folded.
      prefix: mount.prefix.toLowerCase(),
      chain: (ctx: ParameterizedContext, next: Next) => routes(ctx, () => allowed(ctx, next)),
    };
  });
  const fallback = chains.find((c) => c.prefix === '');
  const prefixed = chains.filter((c) => c.prefix !== '');
  return (ctx, next) => {
    const path = ctx.path;
    for (const mount of prefixed) {
      if (path.startsWith(mount.prefix) || path.toLowerCase().startsWith(mount.prefix)) return mount.chain(ctx, next);
    }
    return fallback ? fallback.chain(ctx, next) : next();
  };
}

/** The router's dispatch, with a direct path for a request that matches one route. */
export function routeMiddleware(router: Router): Middleware {
  const general = router.routes() as unknown as Middleware;
  if (router.opts.host !== undefined || router.opts.routerPath !== undefined || router.opts.exclusive) return general;
  const runners = new WeakMap<Layer, Middleware>();
  const runnerOf = (layer: Layer): Middleware => {
    let run = runners.get(layer);
    if (!run) runners.set(layer, (run = chain(layer.stack as unknown as Middleware[])));
    return run;
  };
  return (ctx, next) => {
    const path = ctx.path;
    const found = router.match(path, ctx.method);
    if (!found.route || found.pathAndMethod.length !== 1) return general(ctx, next);
    const layer = found.pathAndMethod[0];
    const state = ctx as ParameterizedContext & Record<string, unknown>;
    if (Array.isArray(state.matched)) (state.matched as Layer[]).push(...found.path);
    else state.matched = found.path;
    state.router = router;
    state.routeMatched = true;
    const captures = layer.captures(path);
    const params = layer.params(path, captures, state.params as Record<string, string> | undefined);
    state.captures = captures;
    (ctx.request as unknown as Record<string, unknown>).params = params;
    state.params = params;
    state.routerPath = layer.path;
    state.routerName = layer.name || undefined;
    state._matchedRoute = layer.path;
    if (layer.name) state._matchedRouteName = layer.name;
    return runnerOf(layer)(ctx, next);
  };
}

/** A route's handlers as one middleware, as @koa/router composes them. */
function chain(handlers: Middleware[]): Middleware {
  return handlers.length === 1 ? handlers[0] : compose(handlers);
}
