// Operating a cluster of three in-process nodes on a three-server JetStream cluster: readiness
// and metrics per node, `weft cluster status`, `weft cluster remove` handing a node's shards over
// under a write load with no write failing, and readiness following a node's NATS connection.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startNatsCluster, type NatsClusterHandle } from '../support/nats-cluster.js';
import { ADMIN, ApiClient, startTestNode, type TestNode } from '../support/test-node.js';
import { until } from '../support/until.js';
import { weftCli } from '../support/weft-cli.js';

const SECRET = 'operations-test-cluster-secret-0123456789';
const WAIT_MS = 30_000;

/** Bounded waits of this file: WAIT_MS, probing every 200 ms. */
const WAITING = { timeoutMs: WAIT_MS, everyMs: 200 };

describe('cluster operations: readiness, status and removing a member', () => {
  let nats: NatsClusterHandle;
  let dir: string;
  const nodes = new Map<string, TestNode>();
  const root = (node: TestNode) => new ApiClient(node.handle.url, (node.mgmt as any).dispatcher);
  const start = async (id: string, natsUrl = nats.urls.join(',')) => {
    const node = await startTestNode({ natsUrl, config: { clusterSecret: SECRET, clusterReplicas: 3, nodeId: id, workerThreads: 1 } });
    nodes.set(id, node);
    return node;
  };
  const status = async (via: TestNode) => {
    const res = await via.mgmt.get('/cluster', via.adminToken);
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };
  /** Runs `weft` in-process; returns exit code and output. */
  const weft = (args: string[]) => weftCli(join(dir, 'session.json'))(args);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-cluster-ops-'));
    nats = await startNatsCluster(3);
    for (const id of ['ops-a', 'ops-b', 'ops-c']) await start(id);
    const a = nodes.get('ops-a')!;
    await writeFile(join(dir, 'ca.pem'), a.handle.caPem);
    const login = await weft(['login', '--url', a.handle.url, '--ca', join(dir, 'ca.pem'), '--username', ADMIN.username, '--password', ADMIN.password]);
    assert.equal(login.code, 0, login.err);
  });
  after(async () => {
    for (const node of nodes.values()) await node.close().catch(() => undefined);
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('every node becomes ready, and the status shows three ready members sharing the 64 shards', async () => {
    for (const node of nodes.values()) {
      await until('readiness', async () => ((await root(node).get('/readyz')).status === 200 ? true : undefined), WAITING);
    }
    const seen = await until('three ready members owning every shard', async () => {
      const s = await status(nodes.get('ops-b')!);
      return s.members.length === 3 && s.members.every((m: any) => m.ready && m.shards > 0) && s.shards.unowned === 0 ? s : undefined;
    }, WAITING);
    assert.deepEqual(seen.members.map((m: any) => m.id).sort(), ['ops-a', 'ops-b', 'ops-c']);
    assert.equal(seen.members.reduce((n: number, m: any) => n + m.shards, 0), 64);
    assert.equal(seen.stream.name, 'weft-weft-log');
    assert.equal(seen.stream.replicas, 3);
    assert.ok(seen.stream.lastSeq >= 1, 'the bootstrap wrote to the log');
    assert.match(String(seen.stream.leader), /^n[123]$/);
    for (const m of seen.members) assert.ok(m.lag !== null && m.lag >= 0);
  });

  it('GET /metrics of a node reports members, its shards, readiness and the log sequences', async () => {
    const a = nodes.get('ops-a')!;
    const owned = (await status(a)).members.find((m: any) => m.id === 'ops-a').shards;
    const text = (await root(a).get('/metrics')).text;
    assert.match(text, /^weft_cluster_members\{state="live"\} 3$/m);
    assert.match(text, /^weft_cluster_members\{state="ready"\} 3$/m);
    assert.match(text, new RegExp(`^weft_cluster_shards_owned ${owned}$`, 'm'));
    assert.match(text, /^weft_node_ready 1$/m);
    assert.match(text, /^weft_log_last_seq [1-9]\d*$/m);
    assert.match(text, /^weft_snapshot_transfers_total\{direction="received",result="ok"\} 0$/m);
  });

  it('weft cluster status prints the members and the stream as a table and as JSON', async () => {
    const table = await weft(['cluster', 'status', '--output', 'table']);
    assert.equal(table.code, 0, table.err);
    assert.match(table.out, /^ID\s+VERSION\s+READY\s+REASON\s+APPLIED_SEQ\s+LAG\s+SHARDS\s+ONLINE_SINCE\s+ADDRESS$/m);
    for (const id of ['ops-a', 'ops-b', 'ops-c']) assert.match(table.out, new RegExp(`^${id}\\s+\\S+\\s+true\\s`, 'm'));
    assert.match(table.out, /^weft-weft-log\s+\d+\s+\d+/m);
    const json = await weft(['cluster', 'status']);
    assert.equal(json.code, 0, json.err);
    assert.equal(JSON.parse(json.out).members.length, 3);
  });

  it('weft cluster remove hands the node\'s shards over while writes go on, and none fails', async () => {
    const b = nodes.get('ops-b')!;
    const c = nodes.get('ops-c')!;
    const failures: string[] = [];
    const created: string[] = [];
    let writing = true;
    // Writes through every node, C included, until C has stopped.
    const writer = async (via: () => TestNode | undefined, tag: string) => {
      for (let i = 0; writing; i++) {
        const node = via();
        if (!node) break;
        const res = await node.mgmt.post('/identities', { name: `ops-${tag}-${i}`, type: 'User', isAdmin: false }, node.adminToken);
        if (res.status === 201) created.push(res.body.data.id);
        else failures.push(`${tag}: ${res.status} ${res.text}`);
      }
    };
    let cAlive = true;
    const writers = [writer(() => b, 'b'), writer(() => (cAlive ? c : undefined), 'c')];
    await until('some writes before the removal', async () => (created.length >= 10 ? true : undefined), WAITING);
    const removed = await weft(['cluster', 'remove', 'ops-c', '--timeout', '30']);
    assert.equal(removed.code, 0, removed.err);
    assert.deepEqual(JSON.parse(removed.out), { id: 'ops-c', draining: true, shards: 0, left: false });
    const drained = await root(c).get('/readyz');
    assert.equal(drained.status, 503);
    assert.equal(drained.body.data.reason, 'DRAINING');
    const s = await status(nodes.get('ops-a')!);
    assert.deepEqual(Object.keys(s.shards.owners).sort(), ['ops-a', 'ops-b']);
    assert.equal(s.shards.unowned, 0);
    assert.equal(s.members.find((m: any) => m.id === 'ops-c').draining, true);
    const before = created.length;
    await until('writes after the removal', async () => (created.length >= before + 10 ? true : undefined), WAITING);
    cAlive = false;
    await new Promise((r) => setTimeout(r, 50));
    await c.close();
    nodes.delete('ops-c');
    const afterStop = created.length;
    await until('writes after the node stopped', async () => (created.length >= afterStop + 10 ? true : undefined), WAITING);
    writing = false;
    await Promise.all(writers);
    assert.deepEqual(failures, []);
    const a = nodes.get('ops-a')!;
    for (const id of created) assert.equal((await a.mgmt.get(`/identities/${id}`, a.adminToken)).status, 200, `identity ${id} was acknowledged`);
  });

  it('weft cluster remove refuses an unknown node id (404)', async () => {
    const res = await weft(['cluster', 'remove', 'no-such-node']);
    assert.equal(res.code, 1);
    assert.match(res.err, /404|NOT_FOUND|no live cluster member/);
  });

  it('a node is not ready while it has lost NATS (live all the while) and ready again once back and caught up', async () => {
    const d = await start('ops-d', nats.urls[2]);
    await until('D ready', async () => ((await root(d).get('/readyz')).status === 200 ? true : undefined), WAITING);
    await nats.killServer(2);
    const down = await until('D not ready', async () => {
      const res = await root(d).get('/readyz');
      return res.status === 503 ? res.body.data : undefined;
    }, WAITING);
    assert.ok(['NATS_UNREACHABLE', 'LOG_UNREADABLE'].includes(down.reason), down.reason);
    assert.equal((await root(d).get('/healthz')).status, 200, 'losing NATS does not make the node dead');
    // A may itself have been connected to the killed server: while it reconnects it answers 503
    // with Retry-After, and a client sends again, as here.
    const a = nodes.get('ops-a')!;
    for (let i = 0; i < 20; i++) {
      const res = await until('a write through A', async () => {
        const r = await a.mgmt.post('/identities', { name: `while-d-away-${i}`, type: 'User', isAdmin: false }, a.adminToken);
        return r.status === 503 && r.headers.get('retry-after') ? undefined : r;
      }, WAITING);
      assert.equal(res.status, 201, res.text);
    }
    await nats.restartServer(2);
    const back = await until('D ready again', async () => {
      const res = await root(d).get('/readyz');
      return res.status === 200 ? res.body.data : undefined;
    }, WAITING);
    assert.ok(back.lag <= 100);
    const list = await d.mgmt.get('/identities?filter=name contains "while-d-away"&limit=100', d.adminToken);
    assert.equal(list.body.meta.pagination.totalCount, 20);
  });
});
