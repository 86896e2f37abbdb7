// Weft nodes dying and restarting under a write load through HAProxy: `kill -9` of one node
// loses no acknowledged write and the survivors take writes again within 5 s; a rolling restart
// of all three nodes (SIGTERM, each with its shutdown grace) loses nothing and answers every
// create; a killed node comes back and catches up.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import { startCluster, type Cluster } from '../support/cluster.js';
import {
  acknowledged,
  assertAllReadable,
  assertNoneCommitted,
  assertRetriesSafe,
  boundProblems,
  createProbeTargets,
  describeLoad,
  describeNodeWrites,
  failedByAnswer,
  isOutcomeUnknown,
  lateAnswers,
  markLogs,
  probeWrites,
  problemOf,
  sleep,
  startWriteLoad,
} from '../support/write-load.js';

const WRITERS = 8;

describe('Weft nodes failing under write load', () => {
  let cluster: Cluster;
  let token: string;
  /** Identities spread over shards: every survivor must PATCH each of them after a kill. */
  let targets: string[];

  before(async () => {
    cluster = await startCluster();
    token = await cluster.setUp(() => cluster.login());
    targets = await cluster.setUp(() => createProbeTargets(cluster.lb, token, 12));
  }, { timeout: 180_000 });
  after(async () => {
    await cluster?.close();
  });
  afterEach((t) => cluster?.reportIfFailed(t));

  it('kill -9 of one node during a write load loses no acknowledged write; the survivors take writes within 5 s', { timeout: 180_000 }, async () => {
    await cluster.ensureAllRunning();
    const logs = markLogs(cluster.nodes);
    const load = startWriteLoad(() => cluster.lb, token, { writers: WRITERS, prefix: 'kill-node' });
    await sleep(3_000);
    const victim = cluster.nodes[1];
    const survivors = cluster.nodes.filter((n) => n !== victim);
    const killedAt = Date.now();
    await victim.kill();
    const probes = await Promise.all(survivors.map((n) => probeWrites(n.mgmt, token, targets, killedAt, 30_000)));
    await sleep(Math.max(0, killedAt + 7_000 - Date.now()));
    const outcomes = await load.stop();
    // How many commands NATS had handed to the dead node and the survivors sent again (it takes
    // a command sent within milliseconds of the kill, so a run may well have none).
    const resent = survivors.map((n) => readFileSync(n.outPath, 'utf8').split('command sent again').length - 1).reduce((a, b) => a + b, 0);
    console.log(`kill -9 ${victim.name}: ${describeLoad(outcomes)}; ${describeNodeWrites(logs())}; commands sent again: ${resent}`);

    const ids = acknowledged(outcomes);
    assert.ok(ids.length >= WRITERS, `the load got some writes acknowledged: ${describeLoad(outcomes)}`);
    const problems: (string | undefined)[] = [];
    problems.push(outcomes.some((o) => o.status === 201 && o.startedAt > killedAt) ? undefined : 'no write was acknowledged after the kill');
    for (const node of survivors) {
      problems.push(await problemOf(() => assertAllReadable(node.mgmt, token, ids, node.name)));
      problems.push(await problemOf(() => assertNoneCommitted(node.mgmt, token, failedByAnswer(outcomes), node.name)));
    }
    survivors.forEach((node, i) => {
      const p = probes[i];
      const seen = `${node.name}: ${JSON.stringify(p)}`;
      if (p.unanswered > 0) problems.push(`${p.unanswered} requests to a survivor got no answer within 5 s — ${seen}`);
      if (p.resumedMs === undefined || p.resumedMs > 5_000) problems.push(`the probe writes did not all succeed on the survivor within 5 s of the kill — ${seen}`);
    });
    // Every write sent from the kill on counts, also those NATS still handed to the dead node
    // before it read the closed connection: they are sent again once the node is declared gone.
    const late = lateAnswers(outcomes, killedAt, 5_000);
    if (late.length > 0) problems.push(`${late.length} writes through the balancer were answered more than 5 s after the kill: ${late.slice(0, 5).join('; ')}`);
    // Every write is answered within the bound, also those on their way at the kill.
    problems.push(...boundProblems(outcomes, logs()));
    // A write answered 504 OUTCOME_UNKNOWN and sent again never makes a second identity of its name.
    problems.push(await problemOf(() => assertRetriesSafe(cluster.lb, token, outcomes.filter(isOutcomeUnknown), 'the balancer')));

    // The killed node starts again on its data dir and reads every acknowledged write.
    problems.push(await problemOf(() => victim.start()));
    if (victim.isRunning()) problems.push(await problemOf(() => assertAllReadable(victim.mgmt, token, ids, `${victim.name} after its restart`)));
    assert.deepEqual(problems.filter(Boolean), [], describeLoad(outcomes));
  });

  it('a rolling restart of all three nodes under a write load answers every create and loses no acknowledged write', { timeout: 240_000 }, async () => {
    await cluster.ensureAllRunning();
    const logs = markLogs(cluster.nodes);
    // Half the writers: the load runs through three restarts, and every acknowledged create is read back on three nodes.
    const load = startWriteLoad(() => cluster.lb, token, { writers: WRITERS / 2, prefix: 'rolling' });
    await sleep(2_000);
    for (const node of cluster.nodes) {
      assert.equal(await node.stop(), 0, `${node.name} stops cleanly on SIGTERM`);
      await node.start();
      await cluster.waitBalanced();
      await sleep(1_000);
    }
    const outcomes = await load.stop();
    console.log(`rolling restart: ${describeLoad(outcomes)}; ${describeNodeWrites(logs())}`);

    const ids = acknowledged(outcomes);
    assert.ok(ids.length >= WRITERS / 2, `the load got some writes acknowledged: ${describeLoad(outcomes)}`);
    const problems: (string | undefined)[] = [];
    // Stopped with SIGTERM, a node answers what it took before it exits; nothing waits for a
    // command lost in a shard hand-over.
    problems.push(...boundProblems(outcomes, logs()));
    // Its grace (GET /readyz 503 while it still serves) takes it out of the balancer before its
    // listener closes: no connection reaches it closing, every create gets an answer.
    const unanswered = outcomes.filter((o) => o.status === undefined);
    if (unanswered.length > 0) problems.push(`${unanswered.length} creates got no answer: ${unanswered.slice(0, 5).map((o) => `${o.name} after ${o.ms} ms (${o.error})`).join('; ')}`);
    for (const node of cluster.nodes) {
      problems.push(await problemOf(() => assertAllReadable(node.mgmt, token, ids, node.name)));
      problems.push(await problemOf(() => assertNoneCommitted(node.mgmt, token, failedByAnswer(outcomes), node.name)));
    }
    assert.deepEqual(problems.filter(Boolean), [], describeLoad(outcomes));
  });
});

