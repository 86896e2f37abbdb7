// The served API document of one router: the resource-derived Swagger document, completed with
// every other route the router serves (from its own route table), so the document describes
// exactly the operations served.

import type Router from '@koa/router';
import { buildApiDocument } from '../../domain/api-document.js';
import type { ResourceDecl } from '../../domain/resource.js';

type Operation = Record<string, unknown>;

/** The router's routes as Swagger paths (relative to prefix) and lower-case methods. */
export function routeOperations(router: Router, prefix: string): { path: string; method: string }[] {
  const out: { path: string; method: string }[] = [];
  for (const layer of router.stack) {
    if (typeof layer.path !== 'string' || !layer.path.startsWith(prefix)) continue;
    const path = (layer.path.slice(prefix.length) || '/').replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    for (const method of layer.methods) if (method !== 'HEAD') out.push({ path, method: method.toLowerCase() });
  }
  return out;
}

export function buildRouterDocument(opts: { router: Router; prefix: string; resources: readonly ResourceDecl[]; title: string; version: string }): Record<string, unknown> {
  const doc = buildApiDocument({ resources: opts.resources, basePath: opts.prefix, title: opts.title, version: opts.version });
  const paths = doc.paths as Record<string, Record<string, unknown>>;
  for (const { path, method } of routeOperations(opts.router, opts.prefix)) {
    const item = (paths[path] ??= {});
    if (item[method] === undefined) item[method] = describe(path, method);
  }
  return doc;
}

/** A served route without a declaration: its path parameters and the standard envelope. */
function describe(path: string, method: string): Operation {
  const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, type: 'string' }));
  const words = path.split('/').filter((s) => s && !s.startsWith('{'));
  const operationId = method + words.map((w) => w.replace(/(^|[-.])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase())).join('');
  return {
    operationId,
    tags: [words[0] ?? 'informational'],
    summary: `${method.toUpperCase()} ${path}`,
    ...(params.length > 0 ? { parameters: params } : {}),
    responses: { default: { description: 'The {data, meta} envelope, or {error, meta}' } },
  };
}
