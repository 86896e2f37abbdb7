// /database over HTTPS: the integrity check finds corruption written straight into the
// replica's store (a dangling index entry, a missing one, a stale access link, a record naming
// a deleted entity), the fix repairs it through the log, one run at a time; snapshots are
// rate limited; everything is admin only.

import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Entity } from '../../src/domain/commands.js';
import { indexedEntries } from '../../src/store/apply.js';
import { resourceOf } from '../../src/domain/registry.js';
import { entityPoliciesKey, indexKey, policyLinkKey, recordKey } from '../../src/store/keys.js';
import { startTestNode, type TestNode } from '../support/test-node.js';

async function results(node: TestNode): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const res = await node.mgmt.get('/database/data-integrity-results', node.adminToken);
    assert.equal(res.status, 200, res.text);
    if (!res.body.data.inProgress) return res.body;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the integrity run did not finish');
}

async function run(node: TestNode, path: 'check' | 'fix'): Promise<any> {
  const res = await node.mgmt.post(`/database/${path}-data-integrity`, undefined, node.adminToken);
  assert.equal(res.status, 202, res.text);
  assert.deepEqual(res.body.data, {});
  return results(node);
}

describe('/database', () => {
  let node: TestNode;
  let ids: { alice: string; bob: string; web: string; policy: string };
  before(async () => {
    node = await startTestNode();
    const t = node.adminToken;
    const id = async (path: string, body: unknown) => {
      const res = await node.mgmt.post(path, body, t);
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    };
    const alice = await id('/identities', { name: 'alice', type: 'User', isAdmin: false, roleAttributes: ['sales'] });
    const bob = await id('/identities', { name: 'bob', type: 'User', isAdmin: false });
    const web = await id('/services', { name: 'web', encryptionRequired: true });
    const policy = await id('/service-policies', { name: 'sales-web', type: 'Dial', semantic: 'AllOf', identityRoles: ['#sales'], serviceRoles: [`@${web}`] });
    ids = { alice, bob, web, policy };
  });
  after(async () => {
    await node.close();
  });

  it('reports nothing before the first run, then a clean check', async () => {
    const first = await node.mgmt.get('/database/data-integrity-results', node.adminToken);
    assert.equal(first.status, 200);
    assert.equal(first.body.data.inProgress, false);
    assert.deepEqual(first.body.meta.pagination, { limit: -1, offset: 0, totalCount: 0 });
    const clean = await run(node, 'check');
    assert.deepEqual(clean.data.results, []);
    assert.equal(clean.data.fixingErrors, false);
    assert.equal(clean.data.tooManyErrors, false);
    assert.equal(clean.data.error, '');
    assert.ok(clean.data.startTime <= clean.data.endTime);
  });

  it('stays clean after API sessions whose authenticator is deleted or reverted to an enrollment (their sessions go with it, as upstream)', async () => {
    const t = node.adminToken;
    const deleted = await node.createUser('auth-deleted');
    const reverted = await node.createUser('auth-reverted');
    const authOf = async (identityId: string) => (await node.mgmt.get(`/identities/${identityId}/authenticators`, t)).body.data[0].id as string;
    assert.equal((await node.mgmt.delete(`/authenticators/${await authOf(deleted.id)}`, t)).status, 200);
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal((await node.mgmt.post(`/authenticators/${await authOf(reverted.id)}/re-enroll`, { expiresAt }, t)).status, 201);
    for (const user of [deleted, reverted]) {
      assert.equal((await node.client.get('/current-api-session', user.token)).status, 401);
      const sessions = await node.mgmt.get(`/identities/${user.id}/api-sessions`, t);
      assert.equal(sessions.body.meta.pagination.totalCount, 0);
    }
    assert.deepEqual((await run(node, 'check')).data.results, []);
  });

  it('finds each corruption written into the store, and fix repairs all of them', async () => {
    const { alice, bob, web, policy } = ids;
    const orphan: Entity = { id: 'orphan-auth', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', tags: {}, identityId: 'deleted-identity', method: 'updb', username: 'orphan-user', fingerprint: null };
    const orphanKeys = indexedEntries(resourceOf('authenticators'), orphan).map((e) => ({ type: 'put' as const, key: e.key, value: e.unique ?? '' }));
    await node.handle.replica.kv.batch([
      { type: 'put', key: indexKey('identities', 'name', 'ghost', 'no-such-identity'), value: '' },
      { type: 'del', key: indexKey('identities', 'name', 'bob', bob) },
      { type: 'put', key: policyLinkKey('service-policies', policy, 'identities', bob), value: '' },
      { type: 'put', key: entityPoliciesKey('identities', bob, 'service-policies'), value: policy },
      { type: 'put', key: recordKey('authenticators', orphan.id), value: JSON.stringify(orphan) },
      ...orphanKeys,
    ]);
    // Written behind the replica's back: drop the lists and records it kept from the store.
    node.handle.replica.dropKeptReads();
    // The missing index entry hides bob from an indexed lookup until the fix.
    const hidden = await node.mgmt.get('/identities?filter=name%3D%22bob%22', node.adminToken);
    assert.equal(hidden.body.data.length, 0);
    const policyIdentities = async () => (await node.mgmt.get(`/service-policies/${policy}/identities`, node.adminToken)).body.data.map((i: { id: string }) => i.id).sort();
    assert.deepEqual(await policyIdentities(), [alice, bob].sort(), 'the stale link makes bob look selected');

    const found = await run(node, 'check');
    const descriptions: string[] = found.data.results.map((r: { description: string }) => r.description);
    const expect = [
      /stale index entry identities\.name = "ghost" naming no-such-identity/,
      new RegExp(`identity ${bob}: index entry identities\\.name = "bob" is missing`),
      new RegExp(`stale access link service-policies / ${policy} / identities / ${bob}`),
      new RegExp(`stale access list identities / ${bob} / service-policies = \\[${policy}\\]`),
      /authenticator orphan-auth: identityId references missing identity deleted-identity/,
      /count of authenticators is \d+ \(\d+ in memory\) but \d+ records exist/,
    ];
    for (const pattern of expect) assert.ok(descriptions.some((d) => pattern.test(d)), `${pattern} not in:\n${descriptions.join('\n')}`);
    assert.ok(found.data.results.every((r: { fixed: boolean }) => r.fixed === false));
    assert.equal(found.meta.pagination.totalCount, found.data.results.length);

    const fixed = await run(node, 'fix');
    assert.equal(fixed.data.fixingErrors, true);
    assert.equal(fixed.data.results.length, found.data.results.length);
    assert.ok(fixed.data.results.every((r: { fixed: boolean }) => r.fixed), JSON.stringify(fixed.data.results, null, 2));

    const clean = await run(node, 'check');
    assert.deepEqual(clean.data.results, []);
    const visible = await node.mgmt.get('/identities?filter=name%3D%22bob%22', node.adminToken);
    assert.deepEqual(visible.body.data.map((i: { id: string }) => i.id), [bob]);
    assert.deepEqual(await policyIdentities(), [alice]);
    assert.equal((await node.mgmt.get('/authenticators/orphan-auth', node.adminToken)).status, 404);
    assert.equal((await node.mgmt.get(`/services/${web}`, node.adminToken)).status, 200);
    const snapshots = `${node.dataDir}/snapshots`;
    assert.ok(existsSync(snapshots), 'the fix wrote a snapshot first');
  });

  it('a second start while a run is under way gets 429 RATE_LIMITED', async () => {
    // Enough identities that a fix (snapshot first, then the scan) takes a while.
    await Promise.all(Array.from({ length: 60 }, (_, i) => node.mgmt.post('/identities', { name: `bulk-${i}`, type: 'User', isAdmin: false }, node.adminToken)));
    const [first, second] = await Promise.all([
      node.mgmt.post('/database/fix-data-integrity', undefined, node.adminToken),
      node.mgmt.post('/database/check-data-integrity', undefined, node.adminToken),
    ]);
    assert.deepEqual([first.status, second.status].sort(), [202, 429]);
    const refused = first.status === 429 ? first : second;
    assert.equal(refused.body.error.code, 'RATE_LIMITED');
    assert.equal(refused.headers.get('retry-after'), '1');
    await results(node);
  });

  it('writes an owner-only snapshot and refuses another within 30 s', async () => {
    const res = await node.mgmt.post('/database/snapshot', undefined, node.adminToken);
    assert.equal(res.status, 200, res.text);
    const { path, appliedSeq } = res.body.data;
    assert.ok(path.startsWith(`${node.dataDir}/snapshots/`));
    assert.equal(statSync(path).mode & 0o777, 0o700);
    assert.ok(appliedSeq > 0);
    const again = await node.mgmt.post('/database/snapshot', undefined, node.adminToken);
    assert.equal(again.status, 429);
    assert.equal(again.body.error.code, 'RATE_LIMITED');
    const wait = Number(again.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 30, `Retry-After ${wait}`);
  });

  it('is admin only (401 for a non-admin, as upstream)', async () => {
    const user = await node.createUser('not-an-admin');
    for (const [method, path] of [
      ['POST', '/database/check-data-integrity'],
      ['POST', '/database/fix-data-integrity'],
      ['GET', '/database/data-integrity-results'],
      ['POST', '/database/snapshot'],
    ] as const) {
      const res = await node.mgmt.request(method, path, { token: user.token });
      assert.equal(res.status, 401, `${method} ${path}`);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
    }
    assert.equal((await node.mgmt.post('/database/snapshot', undefined)).status, 401);
  });
});
