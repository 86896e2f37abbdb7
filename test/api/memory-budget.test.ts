// A node under a memory budget far smaller than its data answers every API question exactly as
// the same data served with the default budget, before and after writes: at 4 MiB the packed
// index tree fits while records and links are read from LevelDB through a small LRU; at 1 MiB
// the tree does not fit either, is dropped, and every index range is read from LevelDB.

import assert from 'node:assert/strict';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { seedDataDir } from '../../bench/lib/seed.js';
import { CachedKv } from '../../src/store/cached-kv.js';
import { startTestNode, type TestNode } from '../support/test-node.js';

const SIZES = { identities: 6_000, services: 120, servicePolicies: 80, edgeRouters: 40, edgeRouterPolicies: 30, serviceEdgeRouterPolicies: 20 };
const id = (n: number) => `id-${String(n).padStart(6, '0')}`;
const name = (n: number) => `identity-${String(n).padStart(6, '0')}`;
const q = (filter: string) => encodeURIComponent(filter);

/** The questions asked of both nodes: lists over every index path (range, anyOf with totalCount,
 * in, booleans, sorts, deep offsets, unindexed scans), single records and access questions. */
const QUESTIONS = [
  '/identities?limit=25',
  '/identities?limit=25&offset=5990',
  `/identities?limit=10&filter=${q(`name >= "${name(3000)}" and name < "${name(3600)}" sort by name desc`)}`,
  `/identities?limit=10&offset=590&filter=${q(`name >= "${name(3000)}" and name < "${name(3600)}" sort by name asc`)}`,
  `/identities?limit=10&filter=${q('anyOf(roleAttributes) = "team7"')}`,
  `/identities?limit=10&offset=40&filter=${q('anyOf(roleAttributes) = "team7" sort by id desc')}`,
  `/identities?limit=10&filter=${q('anyOf(roleAttributes) = "team3" sort by name desc')}`,
  `/identities?limit=10&filter=${q('anyOf(roleAttributes) in ["team1", "team2"]')}`,
  `/identities?limit=5&filter=${q('isAdmin = false')}`,
  `/identities?limit=10&filter=${q(`anyOf(roleAttributes) = "team12" and name >= "${name(2000)}" sort by name asc`)}`,
  `/identities?limit=10&offset=200&filter=${q('anyOf(roleAttributes) in ["team4", "team9"] sort by name desc')}`,
  `/identities?limit=5&offset=100&filter=${q('type = "Device" sort by name desc')}`,
  `/services?limit=5&filter=${q('name >= "svc-000050" sort by name desc')}`,
  `/service-policies?limit=5&filter=${q('anyOf(identityRoles) = "#team7"')}`,
  `/identities?limit=5&filter=${q('isAdmin = true')}`,
  `/identities?limit=5&filter=${q('name contains "00042"')}`,
  `/identities?limit=5&filter=${q('createdAt > datetime(2000-01-01T00:00:00Z) sort by createdAt desc')}`,
  '/identity-role-attributes?limit=500',
  '/services?limit=50',
  `/services?limit=10&filter=${q('anyOf(roleAttributes) = "app3"')}`,
  '/service-policies?limit=100',
  '/edge-routers?limit=100',
  ...[0, 17, 999, 4321, 5999].flatMap((n) => [
    `/identities/${id(n)}`,
    `/identities/${id(n)}/services?policyType=dial`,
    `/identities/${id(n)}/services?policyType=bind`,
    `/identities/${id(n)}/service-policies`,
    `/identities/${id(n)}/edge-routers`,
    `/identities/${id(n)}/policy-advice/svc-${String(n % 120).padStart(6, '0')}`,
  ]),
  '/services/svc-000007/identities?limit=10',
  '/service-policies/service-policies-000003/identities?limit=10',
];

/** An answer without what differs between two nodes serving the same data. */
function comparable(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) => (key === 'requestId' || key === 'hasApiSession' || key === 'apiSessions' || key === 'lastActivityAt' || key === 'hasEdgeRouterConnection' ? undefined : value));
}

async function answers(node: TestNode, paths: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const path of paths) {
    const res = await node.mgmt.get(path, node.adminToken);
    out.push({ path, status: res.status, body: comparable(res.body) });
  }
  return out;
}

/** Creates, re-attributes and deletes identities and a policy, the same on either node. */
async function write(node: TestNode): Promise<void> {
  const t = node.adminToken;
  for (let i = 0; i < 5; i++) {
    const res = await node.mgmt.post('/identities', { name: `written-${i}`, type: 'Device', isAdmin: false, roleAttributes: ['team7', `new${i}`] }, t);
    assert.equal(res.status, 201, res.text);
  }
  assert.equal((await node.mgmt.patch(`/identities/${id(17)}`, { roleAttributes: ['team7'] }, t)).status, 200);
  assert.equal((await node.mgmt.delete(`/identities/${id(999)}`, t)).status, 200);
  const policy = { name: 'written-policy', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#team7'], serviceRoles: ['#app3'] };
  assert.equal((await node.mgmt.post('/service-policies', policy, t)).status, 201);
}

/** Written entities get random ids on each node: after the writes, lists are sorted by name and
 * ids, times and links are left out of the comparison. */
const AFTER_WRITES = [
  ...QUESTIONS.filter((path) => path.includes('sort%20by%20name') || (!path.includes('?') && !path.endsWith('/service-policies'))),
  ...['anyOf(roleAttributes) = "team7"', 'anyOf(roleAttributes) in ["team7", "new2"]', 'isAdmin = false', 'name >= "written-0"'].map(
    (filter) => `/identities?limit=10&filter=${q(`${filter} sort by name desc`)}`,
  ),
  `/service-policies?limit=10&filter=${q('name >= "s" sort by name desc')}`,
];

function withoutWrittenIds(list: unknown[]): unknown[] {
  const varying = new Set(['id', 'createdAt', 'updatedAt', '_links', 'requestId']);
  return JSON.parse(JSON.stringify(list), (key, value) => (varying.has(key) ? undefined : value));
}

// Copies of one data directory serve side by side: each keeps the template's local log (a
// cluster's replicas belong to their cluster's log), even in the test command's cluster pass.
const EMBEDDED_LOG = { clusterSecret: undefined };

describe('a node under a memory budget far smaller than its data', () => {
  let template: string;

  before(async () => {
    template = await mkdtemp(join(tmpdir(), 'weft-budget-'));
    // The admin first (the test node's credentials), then the data through the log and apply path.
    const first = await startTestNode({ dataDir: template, config: EMBEDDED_LOG });
    await first.close();
    await seedDataDir(template, SIZES);
  });

  after(async () => {
    await rm(template, { recursive: true, force: true });
  });

  async function serve(cacheMb: number): Promise<{ node: TestNode; dir: string }> {
    const dir = `${template}-${cacheMb}`;
    await cp(template, dir, { recursive: true });
    return { node: await startTestNode({ dataDir: dir, config: { cacheMb, ...EMBEDDED_LOG } }), dir };
  }

  it('answers every question as the same data served with the default budget, before and after writes', async () => {
    const results: { before: unknown[]; after: unknown[] }[] = [];
    for (const [cacheMb, indexInMemory] of [[512, true], [4, true], [1, false]] as const) {
      const { node, dir } = await serve(cacheMb);
      try {
        const kv = node.handle.replica.kv;
        assert.ok(kv instanceof CachedKv);
        await kv.whenWarm();
        assert.equal(kv.indexInMemory, indexInMemory, `index tree in memory at ${cacheMb} MiB`);
        const before = await answers(node, QUESTIONS);
        await write(node);
        results.push({ before, after: withoutWrittenIds(await answers(node, AFTER_WRITES)) });
      } finally {
        await node.close();
        await rm(dir, { recursive: true, force: true });
      }
    }
    const [full, ...budgets] = results;
    // The questions see the data: full pages, totals, access answers.
    const first = full.before[4] as { status: number; body: { data: unknown[]; meta: { pagination: { totalCount: number } } } };
    assert.equal(first.status, 200);
    assert.equal(first.body.data.length, 10);
    assert.ok(first.body.meta.pagination.totalCount > 10);
    for (const budget of budgets) {
      for (let i = 0; i < QUESTIONS.length; i++) assert.deepEqual(budget.before[i], full.before[i], QUESTIONS[i]);
      for (let i = 0; i < AFTER_WRITES.length; i++) assert.deepEqual(budget.after[i], full.after[i], AFTER_WRITES[i]);
    }
  });
});
