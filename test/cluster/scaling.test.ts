// Scaling a cluster under a write load through HAProxy: three nodes become five (the new ones
// join from a peer's snapshot while writes go on), then three again by the documented procedure
// (`weft cluster remove <node>`, a balancer reload without it, then stopping it); every create
// is answered and no acknowledged write is lost.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { readFrom } from '../support/logged-process.js';
import { CLUSTER_ADMIN, startCluster, type Cluster } from '../support/cluster.js';
import { weftCli } from '../support/weft-cli.js';
import { acknowledged, assertAllReadable, assertNoneCommitted, describeLoad, failedByAnswer, problemOf, sleep, startWriteLoad, type WriteOutcome } from '../support/write-load.js';

const WRITERS = 4;

describe('scaling three → five → three under a write load', () => {
  let cluster: Cluster;
  let token: string;

  before(async () => {
    cluster = await startCluster();
    token = await cluster.setUp(() => cluster.login());
  }, { timeout: 180_000 });
  after(async () => {
    await cluster?.close();
  });
  afterEach((t) => cluster?.reportIfFailed(t));

  /** `weft` in-process, logged in through the balancer. */
  const weft = (args: string[]) => weftCli(join(cluster.dir, 'session.json'))(args);
  const members = async () => {
    const res = await cluster.lb.request('GET', '/cluster', { token });
    assert.equal(res.status, 200, res.text);
    return res.body.data.members as { id: string; ready: boolean; shards: number }[];
  };
  /** Waits (bounded) until the load has `more` further acknowledged creates. */
  const progress = async (outcomes: () => readonly WriteOutcome[], more: number, what: string) => {
    const target = acknowledged([...outcomes()]).length + more;
    for (let waited = 0; acknowledged([...outcomes()]).length < target; waited += 100) {
      assert.ok(waited < 60_000, `no progress of the write load ${what}: ${describeLoad([...outcomes()])}`);
      await sleep(100);
    }
  };

  it('adds two nodes and removes two while writes go on, answers every create, and every acknowledged write is readable on every node', { timeout: 420_000 }, async () => {
    await writeFile(join(cluster.dir, 'ca.pem'), cluster.caPem);
    const login = await weft(['login', '--url', cluster.balancerUrl, '--ca', join(cluster.dir, 'ca.pem'), '--username', CLUSTER_ADMIN.username, '--password', CLUSTER_ADMIN.password]);
    assert.equal(login.code, 0, login.err);
    const load = startWriteLoad(() => cluster.lb, token, { writers: WRITERS, prefix: 'scale' });
    const seen = () => load.seen();
    let outcomes: WriteOutcome[] = [];
    try {
      await progress(seen, 20, 'before scaling');
      const added = [await cluster.addNode({ nodeId: 'scale-4' }), await cluster.addNode({ nodeId: 'scale-5' })];
      await progress(seen, 20, 'with five nodes');
      // A member's `ready` is its readiness at its last heartbeat (every second): wait for one.
      let five = await members();
      for (let waited = 0; !five.every((m) => m.ready && m.shards > 0) && waited < 10_000; waited += 250) {
        await sleep(250);
        five = await members();
      }
      assert.deepEqual(five.map((m) => m.id).filter((id) => id.startsWith('scale-')).sort(), ['scale-4', 'scale-5']);
      assert.equal(five.length, 5);
      assert.ok(five.every((m) => m.ready && m.shards > 0), `five ready members sharing the shards: ${JSON.stringify(five)}`);
      for (const node of added) assert.match(readFrom(node.outPath, 0), /joined from a peer snapshot/, `${node.name} joined from a snapshot`);

      for (const node of [...added].reverse()) {
        const id = node.name === added[0].name ? 'scale-4' : 'scale-5';
        const removed = await weft(['cluster', 'remove', id, '--timeout', '60']);
        assert.equal(removed.code, 0, removed.err);
        assert.deepEqual(JSON.parse(removed.out), { id, draining: true, shards: 0, left: false });
        await progress(seen, 10, `after draining ${id}`);
        assert.equal(await cluster.removeNode(node), 0, `${id} stops cleanly`);
        await progress(seen, 10, `after stopping ${id}`);
      }
    } finally {
      outcomes = await load.stop();
    }
    console.log(`scaling: ${describeLoad(outcomes)}`);
    const three = await members();
    assert.deepEqual(three.map((m) => m.id).filter((id) => id.startsWith('scale-')), [], 'the removed nodes left the membership');
    assert.equal(three.filter((m) => m.ready).length, 3);
    assert.equal(three.reduce((n, m) => n + m.shards, 0), 64);

    const ids = acknowledged(outcomes);
    const problems: (string | undefined)[] = [];
    // The balancer changes its server list by a reload (the replaced process finishes its
    // connections) and a removed node stops only once it is out of it, with its grace: no
    // connection is cut, every create gets an answer.
    const unanswered = outcomes.filter((o) => o.status === undefined);
    if (unanswered.length > 0) problems.push(`${unanswered.length} creates got no answer: ${unanswered.slice(0, 5).map((o) => `${o.name} after ${o.ms} ms (${o.error})`).join('; ')}`);
    for (const node of cluster.nodes) {
      problems.push(await problemOf(() => assertAllReadable(node.mgmt, token, ids, node.name)));
      problems.push(await problemOf(() => assertNoneCommitted(node.mgmt, token, failedByAnswer(outcomes), node.name)));
    }
    assert.deepEqual(problems.filter(Boolean), [], describeLoad(outcomes));
  });
});
