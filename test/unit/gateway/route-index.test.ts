// Indexed route matching must answer exactly as @koa/router's own match(): same layers, same
// order, same route flag, for every route of both APIs and for paths that match nothing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Router from '@koa/router';
import { MemoryBus } from '../../../src/bus/memory-bus.js';
import { CLIENT_API, MANAGEMENT_API, mountApi } from '../../../src/gateway/routes/index.js';
import { CLIENT_PATH, MANAGEMENT_PATH } from '../../../src/gateway/routes/info-routes.js';
import { indexRoutes } from '../../../src/gateway/routes/route-index.js';
import { NodeClient } from '../../../src/gateway/node-client.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** The same routes twice: one router keeps koa-router's match, the other gets the index. */
function routers(prefix: string, add: (router: Router, node: NodeClient) => void): { plain: Router; indexed: Router } {
  const node = new NodeClient(new MemoryBus(), 'n1');
  const plain = new Router({ prefix });
  const indexed = new Router({ prefix });
  add(plain, node);
  add(indexed, node);
  indexRoutes(indexed, prefix);
  return { plain, indexed };
}

/** Concrete request paths for every route (parameters filled in), plus near misses. */
function pathsOf(router: Router, prefix: string): string[] {
  const paths = new Set<string>([prefix, `${prefix}/`, `${prefix}/nope`, `${prefix}/identities/x/nope/y`, '/', '/edge', `${prefix.toUpperCase()}/IDENTITIES`]);
  for (const layer of router.stack) {
    if (typeof layer.path !== 'string') continue;
    const filled = layer.path.replace(/:[A-Za-z0-9_]+/g, 'id-1');
    paths.add(filled);
    paths.add(`${filled}/`);
    paths.add(filled.toUpperCase());
    paths.add(`${filled}/extra`);
  }
  return [...paths];
}

function same(prefix: string, add: (router: Router, node: NodeClient) => void): number {
  const { plain, indexed } = routers(prefix, add);
  let checked = 0;
  for (const path of pathsOf(plain, prefix)) {
    for (const method of METHODS) {
      const want = plain.match(path, method);
      const got = indexed.match(path, method);
      const names = (r: typeof want) => ({ path: r.path.map((l) => plain.stack.indexOf(l as never)), pathAndMethod: r.pathAndMethod.map((l) => plain.stack.indexOf(l as never)), route: r.route });
      const gotNames = { path: got.path.map((l) => indexed.stack.indexOf(l)), pathAndMethod: got.pathAndMethod.map((l) => indexed.stack.indexOf(l)), route: got.route };
      assert.deepEqual(gotNames, names(want), `${method} ${path}`);
      checked++;
    }
  }
  return checked;
}

describe('indexRoutes', () => {
  it('matches the management API exactly as koa-router does', () => {
    assert.ok(same(MANAGEMENT_PATH, (r, node) => mountApi(r, MANAGEMENT_API, node, () => 'https://localhost:1280')) > 1000);
  });

  it('matches the client API exactly as koa-router does', () => {
    assert.ok(same(CLIENT_PATH, (r, node) => mountApi(r, CLIENT_API, node, () => 'https://localhost:1280')) > 200);
  });

  it('picks up routes added after indexing', () => {
    const router = new Router({ prefix: '/api' });
    router.get('/a/:id', () => undefined);
    indexRoutes(router, '/api');
    assert.equal(router.match('/api/b/1', 'GET').route, false);
    router.get('/b/:id', () => undefined);
    assert.equal(router.match('/api/b/1', 'GET').route, true);
    assert.equal(router.match('/api/a/1', 'GET').route, true);
  });
});
