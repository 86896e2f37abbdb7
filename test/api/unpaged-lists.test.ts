// Unpaged lists (`limit=-1`, `limit none`) over many records: the answer streams chunk by chunk,
// holds exactly the items paging through the list gives, in the same order and with the bytes a
// whole `{data, meta}` would have, and the event loop keeps turning while it is written.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { seedDataDir } from '../../bench/lib/seed.js';
import { NO_LIMIT_REPORTED } from '../../src/domain/paging.js';
import { startTestNode, type TestNode } from '../support/test-node.js';

/** Enough identities for an answer of many chunks (a chunk is at most 10 ms or 256 KiB of JSON). */
const IDENTITIES = 3_000;
const PAGE = 500;

// The seeded directory keeps its local log, even in the test command's cluster pass.
const EMBEDDED_LOG = { clusterSecret: undefined };

const q = (filter: string) => `filter=${encodeURIComponent(filter)}`;

describe('unpaged lists over many records', () => {
  let dir: string;
  let node: TestNode;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-unpaged-'));
    const first = await startTestNode({ dataDir: dir, config: EMBEDDED_LOG });
    await first.close();
    await seedDataDir(dir, { identities: IDENTITIES, services: 20, servicePolicies: 10, edgeRouters: 5, edgeRouterPolicies: 5, serviceEdgeRouterPolicies: 5 });
    node = await startTestNode({ dataDir: dir, config: EMBEDDED_LOG });
  });

  after(async () => {
    await node?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Every item of a list, page by page. */
  async function paged(path: string, query: string): Promise<unknown[]> {
    const items: unknown[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const res = await node.mgmt.get(`${path}?${query}&limit=${PAGE}&offset=${offset}`, node.adminToken);
      assert.equal(res.status, 200, res.text);
      items.push(...(res.body.data as unknown[]));
      if (res.body.data.length < PAGE) return items;
    }
  }

  /** The exact text sendData writes for these items as one unpaged answer. */
  function wholeAnswer(items: unknown[], filterableFields: unknown, offset = 0): string {
    const meta = { apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1', filterableFields, pagination: { limit: NO_LIMIT_REPORTED, offset, totalCount: items.length + offset } };
    return JSON.stringify({ data: items, meta }).replace(`"limit":"${NO_LIMIT_REPORTED}"`, `"limit":${NO_LIMIT_REPORTED}`);
  }

  const cases: [string, string][] = [
    ['every identity in id order', ''],
    ['by an indexed field, descending', q('true sort by name desc')],
    ['by two fields (no index gives the order)', q('true sort by isAdmin desc, name asc')],
    ['a filter on an indexed set', q('anyOf(roleAttributes) = "team1"')],
    ['a filter no index answers, by a field without an index', q('name contains "9" sort by isDefaultAdmin asc, name desc')],
  ];
  for (const [name, query] of cases) {
    it(`limit=-1 answers exactly the items paging gives: ${name}`, async () => {
      const expected = await paged('/identities', query);
      assert.ok(expected.length > 50, `only ${expected.length} items`);
      const res = await node.mgmt.get(`/identities?${query}${query ? '&' : ''}limit=-1`, node.adminToken);
      assert.equal(res.status, 200);
      const first = await node.mgmt.get(`/identities?${query}${query ? '&' : ''}limit=1`, node.adminToken);
      assert.equal(res.text, wholeAnswer(expected, first.body.meta.filterableFields));
    });
  }

  it('`limit none` in the filter and an offset answer the same items as paging', async () => {
    const expected = await paged('/identities', q('isAdmin = false sort by name'));
    const res = await node.mgmt.get(`/identities?${q('isAdmin = false sort by name skip 2000 limit none')}`, node.adminToken);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, expected.slice(2000));
    assert.equal(res.body.meta.pagination.offset, 2000);
    assert.equal(res.body.meta.pagination.totalCount, expected.length);
  });

  it('a related list streams as well (the identities a policy selects)', async () => {
    for (const id of ['edge-router-policies-000000', 'edge-router-policies-000001']) {
      const path = `/edge-router-policies/${id}/identities`;
      const expected = await paged(path, '');
      assert.ok(expected.length > 0);
      const res = await node.mgmt.get(`${path}?limit=-1`, node.adminToken);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.meta.pagination.totalCount, expected.length);
      assert.deepEqual(res.body.data, expected);
    }
  });

  it('an invalid filter on an unpaged list is a 400 before any answer starts', async () => {
    const res = await node.mgmt.get(`/identities?${q('nope = 1')}&limit=-1`, node.adminToken);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'INVALID_FILTER');
  });

  it('keeps the event loop turning while it writes the whole list', async () => {
    // The event loop's longest delay during the list, compared with the list's own duration:
    // an answer built in one piece stalls the loop for most of it, a streamed one for a slice.
    const histogram = monitorEventLoopDelay({ resolution: 5 });
    histogram.enable();
    const started = performance.now();
    const res = await node.mgmt.get(`/identities?${q('true sort by isAdmin desc, name asc')}&limit=-1`, node.adminToken);
    const durationMs = performance.now() - started;
    histogram.disable();
    assert.equal(res.status, 200);
    assert.equal(res.body.data.length, IDENTITIES + 1);
    const stallMs = histogram.max / 1e6;
    assert.ok(stallMs < durationMs / 3, `event loop stalled ${stallMs.toFixed(1)} ms during a ${durationMs.toFixed(0)} ms list`);
  });
});
