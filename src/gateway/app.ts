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
import { sessionMiddleware } from './middleware/session.js';
import { NodeClient } from './node-client.js';
import { addClientRoutes, addManagementRoutes } from './routes/index.js';
import { CLIENT_PATH, MANAGEMENT_PATH, PRODUCT_VERSION, type BaseUrl } from './routes/info-routes.js';

export interface GatewayOptions {
  bus: Bus;
  nodeId: string;
  /** Which command subjects the node's actors serve. */
  scope: CommandScope;
  baseUrl: BaseUrl;
  logError: ErrorLogger;
  /** Called after each request with its route, status and duration (metrics, access logs). */
  onRequest?: (entry: { requestId: string; method: string; path: string; status: number; ms: number }) => void;
}

export function createGateway(opts: GatewayOptions): Koa {
  const app = new Koa({ proxy: false });
  const node = new NodeClient(opts.bus, opts.nodeId, opts.scope);
  app.use(async (ctx, next) => {
    const started = performance.now();
    ctx.state.requestId = randomUUID();
    ctx.set('server', `weft-controller/${PRODUCT_VERSION}`);
    try {
      await next();
    } finally {
      opts.onRequest?.({ requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: performance.now() - started });
    }
  });
  app.use(errorMiddleware(opts.logError));
  app.use(bodyMiddleware);
  app.use(sessionMiddleware(node));

  const management = new Router({ prefix: MANAGEMENT_PATH });
  addManagementRoutes(management, node, opts.baseUrl);
  const client = new Router({ prefix: CLIENT_PATH });
  addClientRoutes(client, node, opts.baseUrl);

  for (const router of [management, client]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true, methodNotAllowed: () => new ApiError('METHOD_NOT_ALLOWED') }));
  }
  return app;
}
