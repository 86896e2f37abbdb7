// The Koa gateway: middleware order (errors first, request id, body, session) and the two
// mounted APIs. Talks to the rest of the node only through the bus (NodeClient).

import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import type { Bus } from '../bus/bus.js';
import type { CommandScope } from '../bus/subjects.js';
import { ApiError } from '../errors.js';
import { bodyMiddleware } from './middleware/body.js';
import { errorMiddleware, type ErrorLogger } from './middleware/errors.js';
import { CallerCache } from './middleware/caller-cache.js';
import { cleanPathMiddleware } from './middleware/clean-path.js';
import { LoginLimiter, loginLimiterMiddleware } from './middleware/login-limiter.js';
import { LoginThrottle, loginThrottleMiddleware } from './middleware/login-throttle.js';
import { sessionMiddleware } from './middleware/session.js';
import { NodeClient, type NodeClientOptions } from './node-client.js';
import { withArrival } from './request-arrival.js';
import { CLIENT_API, FABRIC_API, MANAGEMENT_API, mountApi } from './routes/index.js';
import { FABRIC_PATH } from './routes/fabric-routes.js';
import { addMetricsRoute } from './routes/metrics-route.js';
import { addHealthRoutes, HEALTH_PATHS, type HealthAnswer } from './routes/health-routes.js';
import { dispatchByPrefix } from './routes/prefix-dispatch.js';
import { indexRoutes } from './routes/route-index.js';
import { capabilities, CLIENT_PATH, MANAGEMENT_PATH, PRODUCT_VERSION, versionInfo, type BaseUrl } from './routes/info-routes.js';
import { sendData } from './envelope.js';

export interface GatewayOptions {
  bus: Bus;
  nodeId: string;
  /** Which command subjects the node's actors serve. */
  scope: CommandScope;
  baseUrl: BaseUrl;
  logError: ErrorLogger;
  /** Called after each request with its route, status and duration (metrics, access logs). */
  onRequest?: (entry: RequestReport) => void;
  /** Renders the Prometheus text served at GET /metrics (unauthenticated; see README). */
  metrics?: () => Promise<string>;
  /** This node's liveness and readiness, served at GET /healthz and GET /readyz (unauthenticated). */
  health?: () => HealthAnswer;
  /** Bounds concurrent logins (POST /authenticate); default: a fresh adaptive 5..250 window. */
  loginLimiter?: LoginLimiter;
  /** Slows failed password logins per username and source address; default: a fresh one. */
  loginThrottle?: LoginThrottle;
  /** A version of this node's replica that moves with every applied command that may change how
   * a session token resolves. When given, a session resolved less than a second ago at the same
   * version is reused without asking the query handler. */
  sessionsVersion?: () => number;
  /** Cluster mode: resolves once this node has applied every write acknowledged before the call
   * (the read barrier). Awaited before each request is handled. */
  barrier?: () => Promise<void>;
  /** Cluster mode: how commands wait for a shard's owner, the barrier after them, and the
   * recovery of lost answers (see NodeClientOptions). */
  commands?: NodeClientOptions;
}

/** What the gateway reports about each finished request. Never bodies, headers or tokens. */
export interface RequestReport {
  requestId: string;
  method: string;
  path: string;
  /** The matched route template (`/edge/management/v1/identities/:id`), if one matched. */
  route?: string;
  status: number;
  ms: number;
  /** The caller's identity, when the request carried a valid session. */
  identityId?: string;
  /** For failed requests: the error code and cause the error middleware answered with. */
  errorCode?: string;
  errorCause?: unknown;
  /** `?method=` of POST /authenticate. */
  loginMethod?: string;
}

/** Koa answers a stream body only after asking whether it is a `Blob`, a `ReadableStream` or a
 * `Response`: Node loads those globals (the last one is its bundled undici) on first use, which
 * took 20-200 ms, on the event loop, in the middle of the first streamed list after a start.
 * The gateway loads them while the node starts instead. */
function loadWebGlobals(): void {
  for (const global of [Blob, ReadableStream, Response]) if (typeof global !== 'function') throw new Error('a web global is missing');
}

export function createGateway(opts: GatewayOptions): Koa {
  loadWebGlobals();
  const app = new Koa({ proxy: false });
  const node = new NodeClient(opts.bus, opts.nodeId, opts.scope, opts.commands);
  app.use(async (ctx, next) => {
    const started = performance.now();
    ctx.state.requestId = randomUUID();
    ctx.set('server', `weft-controller/${PRODUCT_VERSION}`);
    try {
      // Only a cluster's commands count from the arrival: an embedded node keeps its requests
      // out of AsyncLocalStorage (its hooks cost every promise).
      await (node.clustered ? withArrival(Date.now(), next) : next());
    } finally {
      opts.onRequest?.(report(ctx, performance.now() - started));
    }
  });
  app.use(cleanPathMiddleware);
  app.use(errorMiddleware(opts.logError));
  app.use(loginLimiterMiddleware(opts.loginLimiter ?? new LoginLimiter(), isLogin));
  app.use(bodyMiddleware);
  // After the body is read: a client that gives up while the barrier waits leaves nothing unread.
  if (opts.barrier) app.use(barrierMiddleware(opts.barrier));
  app.use(loginThrottleMiddleware(opts.loginThrottle ?? new LoginThrottle(), (ctx) => isLogin(ctx) && ctx.query.method === 'password'));
  app.use(sessionMiddleware(node, opts.sessionsVersion && new CallerCache(opts.sessionsVersion)));

  const management = new Router({ prefix: MANAGEMENT_PATH });
  mountApi(management, MANAGEMENT_API, node, opts.baseUrl);
  const client = new Router({ prefix: CLIENT_PATH });
  mountApi(client, CLIENT_API, node, opts.baseUrl);
  const fabric = new Router({ prefix: FABRIC_PATH });
  mountApi(fabric, FABRIC_API, node, opts.baseUrl);
  const root = new Router();
  // As upstream (openziti/ziti#2026): the version document at the root too, where tools such as
  // `ziti edge login host:port` look for the APIs' paths.
  const version = (ctx: Koa.Context) => sendData(ctx, versionInfo(opts.baseUrl(), capabilities(node)));
  root.get('/', version);
  root.get('/version', version);
  if (opts.metrics) addMetricsRoute(root, opts.metrics);
  if (opts.health) addHealthRoutes(root, opts.health);

  indexRoutes(management, MANAGEMENT_PATH);
  indexRoutes(client, CLIENT_PATH);
  indexRoutes(fabric, FABRIC_PATH);
  const allowedMethods = (router: Router) => router.allowedMethods({ throw: true, methodNotAllowed: () => new ApiError('METHOD_NOT_ALLOWED') });
  app.use(dispatchByPrefix([
    { prefix: MANAGEMENT_PATH, router: management, allowedMethods: allowedMethods(management) },
    { prefix: CLIENT_PATH, router: client, allowedMethods: allowedMethods(client) },
    { prefix: FABRIC_PATH, router: fabric, allowedMethods: allowedMethods(fabric) },
    { prefix: '', router: root, allowedMethods: allowedMethods(root) },
  ]));
  return app;
}

/** Every request but the static ones (`/`, `/version`, `/metrics`, `/healthz`, `/readyz`) starts behind the read barrier, so
 * it sees every write acknowledged before it arrived, on whichever node acknowledged it. */
function barrierMiddleware(barrier: () => Promise<void>): Koa.Middleware {
  return async (ctx, next) => {
    if (!ctx.path.endsWith('/version') && ctx.path !== '/' && ctx.path !== '/metrics' && !HEALTH_PATHS.has(ctx.path)) await barrier();
    await next();
  };
}

function isLogin(ctx: Koa.Context): boolean {
  return ctx.method === 'POST' && (ctx.path === `${MANAGEMENT_PATH}/authenticate` || ctx.path === `${CLIENT_PATH}/authenticate`);
}

function report(ctx: Koa.Context, ms: number): RequestReport {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  const error = ctx.state.error as { code: string; cause?: unknown } | undefined;
  const caller = ctx.state.caller as { identityId?: string } | undefined;
  const login = isLogin(ctx);
  const method = login ? ctx.query.method : undefined;
  return {
    requestId: ctx.state.requestId,
    method: ctx.method,
    path: ctx.path,
    route: typeof matched === 'string' ? matched : undefined,
    status: ctx.status,
    ms,
    identityId: caller?.identityId,
    errorCode: error?.code,
    errorCause: error?.cause,
    loginMethod: typeof method === 'string' ? method : undefined,
  };
}
