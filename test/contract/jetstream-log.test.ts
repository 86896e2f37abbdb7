// Runs the Log contract against JetStreamLog on one JetStream server and on a three-server
// JetStream cluster (real nats-server processes), plus what only the shared log has: several
// nodes on one stream, msgId deduplication, fast failure while disconnected, a server crash.

import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { connect, nuid, type NatsConnection, type Subscription } from 'nats';
import { JetStreamLog, LogOutcomeUnknownError, LogTrimmedError, LogUnavailableError } from '../../src/log/jetstream-log.js';
import type { LogEntry } from '../../src/log/log.js';
import { startNatsCluster, type NatsClusterHandle } from '../support/nats-cluster.js';
import { runLogContract, waitFor, type LogFactory } from './log-contract.js';

/** Bound of each test below (the contract tests are bounded by their waits and the log's deadlines). */
const TEST_TIMEOUT_MS = 60_000;

let single: NatsClusterHandle | undefined;
let cluster: NatsClusterHandle | undefined;
let singleNc: NatsConnection | undefined;
let clusterNc: NatsConnection | undefined;

before(async () => {
  [single, cluster] = await Promise.all([startNatsCluster(1), startNatsCluster(3)]);
  [singleNc, clusterNc] = await Promise.all([connect({ servers: single.urls }), connect({ servers: cluster.urls })]);
});

after(async () => {
  await Promise.allSettled([singleNc?.close(), clusterNc?.close()]);
  await Promise.allSettled([single?.stop(), cluster?.stop()]);
});

const started = <T>(value: T | undefined): T => {
  if (value === undefined) throw new Error('nats-server did not start (see the before hook error)');
  return value;
};

/** A fresh stream name and subject (every test gets its own stream). */
function names(): { stream: string; subject: string } {
  const id = nuid.next();
  return { stream: `LOG_${id}`, subject: `weft-test.${id}.log` };
}

async function deleteStream(nc: NatsConnection, stream: string): Promise<void> {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.delete(stream).catch(() => false);
}

function factory(nc: () => NatsConnection | undefined): LogFactory {
  return async () => {
    const conn = started(nc());
    const { stream, subject } = names();
    return { log: new JetStreamLog({ nc: conn, stream, subject }), cleanup: () => deleteStream(conn, stream) };
  };
}

// JetStreamLog never trims the shared stream (a node cannot know what the others still need).
runLogContract('jetstream-log (one server)', factory(() => singleNc), { trim: false, entryTimes: true });
runLogContract('jetstream-log (three-server cluster)', factory(() => clusterNc), { trim: false, entryTimes: true });

/** Reads entries 1..count through a new follower. */
async function readAll(log: JetStreamLog, count: number): Promise<LogEntry[]> {
  const seen: LogEntry[] = [];
  const sub = log.followBatches(0, async (run) => void seen.push(...run));
  await waitFor(() => seen.length >= count, `${count} entries`, 20_000);
  await sub.close();
  return seen;
}

test('jetstream-log - replicas: 1 on one server, 3 on the cluster, or as configured; an existing stream is used as it is', { timeout: TEST_TIMEOUT_MS }, async () => {
  const cases: [NatsConnection, number | undefined, number][] = [[started(singleNc), undefined, 1], [started(clusterNc), undefined, 3], [started(clusterNc), 2, 2]];
  for (const [nc, replicas, expected] of cases) {
    const { stream, subject } = names();
    const log = new JetStreamLog({ nc, stream, subject, replicas });
    await log.open();
    assert.equal(log.replicas, expected);
    const info = await (await nc.jetstreamManager()).streams.info(stream);
    assert.equal(info.config.num_replicas, expected);
    assert.equal(info.config.storage, 'file');
    assert.equal(info.config.duplicate_window, 120_000_000_000);
    await log.close();
    await deleteStream(nc, stream);
  }
  // a stream that exists with other replicas (created by another node) is used as it is
  const nc = started(clusterNc);
  const { stream, subject } = names();
  await (await nc.jetstreamManager()).streams.add({ name: stream, subjects: [subject], num_replicas: 1 });
  const log = new JetStreamLog({ nc, stream, subject });
  await log.open();
  try {
    assert.equal(log.replicas, 1);
    assert.equal(await log.append({ i: 1 }), 1);
  } finally {
    await log.close();
    await deleteStream(nc, stream);
  }
});

test('jetstream-log - three nodes opening one new stream at once share it; all see every entry in one order', { timeout: TEST_TIMEOUT_MS }, async () => {
  const c = started(cluster);
  const conns = await Promise.all(c.urls.map((url) => connect({ servers: url })));
  const { stream, subject } = names();
  try {
    const logs = conns.map((nc) => new JetStreamLog({ nc, stream, subject }));
    await Promise.all(logs.map((log) => log.open()));
    assert.deepEqual(logs.map((log) => log.replicas), [3, 3, 3]);
    const acked = await Promise.all(logs.flatMap((log, n) => Array.from({ length: 40 }, async (_, i) => ({ seq: await log.append({ n, i }), command: { n, i } }))));
    assert.deepEqual(acked.map((a) => a.seq).sort((x, y) => x - y), Array.from({ length: 120 }, (_, i) => i + 1));
    const views = await Promise.all(logs.map((log) => readAll(log, 120)));
    const expected = acked.sort((x, y) => x.seq - y.seq);
    for (const view of views) assert.deepEqual(view.map((e) => ({ seq: e.seq, command: e.command })), expected);
    assert.ok(views.every((view) => view.every((e, i) => e.timeMs === views[0][i].timeMs)), 'every node sees the same times');
    await Promise.all(logs.map((log) => log.close()));
    // a restarted node finds the stream with its entries
    const again = new JetStreamLog({ nc: conns[1], stream, subject });
    await again.open();
    assert.equal(await again.lastSeq(), 120);
    assert.equal(await again.append({ again: true }), 121);
    await again.close();
  } finally {
    await deleteStream(conns[0], stream);
    await Promise.all(conns.map((nc) => nc.close()));
  }
});

test('jetstream-log - an append repeated with its msgId returns the first seq and stores once', { timeout: TEST_TIMEOUT_MS }, async () => {
  const nc = started(clusterNc);
  const { stream, subject } = names();
  const log = new JetStreamLog({ nc, stream, subject });
  await log.open();
  try {
    assert.equal(await log.append({ i: 1 }, { msgId: 'cmd-1' }), 1);
    assert.equal(await log.append({ i: 2 }, { msgId: 'cmd-2' }), 2);
    assert.equal(await log.append({ i: 1, retried: true }, { msgId: 'cmd-1' }), 1);
    assert.equal(await log.lastSeq(), 2);
    assert.equal(await log.append({ i: 3 }), 3);
    assert.equal(await log.append({ i: 4 }), 4, 'appends without a msgId are never taken for duplicates');
    const all = await readAll(log, 4);
    assert.deepEqual(all.map((e) => e.command), [{ i: 1 }, { i: 2 }, { i: 3 }, { i: 4 }]);
  } finally {
    await log.close();
    await deleteStream(nc, stream);
  }
});

test('jetstream-log - following from before the first stored entry fails with LogTrimmedError', { timeout: TEST_TIMEOUT_MS }, async () => {
  const nc = started(singleNc);
  const { stream, subject } = names();
  const log = new JetStreamLog({ nc, stream, subject });
  await log.open();
  try {
    for (let i = 1; i <= 10; i++) await log.append({ i });
    await (await nc.jetstreamManager()).streams.purge(stream, { seq: 6 });
    const early = log.follow(3, async () => {});
    await assert.rejects(early.done, (err: unknown) => err instanceof LogTrimmedError && err.firstSeq === 6);
    const seen: number[] = [];
    const sub = log.follow(5, async (entry) => void seen.push(entry.seq));
    await waitFor(() => seen.length === 5, 'entries 6..10');
    await sub.close();
    await sub.done;
    assert.deepEqual(seen, [6, 7, 8, 9, 10]);
  } finally {
    await log.close();
    await deleteStream(nc, stream);
  }
});

test('jetstream-log - an append nobody stored is LogUnavailableError; one that may have been is LogOutcomeUnknownError', { timeout: TEST_TIMEOUT_MS }, async () => {
  const nc = started(singleNc);
  const { stream, subject } = names();
  const log = new JetStreamLog({ nc, stream, subject, appendDeadlineMs: 1000 });
  await log.open();
  let silent: Subscription | undefined;
  try {
    await assert.rejects(log.append({ big: 'x'.repeat(2 * 1024 * 1024) }), RangeError);
    await deleteStream(nc, stream); // now nobody listens on the subject: every attempt is refused
    await assert.rejects(log.append({ i: 1 }), (err: unknown) => err instanceof LogUnavailableError && /refused every attempt/.test(err.message));
    silent = nc.subscribe(subject, { callback: () => {} }); // receives every attempt, never answers
    await nc.flush();
    await assert.rejects(log.append({ i: 2 }, { msgId: 'm-2' }), (err: unknown) => err instanceof LogOutcomeUnknownError && err.msgId === 'm-2' && /unknown/.test(err.message));
  } finally {
    silent?.unsubscribe();
    await log.close();
  }
});

test('jetstream-log - refusedBy ends an append JetStream keeps refusing; an attempt that may have been stored is still retried until it is known', { timeout: 20_000 }, async () => {
  const nc = started(singleNc);
  const { stream, subject } = names();
  // The default wait would outlast the test's timeout: only refusedBy can end these appends in time.
  const log = new JetStreamLog({ nc, stream, subject, appendDeadlineMs: 100_000 });
  await log.open();
  let silent: Subscription | undefined;
  try {
    await deleteStream(nc, stream); // nobody listens on the subject: every attempt is refused
    await assert.rejects(log.append({ i: 1 }, { refusedBy: Date.now() + 300 }), (err: unknown) => err instanceof LogUnavailableError && /nothing was appended/.test(err.message));

    // The first attempt reaches a subscriber that never answers (it may have been stored), the
    // stream then comes back: the append is retried under its msg id past refusedBy and resolves.
    let received = 0;
    silent = nc.subscribe(subject, { callback: () => void received++ });
    await nc.flush();
    const appending = log.append({ i: 2 }, { msgId: 'maybe-stored', refusedBy: Date.now() + 100 });
    await waitFor(() => received > 0, 'the first attempt reaching the silent subscriber', 10_000);
    silent.unsubscribe();
    silent = undefined;
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [subject], duplicate_window: 120_000_000_000 });
    const seq = await appending;
    assert.equal(seq, 1, 'stored once the stream answered, though refusedBy had passed');
    assert.equal(await log.append({ i: 3 }, { msgId: 'maybe-stored' }), seq, 'under its msg id');
  } finally {
    silent?.unsubscribe();
    await log.close();
  }
});

/** Resolves whether `promise` has settled once pending I/O callbacks had a turn (no waiting on I/O). */
async function settledAtOnce(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(() => (settled = true), () => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

test('jetstream-log - while NATS is down appends and lastSeq fail at once; after it is back, both work and followers resume', { timeout: TEST_TIMEOUT_MS }, async () => {
  const server = await startNatsCluster(1);
  const nc = await connect({ servers: server.urls, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const { stream, subject } = names();
  const log = new JetStreamLog({ nc, stream, subject });
  try {
    await log.open();
    const seen: number[] = [];
    const sub = log.follow(0, async (entry) => void seen.push(entry.seq));
    for (let i = 1; i <= 3; i++) await log.append({ i });
    await waitFor(() => seen.length === 3, 'entries 1..3');
    await server.stopServer(0);
    await waitFor(() => !log.isConnected(), 'the disconnect');
    const append = log.append({ i: 4 });
    assert.ok(await settledAtOnce(append), 'append failed without waiting');
    await assert.rejects(append, LogUnavailableError);
    const last = log.lastSeq();
    assert.ok(await settledAtOnce(last), 'lastSeq failed without waiting');
    await assert.rejects(last, LogUnavailableError);
    await server.restartServer(0);
    await waitFor(() => log.isConnected(), 'the reconnect', 10_000);
    assert.equal(await log.append({ i: 4 }), 4);
    await waitFor(() => seen.length === 4, 'entry 4 after the reconnect', 15_000);
    assert.deepEqual(seen, [1, 2, 3, 4]);
    await sub.close();
    await nc.close();
    await assert.rejects(log.append({ i: 5 }), LogUnavailableError);
  } finally {
    await log.close();
    await nc.close();
    await server.stop();
  }
});

/** Appends 200 entries from four workers (retrying each with its msgId, as a proposer would)
 * while the stream leader is killed; `clientOnLeader` puts the appending connection on it too. */
async function crashLeaderUnderLoad(t: TestContext, clientOnLeader: boolean): Promise<void> {
  const c = started(cluster);
  const { stream, subject } = names();
  const creator = new JetStreamLog({ nc: started(clusterNc), stream, subject });
  await creator.open();
  await creator.close();
  const jsm = await started(clusterNc).jetstreamManager();
  const leader = (await jsm.streams.info(stream)).cluster?.leader;
  const crashed = c.names.indexOf(leader ?? '');
  assert.ok(crashed >= 0, `stream leader ${leader} is one of ${c.names.join(', ')}`);
  const first = clientOnLeader ? crashed : (crashed + 1) % c.urls.length;
  const urls = [c.urls[first], ...c.urls.filter((_, i) => i !== first)];
  const nc = await connect({ servers: urls, noRandomize: true, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const log = new JetStreamLog({ nc, stream, subject, appendDeadlineMs: 20_000 });
  const acked = new Map<number, string>();
  let killed = false;
  try {
    await log.open();
    // three followers: each reads through its own consumer, placed on some server of the stream
    const followers = [0, 1, 2].map(() => {
      const seen: LogEntry[] = [];
      return { seen, sub: log.followBatches(0, async (run) => void seen.push(...run)) };
    });
    acked.set(await log.append({ id: 'first' }, { msgId: 'first' }), 'first');
    await waitFor(() => followers.every((f) => f.seen.length === 1), 'followers started');
    const consumerHosts: string[] = [];
    for await (const ci of jsm.consumers.list(stream)) consumerHosts.push(ci.cluster?.leader ?? '?');
    const errors: string[] = [];
    const appendOnce = async (id: string): Promise<void> => {
      for (;;) {
        try {
          acked.set(await log.append({ id }, { msgId: id }), id);
          return;
        } catch (err) {
          assert.ok(err instanceof LogUnavailableError || err instanceof LogOutcomeUnknownError, String(err));
          errors.push(err.name);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    const worker = async (w: number) => {
      for (let i = 0; i < 50; i++) await appendOnce(`w${w}-${i}`);
    };
    const load = Promise.all([0, 1, 2, 3].map(worker));
    await waitFor(() => acked.size >= 51, '50 acks before the crash', 20_000);
    await c.killServer(crashed);
    killed = true;
    const killedAt = performance.now();
    const ackedAtKill = acked.size - 1;
    await load;
    const loadMs = performance.now() - killedAt;
    assert.equal(acked.size, 201);
    const seqs = [...acked.keys()].sort((a, b) => a - b);
    assert.deepEqual(seqs, Array.from({ length: 201 }, (_, i) => i + 1), 'acked seqs are distinct and gap-free');
    // A follower whose consumer sat on the crashed server recreates it once the stream has a new
    // leader; on a loaded machine that can take a while, and this test is about what it reads.
    await waitFor(() => followers.every((f) => f.seen.length >= 201), 'every follower got all 201', 60_000);
    for (const { seen, sub } of followers) {
      await sub.close();
      assert.deepEqual(seen.map((e) => e.seq), seqs);
      assert.deepEqual(seen.map((e) => (e.command as { id: string }).id), seqs.map((s) => acked.get(s)));
      assert.ok(seen.every((e) => Number.isSafeInteger(e.timeMs) && e.timeMs! > 0), 'entries carry their time');
    }
    assert.equal(await log.lastSeq(), 201);
    const leaderNow = (await jsm.streams.info(stream)).cluster?.leader;
    assert.notEqual(leaderNow, leader);
    t.diagnostic(`leader ${leader} crashed after ${ackedAtKill} acks; new leader ${leaderNow}; the other ${200 - ackedAtKill} ` +
      `took ${loadMs.toFixed(0)} ms; failed attempts retried: ${errors.length} (${[...new Set(errors)].join(', ')}); ` +
      `follower consumers were on ${consumerHosts.join(', ')}`);
  } finally {
    await log.close();
    await nc.close();
    if (killed) await c.restartServer(crashed);
    await deleteStream(started(clusterNc), stream);
  }
}

test('jetstream-log - the stream leader crashes while 200 entries are appended: every ack is kept, once, in order, and every follower reads them', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  await crashLeaderUnderLoad(t, false);
});

test('jetstream-log - the same when the appending node is connected to the crashing leader', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  await crashLeaderUnderLoad(t, true);
});

test('jetstream-log - catch-up reading speed (diagnostic)', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const nc = started(singleNc);
  const { stream, subject } = names();
  const log = new JetStreamLog({ nc, stream, subject });
  await log.open();
  try {
    const count = 10_000;
    // filled with plain NATS publishes (no ack each): this test is about reading
    const encoder = new TextEncoder();
    for (let i = 0; i < count; i++) nc.publish(subject, encoder.encode(JSON.stringify({ op: 'put', id: `id-${i}`, data: 'x'.repeat(100) })));
    await nc.flush();
    for (let last = 0; last < count; last = await log.lastSeq()) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const pass of ['first (cold)', 'second']) {
      const startedAt = performance.now();
      const all = await readAll(log, count);
      const ms = performance.now() - startedAt;
      assert.deepEqual(all.map((e) => e.seq), Array.from({ length: count }, (_, i) => i + 1));
      assert.deepEqual(all[count - 1].command, { op: 'put', id: `id-${count - 1}`, data: 'x'.repeat(100) });
      t.diagnostic(`${pass} catch-up of ${count} entries: ${ms.toFixed(0)} ms (${Math.round(count / (ms / 1000))} entries/s)`);
    }
  } finally {
    await log.close();
    await deleteStream(nc, stream);
  }
});
