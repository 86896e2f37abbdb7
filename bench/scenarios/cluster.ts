// Cluster scenarios: three Weft nodes on a three-server JetStream cluster behind HAProxy (TCP
// mode, the test harness of test/support/cluster.ts) against one embedded node, measured in the
// same run on the same data: POST and GET /identities through the balancer, the time from
// `kill -9` of a shard owner until its shards take writes again, and posture events over gRPC
// streams spread over the nodes.

import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { shardOf } from '../../src/bus/subjects.js';
import { shardOwner } from '../../src/cluster/shard-map.js';
import { startCluster, type Cluster, type ClusterNode } from '../../test/support/cluster.js';
import { createCsr, newKey } from '../../test/support/csr.js';
import { BENCH_DIR, median, runLoad, runLoadMeasured, startBenchNode, type RunningNode } from '../lib/harness.js';
import type { LoadResult, LoadSpec } from '../lib/loadgen.js';
import { probeJetStream, streamSize } from '../lib/jetstream-probe.js';
import { formatSummary, summarise } from '../lib/profile-summary.js';
import { BENCH_ADMIN } from '../lib/seed.js';
import { processCpuMicros, processWriteCalls } from '../lib/cpu.js';
import { runDriver } from './posture.js';
import type { Row, ScenarioContext } from './types.js';

const CONNECTIONS = 64;
/** Identities created on both sides before measuring (the GET picks, the failover's targets). */
const IDENTITIES = 200;
const POSTURE_USERS = 32;
const POSTURE_IN_FLIGHT = 64;
/** Failover runs (kill -9 of a shard owner, then its restart). */
const FAILOVER_RUNS = 3;
const FAILOVER_LIMIT_MS = 20_000;
const NODE_ENV = { WEFT_MAILBOX_SIZE: '1024' };
/** WEFT_BENCH_CPU_PROFILE=<dir>: only the POST (or GET) pairs run, and every node's main thread is
 * profiled during the first pair's loads (bench/lib/cpu-profile-preload.ts, into <dir>); the
 * profiles are summarised as self time by source file. */
const PROFILE_DIR = process.env.WEFT_BENCH_CPU_PROFILE;
/** WEFT_BENCH_PROFILE_LOAD=get: profile the GET pairs instead of the POST pairs. */
const PROFILE_GET = process.env.WEFT_BENCH_PROFILE_LOAD === 'get';
const PRELOAD = new URL('../lib/cpu-profile-preload.js', import.meta.url).href;

/** One management API request (path relative to /edge/management/v1, or a full URL). */
type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any; text: string }>;

/** Both sides of the comparison: where the load goes and how to set data up. */
/** One kind of request, for one side and one run (runs number the creates' names). */
type RequestSpec = (side: Side, run: number) => Omit<LoadSpec, 'origin' | 'connections' | 'durationMs' | 'warmupMs' | 'caFile'>;

interface Side {
  label: string;
  origin: string;
  caFile: string;
  token: string;
  call: Call;
  /** Client API base URL (enrollment). */
  clientBase: string;
  /** gRPC addresses (one per node). */
  grpc: string[];
}

export async function clusterScenarios(ctx: ScenarioContext): Promise<Row[]> {
  const rows: Row[] = [];
  await mkdir(BENCH_DIR, { recursive: true });
  const embeddedDir = await mkdtemp(join(BENCH_DIR, 'run-cluster-embedded-'));
  let embedded: RunningNode | undefined;
  let cluster: Cluster | undefined;
  // nats-server processes are not killed by the harness's exit hook: no server outlives a failed run.
  const killNats = () => clusterPids([]).nats.forEach((pid) => process.kill(pid, 'SIGKILL'));
  process.once('exit', killNats);
  try {
    ctx.log('starting one embedded node and a cluster (3 NATS servers, 3 nodes, HAProxy)');
    const env = PROFILE_DIR ? { ...NODE_ENV, NODE_OPTIONS: `--import=${PRELOAD}`, BENCH_PROFILE_DIR: PROFILE_DIR } : NODE_ENV;
    embedded = await startBenchNode(embeddedDir, { ...env, WEFT_ADMIN_PASSWORD: BENCH_ADMIN.password });
    cluster = await startCluster({ env });
    const one = embeddedSide(embedded);
    const three = await clusterSide(cluster);
    ctx.log('creating the same data on both');
    const picks = { one: await prepare(one), three: await prepare(three) };
    await settle(cluster);

    const post: RequestSpec = (side, run) => ({
      method: 'POST',
      path: '/edge/management/v1/identities',
      headers: { 'zt-session': side.token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench-${side.label}-${process.pid}-${run}-{i}`, type: 'Device', isAdmin: false, roleAttributes: ['team3'] }),
    });
    const get: RequestSpec = (side) => ({
      method: 'GET',
      path: '/edge/management/v1/identities/{pick}',
      picks: side === one ? picks.one : picks.three,
      headers: { 'zt-session': side.token },
    });
    if (!PROFILE_DIR || !PROFILE_GET) {
      rows.push(await compareLoad(ctx, 'POST /identities, 3 nodes through HAProxy vs 1 embedded node', 0.5, one, three, embedded, cluster, post));
    }
    if (!PROFILE_DIR) rows.push(await jetStreamAlone(ctx, cluster));
    if (!PROFILE_DIR || PROFILE_GET) {
      rows.push(await compareLoad(ctx, 'GET /identities/{id}, 3 nodes through HAProxy vs 1 embedded node', 0.8, one, three, embedded, cluster, get));
    }
    if (!PROFILE_DIR) {
      rows.push(await direct(ctx, 'POST /identities on one cluster node directly (64 connections, no balancer) vs 1 embedded node', one, three, embedded, cluster, post));
      rows.push(await direct(ctx, 'GET /identities/{id} on one cluster node directly (64 connections, no balancer) vs 1 embedded node', one, three, embedded, cluster, get));
    }
    if (PROFILE_DIR) {
      await profiles(ctx, cluster, embedded, PROFILE_DIR);
      return rows;
    }
    rows.push(await failover(ctx, cluster, three, picks.three));
    rows.push(...(await posture(ctx, one, three)));
    return rows;
  } catch (err) {
    if (cluster) {
      cluster.failed = true;
      ctx.log(`cluster logs:\n${cluster.diagnostics(20)}`);
    }
    throw err;
  } finally {
    await cluster?.close();
    process.off('exit', killNats);
    await embedded?.stop();
    await rm(embeddedDir, { recursive: true, force: true });
  }
}

function embeddedSide(node: RunningNode): Side {
  return {
    label: 'one',
    origin: node.origin,
    caFile: join(node.dataDir, 'pki', 'ca.pem'),
    token: node.token,
    // Client API calls (full URLs: login, enrollment) go without the admin's session.
    call: (method, path, body) => node.node.request(method, path, body, /^https?:/.test(path) ? undefined : node.token),
    clientBase: `${node.origin}/edge/client/v1`,
    grpc: [node.node.grpc],
  };
}

async function clusterSide(cluster: Cluster): Promise<Side> {
  const token = await cluster.login();
  return {
    label: 'three',
    origin: cluster.balancerUrl,
    caFile: cluster.nodes[0].caPath,
    token,
    call: (method, path, body) =>
      /^https?:/.test(path) ? clientCall(cluster, method, path, body) : cluster.lb.request(method, path, { body, token, timeoutMs: 10_000 }),
    clientBase: `${cluster.balancerUrl}/edge/client/v1`,
    grpc: cluster.nodes.map((n) => `127.0.0.1:${n.grpcPort}`),
  };
}

/** A client API request (a full URL) through the balancer, without a session. */
function clientCall(cluster: Cluster, method: string, url: string, body: unknown) {
  const base = `${cluster.balancerUrl}/edge/client/v1`;
  if (!url.startsWith(base)) throw new Error(`not a client API URL: ${url}`);
  return cluster.lbClient.request(method, url.slice(base.length), { body, timeoutMs: 10_000 });
}

async function create(side: Side, path: string, body: Record<string, unknown>): Promise<string> {
  const res = await side.call('POST', path, body);
  if (res.status !== 201) throw new Error(`${side.label} ${path}: ${res.status} ${res.text}`);
  return res.body.data.id as string;
}

/** The same data on each side: a few policies selecting the created identities' attribute (so
 * a create links to policies, as in the one-node row), and IDENTITIES identities to read. */
async function prepare(side: Side): Promise<string[]> {
  for (let i = 0; i < 5; i++) {
    await create(side, '/service-policies', { name: `bench-sp-${i}`, type: i % 2 ? 'Bind' : 'Dial', semantic: 'AnyOf', identityRoles: ['#team3'], serviceRoles: ['#all'] });
    await create(side, '/edge-router-policies', { name: `bench-erp-${i}`, semantic: 'AnyOf', identityRoles: ['#team3'], edgeRouterRoles: ['#all'] });
  }
  const ids: string[] = [];
  for (let i = 0; i < IDENTITIES; i += 16) {
    const batch = Array.from({ length: Math.min(16, IDENTITIES - i) }, (_, k) => i + k);
    ids.push(...(await Promise.all(batch.map((n) => create(side, '/identities', { name: `bench-read-${n}`, type: 'Device', isAdmin: false, roleAttributes: ['team3'] })))));
  }
  return ids;
}

/** Lets the nodes finish what set-up left behind (apply, caches) before measuring. */
async function settle(cluster: Cluster): Promise<void> {
  await cluster.waitBalanced();
  await sleep(2_000);
}

// ---- CPU of the cluster's processes ----

/** This process's children by kind, read from /proc: Weft nodes, NATS servers, HAProxy. */
function clusterPids(exclude: number[]): Record<'nodes' | 'nats' | 'haproxy', number[]> {
  const out = { nodes: [] as number[], nats: [] as number[], haproxy: [] as number[] };
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (exclude.includes(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.split(') ')[1].split(' ')[1]);
      if (ppid !== process.pid) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes('nats-server')) out.nats.push(pid);
      else if (cmd.includes('haproxy')) out.haproxy.push(pid);
      else if (cmd.includes('main.js')) out.nodes.push(pid);
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

function cpuOf(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += processCpuMicros(pid);
    } catch {
      // ended
    }
  }
  return total;
}

function writesOf(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += processWriteCalls(pid);
    } catch {
      // ended
    }
  }
  return total;
}

/** CPU (µs) per request of each kind of process, and the nodes' write calls per request. */
type Breakdown = { nodes: number; nats: number; haproxy: number; loadgen: number; nodeWrites: number };

/** A load through the balancer with the CPU per request of every cluster process. */
async function runClusterLoad(spec: LoadSpec, exclude: number[]): Promise<LoadResult & { breakdown: Breakdown }> {
  const pids = clusterPids(exclude);
  const before = { nodes: cpuOf(pids.nodes), nats: cpuOf(pids.nats), haproxy: cpuOf(pids.haproxy), nodeWrites: writesOf(pids.nodes) };
  const result = await runLoad(spec);
  const sent = Math.max(1, (result.requests * (spec.durationMs + spec.warmupMs)) / spec.durationMs);
  return {
    ...result,
    breakdown: {
      nodes: (cpuOf(pids.nodes) - before.nodes) / sent,
      nats: (cpuOf(pids.nats) - before.nats) / sent,
      haproxy: (cpuOf(pids.haproxy) - before.haproxy) / sent,
      loadgen: result.cpuUsPerRequest,
      nodeWrites: (writesOf(pids.nodes) - before.nodeWrites) / sent,
    },
  };
}

/** Paired runs (embedded, cluster, embedded, ...) of one request kind at 64 connections. */
async function compareLoad(
  ctx: ScenarioContext,
  name: string,
  target: number,
  one: Side,
  three: Side,
  embedded: RunningNode,
  cluster: Cluster,
  spec: RequestSpec,
): Promise<Row> {
  ctx.log(name);
  const embeddedPid = embedded.node.proc.pid!;
  const b: (LoadResult & { serverCpuUsPerRequest: number })[] = [];
  const t: (LoadResult & { breakdown: Breakdown })[] = [];
  let run = 0;
  for (let i = 0; i < ctx.pairs; i++) {
    const profiled = i === 0 ? [embeddedPid, ...clusterPids([embeddedPid]).nodes] : [];
    toggleProfiles(profiled);
    b.push(await runLoadMeasured({ ...ctx.timing, connections: CONNECTIONS, origin: one.origin, caFile: one.caFile, ...spec(one, run++) }, embeddedPid));
    t.push(await runClusterLoad({ ...ctx.timing, connections: CONNECTIONS, origin: three.origin, caFile: three.caFile, ...spec(three, run++) }, [embeddedPid]));
    toggleProfiles(profiled);
    const c = t[i].breakdown;
    ctx.log(`  pair ${i + 1}: embedded ${b[i].rps.toFixed(0)} req/s, cluster ${t[i].rps.toFixed(0)} req/s (${JSON.stringify(t[i].statuses)}, ${t[i].errors} errors); ` +
      `cluster CPU/request: nodes ${c.nodes.toFixed(0)} µs, NATS ${c.nats.toFixed(0)} µs, HAProxy ${c.haproxy.toFixed(0)} µs; nodes' write calls/request ${c.nodeWrites.toFixed(2)}`);
  }
  await settle(cluster);
  return pairedRow(name, b, t, (m, us) =>
    `3 nodes ${us(m('nodes'))}, 3 NATS ${us(m('nats'))}, HAProxy ${us(m('haproxy'))}, load generator ${us(m('loadgen'))}, nodes' write calls ${m('nodeWrites').toFixed(1)}`, target);
}

/** The row of paired runs: the medians, the median of the pairs' ratios and the CPU per request,
 * the cluster's processes as `cluster` names them from the medians of the breakdown. */
function pairedRow(
  name: string,
  b: (LoadResult & { serverCpuUsPerRequest: number })[],
  t: (LoadResult & { breakdown: Breakdown })[],
  cluster: (m: (f: keyof Breakdown) => number, us: (n: number) => string) => string,
  target?: number,
): Row {
  const ratio = median(t.map((r, i) => r.rps / b[i].rps));
  const us = (n: number) => `${Math.round(n)} µs`;
  const m = (f: keyof Breakdown) => median(t.map((r) => r.breakdown[f]));
  return {
    scenario: name,
    connections: CONNECTIONS,
    rps: median(t.map((r) => r.rps)),
    p50: median(t.map((r) => r.p50)),
    p99: median(t.map((r) => r.p99)),
    baselineRps: median(b.map((r) => r.rps)),
    ratio,
    value: `CPU/request: ${cluster(m, us)} (embedded node ${us(median(b.map((r) => r.serverCpuUsPerRequest)))}, its load generator ${us(median(b.map((r) => r.cpuUsPerRequest)))})`,
    target: target === undefined ? 'reported' : `≥ ${target} × one node`,
    pass: target === undefined ? undefined : ratio >= target,
    statuses: t[t.length - 1].statuses,
    errors: t.reduce((n, r) => n + r.errors, 0),
  };
}

/**
 * Beside each ratio, what splits it: the same requests with all 64 connections on one cluster
 * node (no balancer; the other two only apply the log and own their shards), paired with the
 * embedded node. That node answers as many requests per wake-up as the embedded one, so its
 * CPU per request against the embedded node's is what the cluster's path itself costs; the rest
 * of a request's cost through the balancer is HAProxy and three nodes sharing the cores.
 */
async function direct(ctx: ScenarioContext, name: string, one: Side, three: Side, embedded: RunningNode, cluster: Cluster, spec: RequestSpec): Promise<Row> {
  ctx.log(name);
  const embeddedPid = embedded.node.proc.pid!;
  const load = (side: Side, origin: string, run: number): LoadSpec => ({ ...ctx.timing, connections: CONNECTIONS, origin, caFile: side.caFile, ...spec(side, run) });
  const b: (LoadResult & { serverCpuUsPerRequest: number })[] = [];
  const t: (LoadResult & { breakdown: Breakdown })[] = [];
  // Run numbers apart from compareLoad's, so creates get names of their own.
  for (let i = 0, run = 100; i < ctx.pairs; i++) {
    b.push(await runLoadMeasured(load(one, one.origin, run++), embeddedPid));
    t.push(await runClusterLoad(load(three, cluster.nodes[0].url, run++), [embeddedPid]));
    const c = t[i].breakdown;
    ctx.log(`  pair ${i + 1}: embedded ${b[i].rps.toFixed(0)} req/s at ${b[i].serverCpuUsPerRequest.toFixed(0)} µs, one cluster node ${t[i].rps.toFixed(0)} req/s ` +
      `(${JSON.stringify(t[i].statuses)}); CPU/request: nodes ${c.nodes.toFixed(0)} µs, NATS ${c.nats.toFixed(0)} µs, load generator ${c.loadgen.toFixed(0)} µs`);
  }
  await settle(cluster);
  return pairedRow(name, b, t, (m, us) => `3 nodes ${us(m('nodes'))}, 3 NATS ${us(m('nats'))}, load generator ${us(m('loadgen'))}`);
}

/** The NATS cluster alone: appends of a log entry's size with 64 in flight, and the stream
 * info round trip a read barrier makes. */
async function jetStreamAlone(ctx: ScenarioContext, cluster: Cluster): Promise<Row> {
  const log = await streamSize(cluster.nats.urls, `weft-${cluster.name}-log`);
  const probe = await probeJetStream(cluster.nats.urls, { replicas: 3, inFlight: CONNECTIONS, bytes: Math.round(log.avgBytes), durationMs: ctx.timing.durationMs });
  ctx.log(`JetStream alone: ${JSON.stringify(probe)}; log entries average ${log.avgBytes.toFixed(0)} bytes`);
  return {
    scenario: `JetStream alone: appends to an R3 stream, ${CONNECTIONS} in flight, ${Math.round(log.avgBytes)} bytes (a create's average log entry)`,
    connections: CONNECTIONS,
    rps: probe.appendsPerSecond,
    p50: probe.appendP50,
    p99: probe.appendP99,
    value: `stream info (a read barrier's query), ${CONNECTIONS} in flight: ${probe.infoPerSecond.toFixed(0)}/s, p50 ${probe.infoP50.toFixed(2)} ms`,
    target: 'reported',
  };
}

/** Prints the summaries of the profiles taken during the first pair (see PROFILE_DIR). */
async function profiles(ctx: ScenarioContext, cluster: Cluster, embedded: RunningNode, dir: string): Promise<void> {
  const labels = new Map<number, string>([[embedded.node.proc.pid!, 'embedded node']]);
  for (const pid of clusterPids([embedded.node.proc.pid!]).nodes) {
    const node = cluster.nodes.find((n) => readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`WEFT_LISTEN=127.0.0.1:${n.port}`));
    labels.set(pid, `cluster node ${node?.name ?? '?'}`);
  }
  await sleep(1_000);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const pid = Number(file.split('-')[0]);
    if (!labels.has(pid)) continue;
    const summary = summarise(join(dir, file));
    ctx.log(`${labels.get(pid)} (${join(dir, file)}): ${summary.busyMs.toFixed(0)} ms busy\n${formatSummary(summary)}`);
  }
}

/** SIGUSR2 to every node (starts or ends a profile, see PROFILE_DIR). */
function toggleProfiles(pids: number[]): void {
  if (PROFILE_DIR) for (const pid of pids) process.kill(pid, 'SIGUSR2');
}

// ---- failover ----

interface ControllerInfo {
  id: string;
  isOnline: boolean;
}

async function onlineMembers(node: ClusterNode, token: string): Promise<string[]> {
  const res = await node.mgmt.request('GET', '/controllers', { token, timeoutMs: 5_000 });
  if (res.status !== 200) throw new Error(`GET /controllers on ${node.name}: ${res.status} ${res.text}`);
  return (res.body.data as ControllerInfo[]).filter((c) => c.isOnline).map((c) => c.id);
}

function nodeIdOf(node: ClusterNode): string {
  const id = node.listening?.node;
  if (typeof id !== 'string') throw new Error(`${node.name}: no node id in its listening line`);
  return id;
}

/** PATCHes every id through `node` until each has succeeded once; ms from `since` to the last
 * success (undefined when not all within the limit). */
async function patchUntilAll(node: ClusterNode, token: string, ids: string[], since: number, limitMs: number, tag: string): Promise<{ ms?: number; statuses: Record<string, number> }> {
  const pending = new Set(ids);
  const statuses: Record<string, number> = {};
  while (pending.size > 0 && Date.now() - since < limitMs) {
    await Promise.all(
      [...pending].map(async (id) => {
        let label = 'no answer';
        try {
          const res = await node.mgmt.request('PATCH', `/identities/${id}`, { body: { tags: { failover: tag } }, token, timeoutMs: 3_000 });
          label = String(res.status);
          if (res.status === 200) pending.delete(id);
        } catch {
          // no answer within the time: try again
        }
        statuses[label] = (statuses[label] ?? 0) + 1;
      }),
    );
    if (pending.size > 0) await sleep(50);
  }
  return { ms: pending.size === 0 ? Date.now() - since : undefined, statuses };
}

/** kill -9 of the node owning the shards of some identities; the time until a PATCH of each,
 * sent to a survivor, succeeds. The victim starts again afterwards (a different one each run). */
async function failover(ctx: ScenarioContext, cluster: Cluster, three: Side, ids: string[]): Promise<Row> {
  const runs = ctx.pairs >= 3 ? FAILOVER_RUNS : 1;
  const times: number[] = [];
  const notes: string[] = [];
  for (let run = 0; run < runs; run++) {
    await cluster.ensureAllRunning();
    const victim = cluster.nodes[(run + 1) % cluster.nodes.length];
    const survivor = cluster.nodes.find((n) => n !== victim)!;
    await waitMembers(survivor, three.token, cluster.nodes.length);
    const members = await onlineMembers(survivor, three.token);
    const victimId = nodeIdOf(victim);
    // Up to 8 identities, each on a different shard of the victim's.
    const byShard = new Map<number, string>();
    for (const id of ids) {
      const shard = shardOf(id);
      if (byShard.size < 8 && shardOwner(shard, members) === victimId && !byShard.has(shard)) byShard.set(shard, id);
    }
    const shards = [...byShard.keys()];
    const targets = [...byShard.values()];
    if (targets.length === 0) throw new Error(`no identity on a shard of ${victim.name} (${victimId}) among ${members.join(', ')}`);
    const warm = await patchUntilAll(survivor, three.token, targets, Date.now(), 10_000, `warm-${run}`);
    if (warm.ms === undefined) throw new Error(`PATCHes through ${survivor.name} failed before the kill: ${JSON.stringify(warm.statuses)}`);
    ctx.log(`failover run ${run + 1}: kill -9 ${victim.name} (${victimId}), owner of shards ${shards.join(', ')} among others; PATCH through ${survivor.name}`);
    const killedAt = Date.now();
    await victim.kill();
    const result = await patchUntilAll(survivor, three.token, targets, killedAt, FAILOVER_LIMIT_MS, `run-${run}`);
    ctx.log(`  took writes again after ${result.ms ?? `more than ${FAILOVER_LIMIT_MS}`} ms; answers meanwhile ${JSON.stringify(result.statuses)}`);
    times.push(result.ms ?? Infinity);
    notes.push(JSON.stringify(result.statuses));
    await victim.start();
    await cluster.waitBalanced();
    await waitMembers(survivor, three.token, cluster.nodes.length);
    await patchUntilAll(victim, three.token, targets, Date.now(), 15_000, `back-${run}`);
    await sleep(1_000);
  }
  const mid = median(times);
  return {
    scenario: `kill -9 of a shard owner until its shards take writes again (PATCH through a survivor; ${runs} run${runs > 1 ? 's' : ''}, median)`,
    connections: 0,
    rps: 0,
    p50: 0,
    p99: 0,
    value: `${(mid / 1000).toFixed(2)} s (runs: ${times.map((t) => (Number.isFinite(t) ? (t / 1000).toFixed(2) : '>20')).join(', ')} s)`,
    target: '≤ 5 s',
    pass: mid <= 5_000,
  };
}

/** Waits until `node` lists `count` online controllers (members). */
async function waitMembers(node: ClusterNode, token: string, count: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const online = await onlineMembers(node, token).catch(() => []);
    if (online.length >= count) return;
    if (Date.now() > deadline) throw new Error(`${node.name} lists ${online.length} online members, not ${count}, after ${timeoutMs} ms`);
    await sleep(200);
  }
}

// ---- posture over gRPC ----

interface PostureSetup {
  checkId: string;
  users: string[];
  routers: { certFile: string; keyFile: string }[];
}

/** Policies, an OS check, POSTURE_USERS logged-in identities it applies to, and `routers`
 * enrolled routers (erott with CSRs, the real path), their keys and certificates in `dir`. */
async function setUpPosture(side: Side, routers: number, dir: string): Promise<PostureSetup> {
  await create(side, '/edge-router-policies', { name: 'bench-posture-erp', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#bench'] });
  await create(side, '/service-edge-router-policies', { name: 'bench-posture-serp', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#bench'] });
  const serviceId = await create(side, '/services', { name: 'bench-posture-svc', encryptionRequired: true });
  const checkId = await create(side, '/posture-checks', { name: 'bench-os', typeId: 'OS', roleAttributes: ['bench-os'], operatingSystems: [{ type: 'Linux', versions: ['>=5.10.0'] }] });
  await create(side, '/service-policies', { name: 'bench-posture-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#bench-posture'], serviceRoles: [`@${serviceId}`], postureCheckRoles: ['#bench-os'] });
  const users: string[] = [];
  for (let i = 0; i < POSTURE_USERS; i++) {
    const id = await create(side, '/identities', { name: `bench-posture-${i}`, type: 'Device', isAdmin: false, roleAttributes: ['bench-posture'] });
    await create(side, '/authenticators', { method: 'updb', identityId: id, username: `bench-posture-${i}`, password: 'bench-posture-pw' });
    const login = await side.call('POST', `${side.clientBase}/authenticate?method=password`, { username: `bench-posture-${i}`, password: 'bench-posture-pw' });
    if (login.status !== 200) throw new Error(`${side.label}: login of bench-posture-${i}: ${login.status} ${login.text}`);
    users.push(id);
  }
  const out: PostureSetup['routers'] = [];
  for (let r = 0; r < routers; r++) {
    const routerId = await create(side, '/edge-routers', { name: `bench-router-${r}`, roleAttributes: ['bench'] });
    const router = await side.call('GET', `/edge-routers/${routerId}`);
    const key = newKey('ec');
    const enrolled = await side.call('POST', `${side.clientBase}/enroll/erott`, {
      token: router.body.data.enrollmentToken,
      serverCsr: createCsr(newKey('ec'), 'localhost', { dnsNames: ['localhost'], ips: ['127.0.0.1'] }),
      clientCsr: createCsr(key, routerId),
    });
    if (enrolled.status !== 200) throw new Error(`${side.label}: router enrollment: ${enrolled.status} ${enrolled.text}`);
    const certFile = join(dir, `${side.label}-router-${r}.pem`);
    const keyFile = join(dir, `${side.label}-router-${r}.key.pem`);
    await writeFile(certFile, enrolled.body.data.cert, { mode: 0o600 });
    await writeFile(keyFile, key.keyPem, { mode: 0o600 });
    out.push({ certFile, keyFile });
  }
  return { checkId, users, routers: out };
}

/** Events/s on one embedded node (one stream, 64 in flight) and on the cluster (one router per
 * node, each streaming to its node, 64 in flight in all), paired. */
async function posture(ctx: ScenarioContext, one: Side, three: Side): Promise<Row[]> {
  ctx.log('posture events over gRPC');
  const dir = await mkdtemp(join(BENCH_DIR, 'run-cluster-posture-'));
  try {
    const a = await setUpPosture(one, 1, dir);
    const c = await setUpPosture(three, three.grpc.length, dir);
    await sleep(1_000);
    const single: LoadResult[] = [];
    const spread: { rps: number; p50: number; p99: number; errors: number }[] = [];
    for (let i = 0; i < ctx.pairs; i++) {
      single.push(await runDriver({ address: one.grpc[0], caFile: one.caFile, ...a.routers[0], identityIds: a.users, checkId: a.checkId, inFlight: POSTURE_IN_FLIGHT, ...ctx.timing }));
      const lanes = three.grpc.length;
      const results = await Promise.all(
        three.grpc.map((address, n) =>
          runDriver({
            address, caFile: three.caFile, ...c.routers[n], identityIds: c.users, checkId: c.checkId, ...ctx.timing,
            inFlight: Math.floor(POSTURE_IN_FLIGHT / lanes) + (n < POSTURE_IN_FLIGHT % lanes ? 1 : 0),
          }),
        ),
      );
      spread.push({
        rps: results.reduce((s, r) => s + r.rps, 0),
        p50: median(results.map((r) => r.p50)),
        p99: Math.max(...results.map((r) => r.p99)),
        errors: results.reduce((s, r) => s + r.errors, 0),
      });
      ctx.log(`  pair ${i + 1}: one node ${single[i].rps.toFixed(0)} events/s, cluster ${spread[i].rps.toFixed(0)} events/s (${results.map((r) => r.rps.toFixed(0)).join(' + ')})`);
    }
    const rps = median(spread.map((r) => r.rps));
    const baselineRps = median(single.map((r) => r.rps));
    return [{
      scenario: `posture events over gRPC, one router stream per node (3 nodes, ${POSTURE_IN_FLIGHT} in flight in all) vs one stream on 1 embedded node`,
      connections: three.grpc.length,
      rps,
      p50: median(spread.map((r) => r.p50)),
      p99: median(spread.map((r) => r.p99)),
      baselineRps,
      ratio: median(spread.map((r, i) => r.rps / single[i].rps)),
      value: `${rps.toFixed(0)} events/s (one node ${baselineRps.toFixed(0)} events/s, p50 ${median(single.map((r) => r.p50)).toFixed(1)} ms)`,
      target: 'reported',
      errors: spread.reduce((n, r) => n + r.errors, 0),
    }];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
