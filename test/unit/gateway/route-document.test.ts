// The served API documents and the routers come from one table per API: every operation a router
// serves is in its document (with a body schema where the route reads a body) and the document
// describes nothing the router does not serve.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Router from '@koa/router';
import { MemoryBus } from '../../../src/bus/memory-bus.js';
import { NodeClient } from '../../../src/gateway/node-client.js';
import { CLIENT_API, FABRIC_API, MANAGEMENT_API, mountApi } from '../../../src/gateway/routes/index.js';
import { buildRouterDocument, isDeclared, swaggerPath } from '../../../src/gateway/routes/route-document.js';
import type { Api, Route } from '../../../src/gateway/routes/route-table.js';

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** A handler that reads the request body (directly or through its module's body helpers). */
const READS_BODY = /jsonBody|pemBody|inputOf|objectBody/;

function served(api: Api): string[] {
  const router = new Router({ prefix: api.path });
  mountApi(router, api, new NodeClient(new MemoryBus(), 'n1'), () => 'https://localhost:1280');
  const out = new Set<string>();
  for (const layer of router.stack) {
    for (const method of layer.methods) if (method !== 'HEAD') out.add(`${method.toLowerCase()} ${swaggerPath(String(layer.path).slice(api.path.length))}`);
  }
  return [...out].sort();
}

function documented(doc: Json): string[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m} ${path}`)).sort();
}

const operation = (doc: Json, route: Route): Json | undefined => doc.paths[swaggerPath(route.path)]?.[route.method];
const hasBody = (op: Json | undefined) => (op?.parameters ?? []).some((p: Json) => p.in === 'body' && p.schema !== undefined);

for (const api of [MANAGEMENT_API, CLIENT_API, FABRIC_API]) {
  describe(`the ${api.id} document`, () => {
    const doc = buildRouterDocument(api, 'v0.0.0') as Json;

    it('describes exactly the operations its router serves', () => {
      assert.deepEqual(documented(doc), served(api));
    });

    it('has a body schema for every route that takes a body', () => {
      const missing = api.routes
        .filter((route) => (isDeclared(route) ? ['post', 'put', 'patch'].includes(route.method) : READS_BODY.test(String(route.handler))))
        .filter((route) => !hasBody(operation(doc, route)))
        .map((route) => `${route.method} ${route.path}`);
      assert.deepEqual(missing, []);
    });

    it("describes each hand-written route with its table entry's operationId and summary", () => {
      for (const route of api.routes) {
        if (isDeclared(route)) continue;
        const op = operation(doc, route)!;
        // The first of two routes on one method and path answers, and is the one described.
        const first = api.routes.find((r) => r.method === route.method && r.path === route.path);
        if (first !== route) continue;
        assert.equal(op.operationId, route.operationId, `${route.method} ${route.path}`);
        assert.equal(op.summary, route.summary);
        assert.deepEqual(op.security, route.access === 'none' ? [] : [{ ztSession: [] }], `${route.method} ${route.path}`);
      }
    });

    it('names every operation once', () => {
      const ids = Object.values(doc.paths as Json).flatMap((item) => METHODS.filter((m) => item[m]).map((m) => item[m].operationId as string));
      assert.deepEqual(ids.filter((id, i) => ids.indexOf(id) !== i), []);
    });

    it('resolves every $ref', () => {
      const refs = JSON.stringify(doc).match(/"#\/definitions\/[^"]+"/g) ?? [];
      const missing = refs.map((r) => r.slice(15, -1)).filter((name) => doc.definitions[name] === undefined);
      assert.deepEqual([...new Set(missing)], []);
    });
  });
}

describe('route tables', () => {
  it('serve the derived CRUD routes of every declared operation of the management resources', () => {
    const declared = MANAGEMENT_API.routes.filter(isDeclared).length;
    const expected = MANAGEMENT_API.resources.reduce((n, decl) => n + Object.keys(decl.ops).length, 0);
    assert.equal(declared, expected);
  });

  it('give a body schema to an upstream operation that has one (POST /authenticate, PUT /identities/{id}/trace)', () => {
    const doc = buildRouterDocument(MANAGEMENT_API, 'v0.0.0') as Json;
    const body = (path: string, method: string) => doc.paths[path][method].parameters.find((p: Json) => p.in === 'body').schema;
    assert.equal(body('/authenticate', 'post').properties.username.type, 'string');
    assert.equal(body('/identities/{id}/trace', 'put').properties.enabled.type, 'boolean');
    assert.equal(doc.paths['/identities/{id}/disable'].post.operationId, 'disableIdentity');
  });
});
