// Restoring a snapshot (README "Restoring a snapshot"): take one, write more, then start a node
// on a fresh data dir holding the snapshot as its replica and the old log. The snapshot is a
// point-in-time copy, and the restored node replays the log past it: every entity is back.

import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RESOURCES } from '../../src/domain/registry.js';
import { APPLIED_SEQ_KEY, recordKey } from '../../src/store/keys.js';
import { LevelKv } from '../../src/store/level-kv.js';
import { startTestNode, type TestNode } from '../support/test-node.js';

const LISTED = RESOURCES.filter((r) => r.ops.list && r.kind !== 'api-sessions').map((r) => r.kind);

async function contents(node: TestNode): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const kind of LISTED) {
    const res = await node.mgmt.get(`/${kind}?limit=500`, node.adminToken);
    assert.equal(res.status, 200, `${kind}: ${res.text}`);
    out[kind] = res.body.data.map((e: { id: string }) => e.id).sort();
    assert.equal(res.body.meta.pagination.totalCount, out[kind]!.length, `${kind} fits one page`);
  }
  return out;
}

// Restoring a snapshot with the local log after it is the embedded node's procedure (a cluster
// node re-joins from its peers and the cluster log instead), so these nodes keep a local log
// even in the test command's cluster pass.
const EMBEDDED_LOG = { clusterSecret: undefined };

describe('restoring a snapshot', () => {
  const dirs: string[] = [];
  const nodes: TestNode[] = [];
  after(async () => {
    for (const n of nodes) await n.close().catch(() => undefined);
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('brings back every entity: the snapshot plus the log entries after it', async () => {
    const oldDir = await mkdtemp(join(tmpdir(), 'weft-restore-old-'));
    const newDir = await mkdtemp(join(tmpdir(), 'weft-restore-new-'));
    dirs.push(oldDir, newDir);
    const a = await startTestNode({ dataDir: oldDir, config: EMBEDDED_LOG });
    nodes.push(a);
    const create = async (path: string, body: unknown) => {
      const res = await a.mgmt.post(path, body, a.adminToken);
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    };
    for (let i = 0; i < 5; i++) await create('/identities', { name: `before-${i}`, type: 'User', isAdmin: false, roleAttributes: ['team'] });
    const web = await create('/services', { name: 'web', encryptionRequired: true });
    await create('/service-policies', { name: 'p', type: 'Dial', semantic: 'AllOf', identityRoles: ['#team'], serviceRoles: [`@${web}`] });

    const snap = await a.mgmt.post('/database/snapshot', undefined, a.adminToken);
    assert.equal(snap.status, 200, snap.text);
    const { path: snapshotPath, appliedSeq } = snap.body.data;

    const later: string[] = [];
    for (let i = 0; i < 5; i++) later.push(await create('/identities', { name: `after-${i}`, type: 'User', isAdmin: false, roleAttributes: ['team'] }));
    await create('/config-types', { name: 'after-type' });
    const expected = await contents(a);
    const summary = (await a.mgmt.get('/summary', a.adminToken)).body.data;
    const services = (await a.mgmt.get(`/identities/${later[0]}/services`, a.adminToken)).body.data.map((s: { id: string }) => s.id);
    assert.deepEqual(services, [web]);
    await a.close();
    nodes.pop();

    // The snapshot is the state at its sequence: nothing written after it is inside.
    assert.equal((await stat(snapshotPath)).mode & 0o777, 0o700);
    const copy = new LevelKv({ path: snapshotPath });
    await copy.open();
    assert.equal(await copy.get(APPLIED_SEQ_KEY), String(appliedSeq));
    assert.equal(await copy.get(recordKey('identities', later[0]!)), undefined);
    await copy.close();

    // Restore: the snapshot as the replica, the old log kept.
    await cp(snapshotPath, join(newDir, 'replica'), { recursive: true });
    await cp(join(oldDir, 'log'), join(newDir, 'log'), { recursive: true });
    const b = await startTestNode({ dataDir: newDir, config: EMBEDDED_LOG });
    nodes.push(b);
    assert.deepEqual(await contents(b), expected);
    // Node b's own admin login adds one API session; every other count is equal.
    const restoredSummary = (await b.mgmt.get('/summary', b.adminToken)).body.data;
    assert.deepEqual({ ...restoredSummary, apiSessions: restoredSummary.apiSessions - 1 }, summary);
    assert.ok(b.handle.replica.appliedSeq > appliedSeq, 'the log past the snapshot was replayed');
    const restoredServices = (await b.mgmt.get(`/identities/${later[0]}/services`, b.adminToken)).body.data.map((s: { id: string }) => s.id);
    assert.deepEqual(restoredServices, [web], 'the access index was rebuilt by the replay');
    const check = await b.mgmt.post('/database/check-data-integrity', undefined, b.adminToken);
    assert.equal(check.status, 202);
    let details: any;
    do {
      await new Promise((r) => setTimeout(r, 20));
      details = (await b.mgmt.get('/database/data-integrity-results', b.adminToken)).body.data;
    } while (details.inProgress);
    assert.deepEqual(details.results, []);
  });
});
