// Memory set by the budget, not by the data: the same questions at 1,000, 100,000 and 1,000,000
// identities (seeded through the log and apply path, each data set built once and kept in
// .bench-data/), each node at the default budget: RSS, start to serving, and the p50 of GET
// identity, a name-range list, an anyOf(roleAttributes) list with totalCount, accessible services
// and policy advice; at the smallest and largest size run, GET and POST against bare Koa at 64
// connections. `WEFT_BENCH_SIZES=thousand,huge` limits the sizes run. The size ratios compare
// each size with the smallest run of the same shape (`thousand` is 1,000 identities with the
// large set's services and policies).

import { readFileSync } from 'node:fs';
import { runLoad, runLoadMeasured, seededCopy, startBenchNode, median, type RunningNode } from '../lib/harness.js';
import { LARGE, SMALL, type SeedSizes } from '../lib/seed.js';
import { againstBaseline, type TargetSpec } from './throughput.js';
import type { Row, ScenarioContext } from './types.js';

export const HUGE: SeedSizes = { ...LARGE, identities: 1_000_000 };
/** 1,000 identities with the large set's services, policies and routers: the 1k point of the
 * size ratios. The small set (OpenZiti's small scale model: 200 services, 250 service
 * policies) answers lighter questions than 1M does, whatever the identities: there a quarter
 * of the identities reach no service and two in five less than a page of them, against one in
 * thirteen at 1M, so its accessible-services page is smaller and cheaper to send. */
export const THOUSAND: SeedSizes = { ...LARGE, identities: 1_000 };
const SIZES: [string, SeedSizes][] = [['small', SMALL], ['thousand', THOUSAND], ['large', LARGE], ['huge', HUGE]];
const DEFAULT_SIZES = ['small', 'thousand', 'large', 'huge'];
const pad = (n: number) => String(n).padStart(6, '0');

/** Resident and peak resident memory of a process, in MiB (Linux /proc). */
function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** Ids spread over the whole data set (a fixed sample: the same share at every size). */
function spread(total: number, count: number): string[] {
  let s = 7;
  return Array.from({ length: count }, () => {
    s = (s * 48271) % 2147483647;
    return `id-${pad(s % total)}`;
  });
}

/** 50 services spread over the set: the services asked about in policy advice. */
function serviceSample(sizes: SeedSizes): string[] {
  return Array.from({ length: 50 }, (_, i) => `svc-${pad((i * 19) % sizes.services)}`);
}

/** `{id}/policy-advice/{serviceId}` picks: each identity with one of the services in turn. */
function advicePicks(ids: string[], services: string[]): string[] {
  return ids.map((id, i) => `${id}/policy-advice/${services[i % services.length]}`);
}

async function p50(ctx: ScenarioContext, node: RunningNode, path: string, picks?: string[]): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < ctx.pairs; i++) {
    const r = await runLoad({ ...ctx.timing, origin: node.origin, caFile: ctx.caFile(node), connections: 1, method: 'GET', path, picks, headers: { 'zt-session': node.token } });
    if (r.errors > 0 || Object.keys(r.statuses).some((s) => s !== '200')) throw new Error(`${path}: ${JSON.stringify(r.statuses)} ${r.errors} errors`);
    runs.push(r.p50);
  }
  return median(runs);
}

interface Measured {
  sizes: SeedSizes;
  identities: number;
  startSeconds: number;
  warmMs?: number;
  rss: number;
  peak: number;
  p50: Record<string, number>;
  /** GET and POST against Koa at 64 connections (the smallest and the largest size). */
  koa: Row[];
}

const QUERIES = ['GET identity', 'name-range list', 'anyOf list with totalCount', 'accessible services', 'policy advice'];

async function measure(ctx: ScenarioContext, name: string, sizes: SeedSizes, againstKoa: boolean): Promise<Measured> {
  const dir = await seededCopy(name, sizes, ctx.log);
  const node = await startBenchNode(dir, { WEFT_MAILBOX_SIZE: '1024' });
  try {
    const startSeconds = node.servingSeconds;
    // The tree of a large set may take longer than startBenchNode waits (it builds in the
    // background): measure the steady state, up to five minutes.
    for (let i = 0; i < 3_000 && !node.node.stdout().includes('replica cached in memory'); i++) await new Promise((r) => setTimeout(r, 100));
    const warmLine = node.node.stdout().split('\n').find((line) => line.includes('replica cached in memory'));
    const warm = warmLine ? (JSON.parse(warmLine) as { ms: number; indexInMemory: boolean }) : undefined;
    const first = await node.node.request('GET', '/identities?limit=1', undefined, node.token);
    const identities = first.body.meta.pagination.totalCount as number;
    const seeded = identities - 1; // the admin
    const ids = spread(seeded, 2_000);
    const name = (n: number) => `identity-${pad(n)}`;
    const range = `name >= "${name(Math.floor(seeded / 2))}" and name < "${name(Math.floor(seeded / 2 + seeded / 10))}" sort by name desc`;
    const services = serviceSample(sizes);
    const p = {
      'GET identity': await p50(ctx, node, '/edge/management/v1/identities/{pick}', ids),
      'name-range list': await p50(ctx, node, `/edge/management/v1/identities?filter=${encodeURIComponent(range)}&limit=10`),
      'anyOf list with totalCount': await p50(ctx, node, `/edge/management/v1/identities?filter=${encodeURIComponent('anyOf(roleAttributes) = "team7"')}&limit=10`),
      'accessible services': await p50(ctx, node, '/edge/management/v1/identities/{pick}/services?policyType=dial', ids),
      'policy advice': await p50(ctx, node, '/edge/management/v1/identities/{pick}', advicePicks(ids, services)),
    };
    const { rss, peak } = rssOf(node.node.proc.pid!);
    const koa: Row[] = [];
    if (againstKoa) {
      const at = ` at ${seeded.toLocaleString('en')} identities`;
      const get = { method: 'GET', path: '/edge/management/v1/identities/{pick}', picks: ids, headers: { 'zt-session': node.token } };
      koa.push(...(await againstBaseline(ctx, node, `GET /identities/{id}${at}`, () => get, 0.5, [64])));
      const tag = `${process.pid}-${Date.now()}`;
      const post = (run: number): TargetSpec => ({
        method: 'POST',
        path: '/edge/management/v1/identities',
        headers: { 'zt-session': node.token, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench-${tag}-${run}-{i}`, type: 'Device', isAdmin: false, roleAttributes: ['team3'] }),
      });
      koa.push(...(await againstBaseline(ctx, node, `POST /identities (durable)${at}`, post, 0.08, [64])));
    }
    const after = rssOf(node.node.proc.pid!);
    return { sizes, identities: seeded, startSeconds, warmMs: warm?.indexInMemory ? warm.ms : undefined, rss, peak: Math.max(peak, after.peak), p50: p, koa };
  } finally {
    await node.stop();
  }
}

export async function memoryScale(ctx: ScenarioContext): Promise<Row[]> {
  const only = process.env.WEFT_BENCH_SIZES?.split(',') ?? DEFAULT_SIZES;
  const rows: Row[] = [];
  const results: Measured[] = [];
  const chosen = SIZES.filter(([name]) => only.includes(name));
  for (const [name, sizes] of chosen) {
    // Koa ratios at the smallest and the largest size run.
    const m = await measure(ctx, name, sizes, name === chosen[0][0] || name === chosen[chosen.length - 1][0]);
    results.push(m);
    const at = `${m.identities.toLocaleString('en')} identities`;
    rows.push({ scenario: `node RSS at ${at} (default budget; peak)`, connections: 0, rps: 0, p50: 0, p99: 0, value: `${m.rss.toFixed(0)} MiB (peak ${m.peak.toFixed(0)})`, target: '≤ 2,048 MiB', pass: m.peak <= 2048 });
    rows.push({ scenario: `start to serving at ${at} (index tree ${m.warmMs === undefined ? 'not in memory: from LevelDB' : `in memory after ${(m.warmMs / 1000).toFixed(1)} s`})`, connections: 0, rps: 0, p50: 0, p99: 0, value: `${m.startSeconds.toFixed(2)} s`, target: '≤ 10 s', pass: m.startSeconds <= 10 });
    for (const q of QUERIES) rows.push({ scenario: `${q} at ${at}`, connections: 1, rps: 0, p50: m.p50[q], p99: 0, target: 'reported' });
    rows.push(...m.koa);
  }
  // Each size against the smallest run of the same shape (the same services, policies and
  // routers: the same questions), and against the smallest run if that has another shape.
  for (const m of results) {
    const like = results.find((r) => r !== m && r.identities < m.identities && sameShape(r.sizes, m.sizes));
    const bases = [like, results[0]].filter((b, i, all): b is Measured => b !== undefined && b !== m && all.indexOf(b) === i);
    for (const base of bases) {
      const shape = sameShape(base.sizes, m.sizes) ? '' : ` (${base.sizes.services.toLocaleString('en')} services, ${base.sizes.servicePolicies} service policies there)`;
      for (const q of QUERIES) {
        const ratio = m.p50[q] / base.p50[q];
        rows.push({ scenario: `${q} p50 at ${m.identities.toLocaleString('en')} ÷ at ${base.identities.toLocaleString('en')}${shape}`, connections: 1, rps: 0, p50: 0, p99: 0, value: `${ratio.toFixed(2)}×`, target: shape ? 'reported' : '≤ 1.25×', pass: shape ? undefined : ratio <= 1.25 });
      }
    }
  }
  return rows;
}

/** The same data but for the number of identities. */
function sameShape(a: SeedSizes, b: SeedSizes): boolean {
  return (Object.keys(a) as (keyof SeedSizes)[]).every((k) => k === 'identities' || a[k] === b[k]);
}

/**
 * `memory-scale-paired`: the size ratios with the same load on both sides. The 1k point
 * (`thousand`) and 1M nodes run together and every query is measured on each in turn, the
 * order swapped every round (one node at a time, minutes apart, a shared machine's load moves
 * the ratios by ±40%). GET identity, the anyOf list with totalCount, accessible services and
 * policy advice, with memory-scale's picks. Reports the median p50s, their ratio and the
 * node's CPU per request.
 * `WEFT_BENCH_SIZES=thousand,large` pairs other sizes (the first is the base).
 */
export async function memoryScalePaired(ctx: ScenarioContext): Promise<Row[]> {
  const names = process.env.WEFT_BENCH_SIZES?.split(',') ?? ['thousand', 'huge'];
  const chosen = names.map((n) => SIZES.find(([name]) => name === n)).filter((x): x is [string, SeedSizes] => x !== undefined);
  if (chosen.length !== 2) throw new Error('memory-scale-paired: WEFT_BENCH_SIZES names two sizes');
  const nodes: { node: RunningNode; ids: string[]; advice: string[]; identities: number }[] = [];
  try {
    for (const [name, sizes] of chosen) {
      const node = await startBenchNode(await seededCopy(name, sizes, ctx.log), { WEFT_MAILBOX_SIZE: '1024' });
      nodes.push({ node, ids: [], advice: [], identities: 0 });
      for (let i = 0; i < 3_000 && !node.node.stdout().includes('replica cached in memory'); i++) await new Promise((r) => setTimeout(r, 100));
      const first = await node.node.request('GET', '/identities?limit=1', undefined, node.token);
      const seeded = (first.body.meta.pagination.totalCount as number) - 1;
      const ids = spread(seeded, 2_000);
      Object.assign(nodes[nodes.length - 1], { ids, advice: advicePicks(ids, serviceSample(sizes)), identities: seeded });
    }
    const queries: [string, (n: (typeof nodes)[0]) => { path: string; picks?: string[] }][] = [
      ['GET identity', (n) => ({ path: '/edge/management/v1/identities/{pick}', picks: n.ids })],
      ['anyOf list with totalCount', () => ({ path: `/edge/management/v1/identities?filter=${encodeURIComponent('anyOf(roleAttributes) = "team7"')}&limit=10` })],
      ['accessible services', (n) => ({ path: '/edge/management/v1/identities/{pick}/services?policyType=dial', picks: n.ids })],
      ['policy advice', (n) => ({ path: '/edge/management/v1/identities/{pick}', picks: n.advice })],
    ];
    const rounds = Math.max(3, ctx.pairs + 2);
    const p50s = queries.map(() => nodes.map(() => [] as number[]));
    const cpu = queries.map(() => nodes.map(() => [] as number[]));
    for (let r = 0; r < rounds; r++) {
      for (const [qi, [, spec]] of queries.entries()) {
        for (const ni of r % 2 === 0 ? [0, 1] : [1, 0]) {
          const n = nodes[ni];
          const out = await runLoadMeasured({ ...ctx.timing, origin: n.node.origin, caFile: ctx.caFile(n.node), connections: 1, method: 'GET', headers: { 'zt-session': n.node.token }, ...spec(n) }, n.node.node.proc.pid!);
          if (out.errors > 0 || Object.keys(out.statuses).some((st) => st !== '200')) throw new Error(`${spec(n).path}: ${JSON.stringify(out.statuses)} ${out.errors} errors`);
          p50s[qi][ni].push(out.p50);
          cpu[qi][ni].push(out.serverCpuUsPerRequest);
        }
      }
    }
    const [base, big] = nodes;
    return queries.map(([name], qi) => {
      const [b, g] = [median(p50s[qi][0]), median(p50s[qi][1])];
      const ratio = g / b;
      const cpus = `node CPU/request ${median(cpu[qi][0]).toFixed(0)} / ${median(cpu[qi][1]).toFixed(0)} µs`;
      return { scenario: `${name} p50 at ${big.identities.toLocaleString('en')} ÷ at ${base.identities.toLocaleString('en')}, paired (${rounds} rounds)`, connections: 1, rps: 0, p50: g, p99: 0, value: `${b.toFixed(3)} / ${g.toFixed(3)} ms = ${ratio.toFixed(2)}× (${cpus})`, target: '≤ 1.25×', pass: ratio <= 1.25 };
    });
  } finally {
    for (const n of nodes) await n.node.stop();
  }
}
