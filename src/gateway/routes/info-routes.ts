// Service information: root, /version, /enumerated-capabilities, /specs (our own generated
// API document) and /summary (resource counts).

import type { Context } from 'koa';
import type Router from '@koa/router';
import { RESOURCES } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { sendData } from '../envelope.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';
import { buildRouterDocument } from './route-document.js';

export const PRODUCT_VERSION = 'v0.1.0';
export const MANAGEMENT_PATH = '/edge/management/v1';
export const CLIENT_PATH = '/edge/client/v1';

/** What this node implements of upstream's capabilities: HA_CONTROLLER in cluster mode (OIDC
 * login is not served, so OIDC_AUTH is never advertised). */
export function capabilities(node: Pick<NodeClient, 'clustered'>): string[] {
  return node.clustered ? ['HA_CONTROLLER'] : [];
}

/** The advertised base URL of this node, e.g. https://127.0.0.1:1280 */
export type BaseUrl = () => string;

export function versionInfo(baseUrl: string, enabled: string[] = []): Record<string, unknown> {
  const api = (path: string) => ({ v1: { apiBaseUrls: [`${baseUrl}${path}`], path } });
  return {
    apiVersions: {
      edge: api(CLIENT_PATH),
      'edge-client': api(CLIENT_PATH),
      'edge-management': api(MANAGEMENT_PATH),
    },
    buildDate: '',
    capabilities: enabled,
    revision: '',
    runtimeVersion: process.version,
    version: PRODUCT_VERSION,
  };
}

const SPECS = [
  { id: 'edge-management', name: 'Weft Edge Management API', path: MANAGEMENT_PATH },
  { id: 'edge-client', name: 'Weft Edge Client API', path: CLIENT_PATH },
];
type Spec = (typeof SPECS)[number];

function specDetail(spec: Spec) {
  const epoch = new Date(0).toISOString();
  return { id: spec.id, name: spec.name, createdAt: epoch, updatedAt: epoch, tags: {}, _links: { self: { href: `./specs/${spec.id}` }, spec: { href: `./specs/${spec.id}/spec` } } };
}

export function addInfoRoutes(router: Router, node: NodeClient, baseUrl: BaseUrl): void {
  const version = (ctx: Context) => sendData(ctx, versionInfo(baseUrl(), capabilities(node)));
  router.get('/', version);
  router.get('/version', version);
  router.get('/enumerated-capabilities', (ctx) => sendData(ctx, capabilities(node)));
  // This router's own document: the management API's from the declarations and its routes, the
  // client API's from its routes. Built on first use, when every route is in place; upstream
  // serves the document as a string.
  const own = SPECS.find((spec) => spec.path === router.opts.prefix) ?? SPECS[0]!;
  let document: string | undefined;
  const ownDocument = () =>
    (document ??= JSON.stringify(
      buildRouterDocument({ router, prefix: own.path, resources: own.path === MANAGEMENT_PATH ? RESOURCES : [], title: own.name, version: PRODUCT_VERSION }),
    ));
  router.get('/specs', (ctx) => sendData(ctx, [specDetail(own)], { pagination: { limit: 1, offset: 0, totalCount: 1 } }));
  router.get('/specs/:id', (ctx) => sendData(ctx, specDetail(findSpec(own, ctx.params.id))));
  router.get('/specs/:id/spec', (ctx) => {
    findSpec(own, ctx.params.id);
    sendData(ctx, ownDocument());
  });
  router.get('/summary', async (ctx) => {
    requireAdmin(ctx);
    const counts = await node.query({ op: 'summary' });
    const camel: Record<string, number> = {};
    for (const [kind, n] of Object.entries(counts)) camel[kind.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = n;
    sendData(ctx, camel);
  });
}

function findSpec(own: Spec, id: string): Spec {
  if (own.id !== id) throw new ApiError('NOT_FOUND');
  return own;
}
