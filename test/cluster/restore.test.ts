// Restoring a whole cluster from a snapshot, as deploy/README.md tells it: every node's data is
// lost while NATS (the log and the cluster record) survives; one node starts on a data directory
// made of a database snapshot and the cluster marker, replays the log after the snapshot, and a
// fresh node joins from it. Real processes: one nats-server, Weft nodes as child processes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliNode } from '../support/cli-node.js';
import { CliCluster } from '../support/cli-cluster.js';

const SECRET = 'restore-test-cluster-secret-0123456789abcdef';
const PASSWORD = 'admin-pass-1';

describe('cluster: restoring every node from a snapshot', { timeout: 240_000 }, () => {
  let cluster: CliCluster;
  let root: string;
  const start = (dir: string) => cluster.start(dir);
  const create = async (node: CliNode, token: string, name: string) => {
    const res = await node.request('POST', '/identities', { name, type: 'User', isAdmin: false }, token);
    assert.equal(res.status, 201, res.text);
  };
  const names = async (node: CliNode, token: string) => {
    const res = await node.request('GET', '/identities?filter=name contains "restore-"&limit=100', undefined, token);
    assert.equal(res.status, 200, res.text);
    return (res.body.data as { name: string }[]).map((i) => i.name).sort();
  };

  before(async () => {
    cluster = await CliCluster.start({ env: { WEFT_CLUSTER_SECRET: SECRET, WEFT_CLUSTER_NAME: 'restore', WEFT_ADMIN_PASSWORD: PASSWORD, WEFT_WORKER_THREADS: '1' } });
    root = cluster.root;
  });
  after(() => cluster?.close());

  it('a node started on a snapshot and the cluster marker replays the log after it; a fresh node joins from it', async () => {
    const a = await start('a');
    const token = await a.login('admin', PASSWORD);
    await create(a, token, 'restore-before');
    const snap = await a.request('POST', '/database/snapshot', undefined, token);
    assert.equal(snap.status, 200, snap.text);
    const snapshot = snap.body.data as { path: string; appliedSeq: number };
    await create(a, token, 'restore-after');
    // Backup: the snapshot and the marker; then every node's data is lost.
    await cp(snapshot.path, join(root, 'backup', 'replica'), { recursive: true });
    await cp(join(root, 'a', 'cluster.json'), join(root, 'backup', 'cluster.json'));
    await a.stop('SIGKILL');
    await rm(join(root, 'a'), { recursive: true, force: true });

    await mkdir(join(root, 'restored'), { mode: 0o700 });
    await cp(join(root, 'backup', 'cluster.json'), join(root, 'restored', 'cluster.json'));
    await cp(join(root, 'backup', 'replica'), join(root, 'restored', 'replica'), { recursive: true });
    const restored = await start('restored');
    assert.doesNotMatch(restored.stdout(), /joined from a peer snapshot/);
    const rToken = await restored.login('admin', PASSWORD);
    assert.deepEqual(await names(restored, rToken), ['restore-after', 'restore-before'], 'the snapshot, then the log after it');

    const fresh = await start('fresh');
    assert.match(fresh.stdout(), /joined from a peer snapshot/);
    const fToken = await fresh.login('admin', PASSWORD);
    assert.deepEqual(await names(fresh, fToken), ['restore-after', 'restore-before']);
    await create(fresh, fToken, 'restore-later');
    assert.deepEqual(await names(restored, rToken), ['restore-after', 'restore-before', 'restore-later']);
  });
});
