// Service information: root, /version, /enumerated-capabilities, /specs (our own generated
// API document) and /summary (resource counts).

import type { Context } from 'koa';
import { ApiError } from '../../errors.js';
import { sendData } from '../envelope.js';
import type { NodeClient } from '../node-client.js';
import { buildRouterDocument } from './route-document.js';
import type { Api, HandRoute, RouteDeps } from './route-table.js';

export type { BaseUrl } from './route-table.js';

export const PRODUCT_VERSION = 'v0.1.0';
export const MANAGEMENT_PATH = '/edge/management/v1';
export const CLIENT_PATH = '/edge/client/v1';

/** What this node implements of upstream's capabilities: HA_CONTROLLER in cluster mode (OIDC
 * login is not served, so OIDC_AUTH is never advertised). */
export function capabilities(node: Pick<NodeClient, 'clustered'>): string[] {
  return node.clustered ? ['HA_CONTROLLER'] : [];
}

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

function specDetail(api: Api) {
  const epoch = new Date(0).toISOString();
  return { id: api.id, name: api.name, createdAt: epoch, updatedAt: epoch, tags: {}, _links: { self: { href: `./specs/${api.id}` }, spec: { href: `./specs/${api.id}/spec` } } };
}

/** Each API's document, built on first use (when every route is in place); upstream serves the
 * document as a string. */
const documents = new WeakMap<Api, string>();
function documentOf(api: Api): string {
  let document = documents.get(api);
  if (document === undefined) documents.set(api, (document = JSON.stringify(buildRouterDocument(api, PRODUCT_VERSION))));
  return document;
}

const version = (ctx: Context, { baseUrl, node }: RouteDeps) => sendData(ctx, versionInfo(baseUrl(), capabilities(node)));
const VERSION_ANSWER = { description: 'Version information' };

/** Served by both APIs: each describes its own document. */
export const INFO_ROUTES: readonly HandRoute[] = [
  { method: 'get', path: '/', access: 'none', operationId: 'listRoot', summary: 'Returns version information', ok: VERSION_ANSWER, handler: version },
  { method: 'get', path: '/version', access: 'none', operationId: 'listVersion', summary: 'Returns version information', ok: VERSION_ANSWER, handler: version },
  {
    method: 'get', path: '/enumerated-capabilities', access: 'none', operationId: 'listEnumeratedCapabilities',
    summary: 'Returns all capabilities this version of the controller is aware of, enabled or not.',
    ok: { description: 'The capabilities this node implements', data: { type: 'array', items: { type: 'string' } } },
    handler: (ctx, { node }) => sendData(ctx, capabilities(node)),
  },
  {
    method: 'get', path: '/specs', access: 'none', operationId: 'listSpecs', summary: 'Returns a list of API specs',
    handler: (ctx, { api }) => sendData(ctx, [specDetail(api)], { pagination: { limit: 1, offset: 0, totalCount: 1 } }),
  },
  {
    method: 'get', path: '/specs/:id', access: 'none', operationId: 'detailSpec', summary: 'Return a single spec resource',
    handler: (ctx, { api }) => sendData(ctx, specDetail(findSpec(api, ctx.params.id))),
  },
  {
    method: 'get', path: '/specs/:id/spec', access: 'none', operationId: 'detailSpecBody', summary: "Returns the spec's file",
    ok: { description: 'This API document, as a JSON string', data: { type: 'string' } },
    handler: (ctx, { api }) => sendData(ctx, documentOf(findSpec(api, ctx.params.id))),
  },
];

/** `/summary`: counts of each resource (management API). */
export const SUMMARY_ROUTE: HandRoute = {
  method: 'get', path: '/summary', access: 'admin', operationId: 'listSummary', summary: 'Returns a list of accessible resource counts',
  ok: { description: 'The number of each resource, by camel-cased kind', data: { type: 'object', additionalProperties: { type: 'integer' } } },
  handler: async (ctx, { node }) => {
    const counts = await node.query({ op: 'summary' });
    const camel: Record<string, number> = {};
    for (const [kind, n] of Object.entries(counts)) camel[kind.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = n;
    sendData(ctx, camel);
  },
};

function findSpec(api: Api, id: string): Api {
  if (api.id !== id) throw new ApiError('NOT_FOUND');
  return api;
}
