// GET /fabric/v1/routers merges transit and edge routers into one list that pages like every
// other list: 400 on a limit or offset that is not an integer, and whole pages and the right
// total past MAX_LIMIT routers of one kind.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent } from 'undici';
import { seedDataDir } from '../../bench/lib/seed.js';
import { MAX_LIMIT, NO_LIMIT_REPORTED } from '../../src/domain/paging.js';
import { ApiClient, startTestNode, type TestNode } from '../support/test-node.js';

/** More edge routers than one page of a kind holds. */
const EDGE_ROUTERS = MAX_LIMIT + 20;
const TRANSIT = ['aa-transit', 'er-000250-transit', 'zz-transit'];

// The seeded directory keeps its local log, even in the test command's cluster pass.
const EMBEDDED_LOG = { clusterSecret: undefined };

describe('GET /fabric/v1/routers', () => {
  let dir: string;
  let node: TestNode;
  let dispatcher: Agent;
  let fabric: ApiClient;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-fabric-routers-'));
    const first = await startTestNode({ dataDir: dir, config: EMBEDDED_LOG });
    await first.close();
    await seedDataDir(dir, { identities: 1, services: 1, servicePolicies: 0, edgeRouters: EDGE_ROUTERS, edgeRouterPolicies: 0, serviceEdgeRouterPolicies: 0 });
    node = await startTestNode({ dataDir: dir, config: EMBEDDED_LOG });
    for (const name of TRANSIT) {
      const res = await node.mgmt.post('/transit-routers', { name }, node.adminToken);
      assert.equal(res.status, 201, res.text);
    }
    dispatcher = new Agent({ connect: { ca: node.handle.caPem } });
    fabric = new ApiClient(`${node.handle.url}/fabric/v1`, dispatcher);
  });

  after(async () => {
    await node?.close();
    await dispatcher?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const names = (res: { body: any }): string[] => res.body.data.map((r: { name: string }) => r.name);

  for (const query of ['limit=ten', 'offset=1.5', 'limit=']) {
    it(`answers 400 INVALID_PAGINATION for ${query || 'an empty limit'}`, async () => {
      const res = await fabric.get(`/routers?${query}`, node.adminToken);
      if (query === 'limit=') {
        // An empty parameter is no parameter, as on every list.
        assert.equal(res.status, 200, res.text);
        return;
      }
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'INVALID_PAGINATION');
    });
  }

  it('pages past MAX_LIMIT routers of a kind with whole pages, by name, and the total of both kinds', async () => {
    const total = EDGE_ROUTERS + TRANSIT.length;
    const first = await fabric.get(`/routers?limit=${MAX_LIMIT}`, node.adminToken);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body.meta.pagination, { limit: MAX_LIMIT, offset: 0, totalCount: total });
    const second = await fabric.get(`/routers?limit=${MAX_LIMIT}&offset=${MAX_LIMIT}`, node.adminToken);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.meta.pagination.totalCount, total);
    const all = [...names(first), ...names(second)];
    assert.equal(all.length, total);
    assert.deepEqual(all, [...all].sort(), 'ordered by name across both kinds');
    assert.equal(new Set(all).size, total, 'no router twice');
    for (const name of TRANSIT) assert.ok(all.includes(name), name);
    assert.equal(all[0], 'aa-transit');
    assert.equal(all[total - 1], 'zz-transit');
  });

  it('answers a page in the middle as the same slice of the whole list', async () => {
    const whole = await fabric.get('/routers?limit=-1', node.adminToken);
    assert.equal(whole.status, 200, whole.text);
    assert.ok(whole.text.includes(`"limit":${NO_LIMIT_REPORTED}`), whole.text.slice(-200));
    assert.equal(whole.body.data.length, EDGE_ROUTERS + TRANSIT.length);
    const page = await fabric.get('/routers?limit=7&offset=249', node.adminToken);
    assert.equal(page.status, 200, page.text);
    assert.deepEqual(names(page), names(whole).slice(249, 256));
    assert.ok(names(page).includes('er-000250-transit'), names(page).join());
  });

  /** Every router, page by page, and the first page's meta. */
  async function paged(query: string): Promise<{ items: unknown[]; meta: any }> {
    const items: unknown[] = [];
    let meta: any;
    for (let offset = 0; ; offset += 100) {
      const res = await fabric.get(`/routers?${query}&limit=100&offset=${offset}`, node.adminToken);
      assert.equal(res.status, 200, res.text);
      meta ??= res.body.meta;
      items.push(...(res.body.data as unknown[]));
      if (offset + 100 >= res.body.meta.pagination.totalCount) return { items, meta };
    }
  }

  for (const [name, query, offset] of [
    ['by name', '', 0],
    ['by name descending, from an offset', 'sort=name%20desc', 250],
    ['filtered, by creation time', `filter=${encodeURIComponent('name contains "1" sort by createdAt desc')}`, 3],
  ] as const) {
    it(`limit=-1 streams the bytes of the merged list built whole: ${name}`, async () => {
      const { items, meta } = await paged(query);
      assert.ok(items.length > 100, `only ${items.length} routers`);
      const res = await fabric.get(`/routers?${query}${query ? '&' : ''}limit=-1${offset ? `&offset=${offset}` : ''}`, node.adminToken);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-length'), null, 'the unpaged answer is streamed');
      const whole = { data: items.slice(offset), meta: { ...meta, pagination: { limit: NO_LIMIT_REPORTED, offset, totalCount: items.length } } };
      assert.equal(res.text, JSON.stringify(whole).replace(`"limit":"${NO_LIMIT_REPORTED}"`, `"limit":${NO_LIMIT_REPORTED}`));
    });
  }

  it('merges both kinds in the order asked for', async () => {
    const res = await fabric.get('/routers?limit=3&sort=name%20desc', node.adminToken);
    assert.equal(res.status, 200, res.text);
    assert.equal(names(res)[0], 'zz-transit');
    assert.deepEqual(names(res), [...names(res)].sort().reverse());
  });
});
