// The gateway's router dispatch must leave a request exactly as @koa/router's own middleware does:
// the same handlers run, with the same params, captures and matched-route fields on the context,
// and requests it does not take directly (no route, several routes) fall through unchanged.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { dispatchByPrefix, routeMiddleware } from '../../../src/gateway/routes/prefix-dispatch.js';

/** What a handler saw of the context. */
type Seen = Record<string, unknown>;

function fakeContext(method: string, path: string): Record<string, unknown> {
  return { method, path, host: 'localhost', request: {}, state: {}, status: 404, set: () => undefined };
}

function recordingRouter(prefix: string, seen: Seen[]): Router {
  const router = new Router({ prefix });
  const record = (label: string): Middleware => async (ctx) => {
    const c = ctx as unknown as Record<string, unknown>;
    seen.push({
      label,
      params: { ...(c.params as object) },
      requestParams: { ...((c.request as Record<string, unknown>).params as object) },
      captures: c.captures,
      routerPath: c.routerPath,
      routerName: c.routerName,
      matchedRoute: c._matchedRoute,
      matchedRouteName: c._matchedRouteName,
      routeMatched: c.routeMatched,
      matched: (c.matched as Array<{ path: unknown }>).map((l) => l.path),
    });
  };
  const auth: Middleware = async (ctx, next) => {
    (ctx.state as Record<string, unknown>).checked = true;
    await next();
  };
  router.get('/items', record('list'));
  router.get('item', '/items/:id', record('get'));
  router.get('/items/:id/parts/:part', auth as never, record('part'));
  router.post('/dupes', record('first'));
  router.post('/dupes', record('second'));
  return router;
}

async function run(middleware: Middleware, method: string, path: string): Promise<{ seen: Seen[]; fellThrough: boolean; state: unknown }> {
  const ctx = fakeContext(method, path);
  let fellThrough = false;
  await middleware(ctx as never, async () => {
    fellThrough = true;
  });
  return { seen: [], fellThrough, state: ctx.state };
}

describe('routeMiddleware', () => {
  const cases: Array<[string, string]> = [
    ['GET', '/api/items'],
    ['GET', '/api/items/a%20b'],
    ['HEAD', '/api/items/x'],
    ['GET', '/API/ITEMS/Upper'],
    ['GET', '/api/items/7/parts/%E2%9C%93'],
    ['POST', '/api/dupes'],
    ['GET', '/api/nothing'],
    ['DELETE', '/api/items/1'],
  ];
  for (const [method, path] of cases) {
    it(`${method} ${path} sees what @koa/router's own middleware gives`, async () => {
      const mine: Seen[] = [];
      const theirs: Seen[] = [];
      const got = await run(routeMiddleware(recordingRouter('/api', mine)), method, path);
      const want = await run(recordingRouter('/api', theirs).routes() as unknown as Middleware, method, path);
      assert.deepEqual(mine, theirs);
      assert.equal(got.fellThrough, want.fellThrough);
      assert.deepEqual(got.state, want.state);
    });
  }

  it('answers the single-route case itself, with the decoded parameter', async () => {
    const seen: Seen[] = [];
    await run(routeMiddleware(recordingRouter('/api', seen)), 'GET', '/api/items/a%20b');
    assert.equal(seen.length, 1);
    assert.deepEqual(seen[0].params, { id: 'a b' });
    assert.equal(seen[0].matchedRouteName, 'item');
  });
});

describe('dispatchByPrefix', () => {
  it('runs only the router whose prefix the path is under, and the fallback for the rest', async () => {
    const a: Seen[] = [];
    const b: Seen[] = [];
    const root: Seen[] = [];
    const mount = (prefix: string, seen: Seen[]) => {
      const router = recordingRouter(prefix, seen);
      return { prefix, router, allowedMethods: router.allowedMethods() };
    };
    const dispatch = dispatchByPrefix([mount('/a', a), mount('/b', b), mount('', root)]);
    await run(dispatch, 'GET', '/a/items/1');
    await run(dispatch, 'GET', '/B/items');
    await run(dispatch, 'GET', '/items/2');
    assert.deepEqual([a.length, b.length, root.length], [1, 1, 1]);
    assert.deepEqual(a[0].params, { id: '1' });
    assert.equal(b[0].label, 'list');
    assert.deepEqual(root[0].params, { id: '2' });
    const missed = await run(dispatch, 'GET', '/a/none');
    assert.equal(missed.fellThrough, true);
  });
});
