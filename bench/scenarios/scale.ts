// Behaviour at 100,000 identities: filtered/sorted/paged lists, GET and list against the same
// at 1,000, access questions (services of an identity, policy advice), and start-up time.

import { performance } from 'node:perf_hooks';
import { runLoad, seededCopy, startBenchNode, median, type RunningNode } from '../lib/harness.js';
import { LARGE, SMALL } from '../lib/seed.js';
import { hashPassword } from '../../src/workers/hash-password.js';
import { poolTaskRate } from '../lib/pool-rate.js';
import type { WorkerPriority } from '../../src/workers/thread-priority.js';
import type { Row, ScenarioContext } from './types.js';

/** A filtered (indexed `name` range), sorted, paged list whose filter matches a tenth of the
 * `identities` seeded (identity-050000..059999 of 100,000; identity-000500..000599 of 1,000), so
 * that every size answers a full page and counts a proportional `totalCount`. */
function listPath(identities: number): string {
  const name = (n: number) => `identity-${String(n).padStart(6, '0')}`;
  const filter = `name >= "${name(identities / 2)}" and name < "${name(identities / 2 + identities / 10)}" sort by name desc`;
  return `/edge/management/v1/identities?filter=${encodeURIComponent(filter)}&limit=10`;
}

async function latency(ctx: ScenarioContext, node: RunningNode, path: string, picks?: string[]) {
  const runs = [];
  for (let i = 0; i < ctx.pairs; i++) {
    runs.push(await runLoad({ ...ctx.timing, origin: node.origin, caFile: ctx.caFile(node), connections: 1, method: 'GET', path, picks, headers: { 'zt-session': node.token } }));
  }
  return { rps: median(runs.map((r) => r.rps)), p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)), statuses: runs[0].statuses, errors: runs.reduce((n, r) => n + r.errors, 0) };
}

async function picks(node: RunningNode, path: string): Promise<string[]> {
  const res = await node.node.request('GET', path, undefined, node.token);
  return (res.body.data as { id: string }[]).map((d) => d.id);
}

export async function listLarge(ctx: ScenarioContext): Promise<Row[]> {
  const node = await startBenchNode(await seededCopy('large', LARGE, ctx.log));
  try {
    const r = await latency(ctx, node, listPath(LARGE.identities));
    return [{ scenario: 'filtered, sorted, paged list over 100,000 identities', connections: 1, ...r, target: 'p50 ≤ 10 ms', pass: r.p50 <= 10 }];
  } finally {
    await node.stop();
  }
}

export async function sizeRatio(ctx: ScenarioContext): Promise<Row[]> {
  const out: Row[] = [];
  const measured: Record<string, { get: number; list: number }> = {};
  for (const [name, sizes] of [['small', SMALL], ['large', LARGE]] as const) {
    const node = await startBenchNode(await seededCopy(name, sizes, ctx.log));
    try {
      const ids = await picks(node, '/identities?limit=200');
      const get = await latency(ctx, node, '/edge/management/v1/identities/{pick}', ids);
      const list = await latency(ctx, node, listPath(sizes.identities));
      measured[name] = { get: get.p50, list: list.p50 };
      out.push({ scenario: `GET /identities/{id} at ${sizes.identities} identities`, connections: 1, ...get, target: 'reported' });
      out.push({ scenario: `list at ${sizes.identities} identities`, connections: 1, ...list, target: 'reported' });
    } finally {
      await node.stop();
    }
  }
  const getRatio = measured.large.get / measured.small.get;
  const listRatio = measured.large.list / measured.small.list;
  out.push({ scenario: 'GET p50 at 100k ÷ at 1k', connections: 1, rps: 0, p50: 0, p99: 0, value: `${getRatio.toFixed(2)}×`, target: '≤ 1.25×', pass: getRatio <= 1.25 });
  out.push({ scenario: 'list p50 at 100k ÷ at 1k', connections: 1, rps: 0, p50: 0, p99: 0, value: `${listRatio.toFixed(2)}×`, target: '≤ 1.25×', pass: listRatio <= 1.25 });
  return out;
}

export async function accessLarge(ctx: ScenarioContext): Promise<Row[]> {
  const node = await startBenchNode(await seededCopy('large', LARGE, ctx.log));
  try {
    const ids = await picks(node, '/identities?limit=200');
    const services = await picks(node, '/services?limit=50');
    const pairs = ids.map((id, i) => `${id}/policy-advice/${services[i % services.length]}`);
    const svc = await latency(ctx, node, '/edge/management/v1/identities/{pick}/services?policyType=dial', ids);
    const advice = await latency(ctx, node, '/edge/management/v1/identities/{pick}', pairs);
    return [
      { scenario: 'accessible services of one identity (100k identities, 500 policies)', connections: 1, ...svc, target: 'p50 ≤ 2 ms', pass: svc.p50 <= 2 },
      { scenario: 'policy advice (100k identities, 500 policies)', connections: 1, ...advice, target: 'p50 ≤ 2 ms', pass: advice.p50 <= 2 },
    ];
  } finally {
    await node.stop();
  }
}

export async function startLarge(ctx: ScenarioContext): Promise<Row[]> {
  const times: number[] = [];
  for (let i = 0; i < ctx.pairs; i++) {
    const dir = await seededCopy('large', LARGE, ctx.log);
    const t0 = performance.now();
    const node = await startBenchNode(dir, {}, { waitForCache: false });
    times.push((performance.now() - t0) / 1000);
    await node.stop();
  }
  const seconds = median(times);
  return [{ scenario: 'node start with 100,000 identities on disk (to serving, incl. first login)', connections: 0, rps: 0, p50: 0, p99: 0, value: `${seconds.toFixed(2)} s`, target: '≤ 3 s', pass: seconds <= 3 }];
}

const LOGIN_USERS = 64;
const LOGIN_PASSWORD = 'login-user-password';

/** Identities with a password each, for a login storm of many endpoints (one identity's logins
 * would queue in its actor). Returns their usernames. */
async function loginUsers(node: RunningNode): Promise<string[]> {
  const usernames: string[] = [];
  for (let i = 0; i < LOGIN_USERS; i++) {
    const username = `login-user-${i}`;
    const identity = await node.node.request('POST', '/identities', { name: username, type: 'User', isAdmin: false }, node.token);
    const authenticator = await node.node.request('POST', '/authenticators', { method: 'updb', identityId: identity.body.data.id, username, password: LOGIN_PASSWORD }, node.token);
    if (authenticator.status !== 201) throw new Error(`creating ${username}: ${authenticator.status} ${JSON.stringify(authenticator.body)}`);
    usernames.push(username);
  }
  return usernames;
}

/** Reads (16 connections) alone, then with 32 connections logging in as 64 different users, in
 * pairs on one node. */
async function readsUnderLogins(ctx: ScenarioContext, priority: WorkerPriority): Promise<{ unloadedRps: number; loadedRps: number; ratio: number; logins: number }> {
  const node = await startBenchNode(await seededCopy('small', SMALL, ctx.log), { WEFT_WORKER_THREADS: '2', WEFT_WORKER_PRIORITY: priority });
  try {
    const ids = await picks(node, '/identities?limit=200');
    const usernames = await loginUsers(node);
    const read = { ...ctx.timing, origin: node.origin, caFile: ctx.caFile(node), connections: 16, method: 'GET', path: '/edge/management/v1/identities/{pick}', picks: ids, headers: { 'zt-session': node.token } };
    const login = { ...ctx.timing, origin: node.origin, caFile: ctx.caFile(node), connections: 32, method: 'POST', path: '/edge/management/v1/authenticate?method=password', headers: { 'content-type': 'application/json' }, picks: usernames, body: JSON.stringify({ username: '{pick}', password: LOGIN_PASSWORD }) };
    const ratios: number[] = [];
    const unloaded: number[] = [];
    const loaded: number[] = [];
    const logins: number[] = [];
    for (let i = 0; i < ctx.pairs; i++) {
      const alone = await runLoad(read);
      const [under, logging] = await Promise.all([runLoad(read), runLoad(login)]);
      ratios.push(under.rps / alone.rps);
      unloaded.push(alone.rps);
      loaded.push(under.rps);
      logins.push(logging.statuses['200'] === undefined ? 0 : logging.rps * (logging.statuses['200'] / logging.requests));
    }
    return { unloadedRps: median(unloaded), loadedRps: median(loaded), ratio: median(ratios), logins: median(logins) };
  } finally {
    await node.stop();
  }
}

/** Argon2id verifications per second through a one-thread pool, 4 in flight (what one login
 * costs the pool). */
function verificationRate(): Promise<number> {
  const { hash, salt } = hashPassword(LOGIN_PASSWORD);
  return poolTaskRate(600, 4, (pool) => pool.verifyPassword(LOGIN_PASSWORD, hash, salt));
}

/** The budget row at the shipped worker priority (background), the same with the pool at normal
 * priority, which shows what the priority buys, and the cost of one password verification. */
export async function loginsVsReads(ctx: ScenarioContext): Promise<Row[]> {
  const shipped = await readsUnderLogins(ctx, 'background');
  const normal = await readsUnderLogins(ctx, 'normal');
  const rates: number[] = [];
  for (let i = 0; i < ctx.pairs; i++) rates.push(await verificationRate());
  const verifications = median(rates);
  const row = (name: string, m: typeof shipped, target: string, pass?: boolean): Row => ({
    scenario: name, connections: 16, rps: m.loadedRps, p50: 0, p99: 0, baselineRps: m.unloadedRps, ratio: m.ratio,
    value: `meanwhile ${Math.round(m.logins)} logins/s succeeded`, target, pass,
  });
  return [
    row('reads while logins saturate the node (16 read + 32 login connections, 64 users)', shipped, '≥ 0.8 × unloaded reads', shipped.ratio >= 0.8),
    row('(same, worker pool at normal priority; comparison)', normal, 'reported'),
    { scenario: 'Argon2id password verification on one worker thread (OpenZiti parameters)', connections: 0, rps: verifications, p50: 0, p99: 0, value: `${verifications.toFixed(0)}/s, ${(1000 / verifications).toFixed(2)} ms each`, target: 'reported' },
  ];
}
