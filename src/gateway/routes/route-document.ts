// The served API document of one API, from its route table: the resource-derived Swagger document
// for the declared routes, and each hand-written route as its table entry describes it (upstream's
// operationId and summary, body schema, answer), so the document describes exactly the
// operations served.

import { buildApiDocument } from '../../domain/api-document.js';
import type { Api, DeclaredRoute, HandRoute, Route } from './route-table.js';

type Operation = Record<string, unknown>;

/** A router path as a Swagger path: `/identities/:id` → `/identities/{id}`. */
export function swaggerPath(path: string): string {
  return (path || '/').replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });

export function buildRouterDocument(api: Api, version: string): Record<string, unknown> {
  const doc = buildApiDocument({ resources: api.resources, basePath: api.path, title: api.name, version });
  const paths = doc.paths as Record<string, Record<string, unknown>>;
  for (const route of api.routes) {
    if (isDeclared(route)) continue;
    const item = (paths[swaggerPath(route.path)] ??= {});
    // The first of two routes on one method and path is the one that answers.
    item[route.method] ??= describe(route);
  }
  return doc;
}

export function isDeclared(route: Route): route is DeclaredRoute {
  return route.declared === true;
}

function describe(route: HandRoute): Operation {
  const path = swaggerPath(route.path);
  const parameters: Operation[] = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, type: 'string' }));
  for (const name of route.query ?? []) parameters.push({ name, in: 'query', type: 'string' });
  if (route.body) parameters.push({ name: 'body', in: 'body', required: true, schema: route.body });
  const first = path.split('/').find((s) => s && !s.startsWith('{'));
  const ok = route.ok ?? { description: 'The {data, meta} envelope' };
  const status = String(ok.status ?? 200);
  const errors: Record<string, unknown> = {};
  if (route.body) errors['400'] = { description: 'The supplied request contains invalid fields or could not be parsed', schema: ref('apiErrorEnvelope') };
  if (route.access !== 'none') errors['401'] = { description: 'The supplied session does not have the correct access rights to request this resource', schema: ref('apiErrorEnvelope') };
  if (route.access === 'admin-403') errors['403'] = { description: 'The session is not an admin session', schema: ref('apiErrorEnvelope') };
  if (path.includes('{')) errors['404'] = { description: 'The requested resource does not exist', schema: ref('apiErrorEnvelope') };
  return {
    operationId: route.operationId,
    tags: [first ?? 'informational'],
    summary: route.summary,
    ...(route.consumes ? { consumes: [...route.consumes] } : {}),
    ...(ok.produces ? { produces: [ok.produces] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    security: route.access === 'none' ? [] : [{ ztSession: [] }],
    responses: { [status]: { description: ok.description, ...(ok.data ? { schema: ok.produces ? ok.data : envelopeOf(ok.data) } : {}) }, ...errors },
  };
}

function envelopeOf(data: Record<string, unknown>): Record<string, unknown> {
  return { type: 'object', properties: { data, meta: ref('meta') }, required: ['meta', 'data'] };
}
