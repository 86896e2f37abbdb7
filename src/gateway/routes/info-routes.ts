// Service information: root, /version, /enumerated-capabilities, /specs (our own generated
// API document) and /summary (resource counts).

import type { Context } from 'koa';
import type Router from '@koa/router';
import { buildApiDocument } from '../../domain/api-document.js';
import { RESOURCES } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { sendData } from '../envelope.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

export const PRODUCT_VERSION = 'v0.1.0';
export const MANAGEMENT_PATH = '/edge/management/v1';
export const CLIENT_PATH = '/edge/client/v1';

const CAPABILITIES = ['HA_CONTROLLER', 'OIDC_AUTH'];

/** The advertised base URL of this node, e.g. https://127.0.0.1:1280 */
export type BaseUrl = () => string;

export function versionInfo(baseUrl: string): Record<string, unknown> {
  const api = (path: string) => ({ v1: { apiBaseUrls: [`${baseUrl}${path}`], path } });
  return {
    apiVersions: {
      edge: api(CLIENT_PATH),
      'edge-client': api(CLIENT_PATH),
      'edge-management': api(MANAGEMENT_PATH),
    },
    buildDate: '',
    capabilities: [],
    revision: '',
    runtimeVersion: process.version,
    version: PRODUCT_VERSION,
  };
}

const SPECS = [{ id: 'edge-management', name: 'Weft Edge Management API' }];

function specDetail(spec: { id: string; name: string }) {
  const epoch = new Date(0).toISOString();
  return { ...spec, createdAt: epoch, updatedAt: epoch, tags: {}, _links: { self: { href: `./specs/${spec.id}` }, spec: { href: `./specs/${spec.id}/spec` } } };
}

export function addInfoRoutes(router: Router, node: NodeClient, baseUrl: BaseUrl): void {
  const version = (ctx: Context) => sendData(ctx, versionInfo(baseUrl()));
  router.get('/', version);
  router.get('/version', version);
  router.get('/enumerated-capabilities', (ctx) => sendData(ctx, CAPABILITIES));
  router.get('/specs', (ctx) => sendData(ctx, SPECS.map(specDetail), { pagination: { limit: SPECS.length, offset: 0, totalCount: SPECS.length } }));
  router.get('/specs/:id', (ctx) => sendData(ctx, specDetail(findSpec(ctx.params.id))));
  router.get('/specs/:id/spec', (ctx) => {
    const spec = findSpec(ctx.params.id);
    sendData(ctx, buildApiDocument({ resources: RESOURCES, basePath: MANAGEMENT_PATH, title: spec.name, version: PRODUCT_VERSION }));
  });
  router.get('/summary', async (ctx) => {
    requireAdmin(ctx);
    const counts = await node.query<Record<string, number>>({ op: 'summary' });
    const camel: Record<string, number> = {};
    for (const [kind, n] of Object.entries(counts)) camel[kind.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = n;
    sendData(ctx, camel);
  });
}

function findSpec(id: string) {
  const spec = SPECS.find((s) => s.id === id);
  if (!spec) throw new ApiError('NOT_FOUND');
  return spec;
}
