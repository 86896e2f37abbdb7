// Membership and cluster joining against a real nats-server with JetStream.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { ClusterJoinError, joinCluster } from '../../../src/cluster/cluster-join.js';
import { Membership, NodeIdInUseError, readMembers } from '../../../src/cluster/membership.js';
import { membersBucket } from '../../../src/cluster/cluster-names.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startNatsCluster, type NatsClusterHandle } from '../../support/nats-cluster.js';

const SECRET = 'a cluster secret of more than 32 characters';

function self(id: string) {
  return { id, baseUrl: `https://${id}:1280`, ctrlAddress: null, certPem: '', fingerprint: '', startedAt: new Date().toISOString(), ready: true, version: 'test', appliedSeq: 0 };
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('cluster membership and joining (real JetStream)', { timeout: 60_000 }, () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  before(async () => {
    server = await startNatsServer({ jetstream: true });
    nc = await connect({ servers: server.url });
  });
  after(async () => {
    await nc.close();
    await server.stop();
  });

  it('founds the cluster once: concurrent joins get one id and one CA', async () => {
    let made = 0;
    const createCa = async () => ({ certPem: `cert-${++made}`, keyPem: `key-${made}` });
    const joins = await Promise.all([1, 2, 3].map(() => joinCluster({ nc, clusterName: 'found', secret: SECRET, createCa })));
    assert.equal(joins.filter((j) => j.founded).length, 1);
    assert.equal(new Set(joins.map((j) => j.clusterId)).size, 1);
    assert.equal(new Set(joins.map((j) => j.ca.certPem)).size, 1);
    const later = await joinCluster({ nc, clusterName: 'found', secret: SECRET, createCa });
    assert.equal(later.founded, false);
    assert.deepEqual(later.ca, joins.find((j) => j.founded)!.ca);
  });

  it('recognises its own record after a create whose answer was lost: it founded the cluster', async () => {
    let made = 0;
    const createCa = async () => ({ certPem: `lost-${++made}`, keyPem: 'k' });
    let attempts = 0;
    // The first attempt creates the record, then its answer is lost (as a NATS timeout would).
    const retry = async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
      if (step !== 'read or create the cluster record') return fn();
      for (;;) {
        const result = await fn();
        if (++attempts > 1) return result;
      }
    };
    const joined = await joinCluster({ nc, clusterName: 'lost-answer', secret: SECRET, createCa, retry });
    assert.equal(attempts, 2);
    assert.equal(made, 1, 'one CA made for the start');
    assert.equal(joined.founded, true);
    const later = await joinCluster({ nc, clusterName: 'lost-answer', secret: SECRET, createCa });
    assert.deepEqual([later.founded, later.clusterId, later.ca.certPem], [false, joined.clusterId, 'lost-1']);
  });

  it('refuses a node whose secret differs, saying so', async () => {
    await joinCluster({ nc, clusterName: 'secret', secret: SECRET, createCa: async () => ({ certPem: 'c', keyPem: 'k' }) });
    await assert.rejects(
      joinCluster({ nc, clusterName: 'secret', secret: `${SECRET}-other`, createCa: async () => ({ certPem: 'c', keyPem: 'k' }) }),
      (err: unknown) => err instanceof ClusterJoinError && /WEFT_CLUSTER_SECRET does not match/.test(err.message),
    );
  });

  it('rotates the secret: a node given the new and the previous secret moves the cluster, then the old secret alone is refused', async () => {
    const NEW = `${SECRET} (rotated)`;
    const createCa = async () => ({ certPem: 'rot-c', keyPem: 'rot-k' });
    const founded = await joinCluster({ nc, clusterName: 'rotate', secret: SECRET, createCa });
    await assert.rejects(joinCluster({ nc, clusterName: 'rotate', secret: NEW, createCa }), ClusterJoinError, 'the new secret alone is refused before the rotation');
    const rotating = await Promise.all([1, 2].map(() => joinCluster({ nc, clusterName: 'rotate', secret: NEW, previousSecret: SECRET, createCa })));
    assert.equal(rotating.filter((j) => j.rotated).length, 1, 'one node rotates; the other then matches the new secret');
    for (const j of rotating) assert.deepEqual([j.clusterId, j.ca], [founded.clusterId, founded.ca]);
    const later = await joinCluster({ nc, clusterName: 'rotate', secret: NEW, createCa });
    assert.deepEqual([later.clusterId, later.ca, later.rotated], [founded.clusterId, founded.ca, undefined]);
    await assert.rejects(
      joinCluster({ nc, clusterName: 'rotate', secret: SECRET, createCa }),
      (err: unknown) => err instanceof ClusterJoinError && /WEFT_CLUSTER_SECRET does not match/.test(err.message),
    );
  });

  it('readMembers: a process that is not a member reads the live members once (drain requests and leavers left out)', async () => {
    const opts = { nc, clusterName: 'reader', intervalMs: 100, deadAfterMs: 400 };
    const a = await Membership.open(self('ra'), opts);
    const b = await Membership.open({ ...self('rb'), ready: false }, opts);
    await a.start();
    await b.start();
    await a.requestDrain('rb');
    const seen = await readMembers(nc, 'reader', { freshMs: 2_000 });
    assert.deepEqual(seen.map((m) => [m.id, m.ready]).sort(), [['ra', true], ['rb', false]]);
    await b.stop();
    assert.deepEqual((await readMembers(nc, 'reader', { freshMs: 2_000 })).map((m) => m.id), ['ra']);
    await a.stop();
    assert.deepEqual(await readMembers(nc, 'reader'), []);
  });

  it('sees members come, leave at once on stop, and go after missed heartbeats', async () => {
    const opts = { nc, clusterName: 'members', intervalMs: 100, deadAfterMs: 400 };
    const a = await Membership.open(self('a'), opts);
    const b = await Membership.open(self('b'), opts);
    const c = await Membership.open(self('c'), opts);
    const seenByA: string[][] = [];
    await a.start((ready) => seenByA.push(ready));
    await b.start();
    await c.start();
    await until(() => a.readyMembers().join() === 'a,b,c');
    assert.deepEqual(a.list().map((n) => n.id), ['a', 'b', 'c']);
    await b.stop();
    await until(() => a.readyMembers().join() === 'a,c', 1_000);
    // c crashes: its heartbeats stop without a goodbye.
    (c as unknown as { stopped: boolean }).stopped = true;
    await until(() => seenByA.at(-1)?.join() === 'a', 3_000);
    assert.deepEqual(a.readyMembers(), ['a']);
    await a.stop();
    await c.stop();
  });

  it('while its own heartbeats fail too (the bucket cannot be written), a node does not count its peers\' silence', async () => {
    let failures = 0;
    const opts = { nc, clusterName: 'blind', intervalMs: 100, deadAfterMs: 400 };
    const a = await Membership.open(self('a'), { ...opts, onError: () => void failures++ });
    const b = await Membership.open(self('b'), opts);
    await a.start();
    await b.start();
    await until(() => a.readyMembers().join() === 'a,b');
    // The bucket's stream goes away (as while JetStream elects its leader): nobody's heartbeat
    // goes through, and b's silence says nothing about b.
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(`KV_${membersBucket('blind')}`);
    await until(() => failures > 0);
    await new Promise((r) => setTimeout(r, 4 * opts.deadAfterMs));
    assert.deepEqual(a.readyMembers(), ['a', 'b']);
    assert.deepEqual(a.list().map((n) => n.id), ['a', 'b']);
    await a.stop();
    await b.stop();
  });

  it('lists a member that died offline (GET /controllers) until it is removed; one that stopped cleanly is not listed', async () => {
    const opts = { nc, clusterName: 'listing', intervalMs: 100, deadAfterMs: 400 };
    const x = await Membership.open(self('x'), opts);
    const y = await Membership.open(self('y'), opts);
    const z = await Membership.open(self('z'), opts);
    await x.start();
    await y.start();
    await z.start();
    await until(() => x.readyMembers().join() === 'x,y,z');
    await y.stop();
    // z dies: its heartbeats stop without a goodbye.
    (z as unknown as { stopped: boolean }).stopped = true;
    await until(() => x.readyMembers().join() === 'x', 3_000);
    assert.deepEqual(x.list().map((n) => [n.id, n.isOnline]), [['x', true], ['z', false]]);
    assert.deepEqual(x.live().map((n) => n.id), ['x']);
    assert.deepEqual(x.onlineUrls(), ['https://x:1280']);
    await x.requestDrain('z');
    await until(() => x.list().length === 1);
    assert.deepEqual(x.list().map((n) => n.id), ['x']);
    await x.stop();
    await z.stop();
  });

  it('a drained member owns nothing on every node at once, announces draining, and serves again after a restart', async () => {
    const opts = { nc, clusterName: 'drains', intervalMs: 100, deadAfterMs: 400 };
    const a = await Membership.open(self('a'), opts);
    const b = await Membership.open(self('b'), opts);
    const seenByB: string[][] = [];
    await a.start();
    await b.start((ready) => seenByB.push(ready));
    await until(() => a.readyMembers().join() === 'a,b' && b.readyMembers().join() === 'a,b');
    await a.requestDrain('b');
    await until(() => a.readyMembers().join() === 'a' && b.readyMembers().join() === 'a');
    assert.equal(b.draining, true);
    assert.deepEqual(seenByB.at(-1), ['a'], 'the drained member itself gives its shards up');
    await until(() => a.list().find((m) => m.id === 'b')?.draining === true);
    // The same node id in a new process (after the drained one stopped) is a member again.
    await b.stop();
    const again = await Membership.open(self('b'), opts);
    await again.start();
    await until(() => a.readyMembers().join() === 'a,b' && again.readyMembers().join() === 'a,b');
    assert.equal(again.draining, false);
    await again.stop();
    await a.stop();
  });

  it('refuses a node id another live process heartbeats under', async () => {
    const opts = { nc, clusterName: 'dup', intervalMs: 100, deadAfterMs: 400 };
    const first = await Membership.open(self('same'), opts);
    await first.start();
    await assert.rejects(Membership.open(self('same'), opts), (err: unknown) => err instanceof NodeIdInUseError && /already live/.test(err.message));
    await first.stop();
    // After a clean stop the id is free again at once.
    const second = await Membership.open(self('same'), opts);
    await second.stop();
  });
});

describe('membership heartbeats across a NATS outage (real JetStream)', { timeout: 90_000 }, () => {
  let nats: NatsClusterHandle;
  before(async () => {
    nats = await startNatsCluster(1);
  });
  after(() => nats.stop());

  it('tells once that heartbeats fail, with the cause, and once that they resumed', async () => {
    const nc = await connect({ servers: nats.urls, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const told: unknown[] = [];
    const m = await Membership.open(self('outage'), { nc, clusterName: 'outage', intervalMs: 100, deadAfterMs: 400, onHeartbeat: (failure) => told.push(failure) });
    try {
      await m.start();
      await nats.stopServer(0);
      await until(() => told.length === 1, 20_000);
      assert.ok(told[0] instanceof Error, 'the first failure is told with its cause');
      // Many beats fail while the server is down; none is told again.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await nats.restartServer(0);
      await until(() => told.length === 2, 30_000);
      assert.equal(told[1], undefined, 'recovery is told once');
      assert.equal(told.length, 2);
    } finally {
      await m.stop();
      await nc.close();
    }
  });
});
