// Long jobs against one request: the longest wait of a `/version` request while an integrity
// check, an unpaged list (`limit=-1`) and an integrity fix run over 100,000 identities.
// `/version` is asked one request after another on its own connection; the list's answer is
// read and dropped by another process, so its reading never delays this one's event loop. The node
// runs with bench/lib/loop-delay-preload.ts: each row also gives the node's own event-loop delay
// and garbage-collection pauses over the job, telling a blocked loop from time lost outside it.

import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent, fetch } from 'undici';
import { LevelKv } from '../../src/store/level-kv.js';
import { seededCopy, startBenchNode, type RunningNode } from '../lib/harness.js';
import { LARGE } from '../lib/seed.js';
import type { LoopWindow } from '../lib/loop-delay-preload.js';
import type { Row, ScenarioContext } from './types.js';

const PRELOAD = new URL('../lib/loop-delay-preload.js', import.meta.url).href;

/** The wait a request may have behind a long job. */
const TARGET_MS = 50;

/** What `/version` met while a job ran: its waits (the longest three with when they ended, epoch
 * ms), and how late this process's own 10 ms timer fired (a wait it caused itself, or lost its core). */
interface Waits {
  maxMs: number;
  p50Ms: number;
  p99Ms: number;
  count: number;
  jobMs: number;
  /** When the job started (epoch ms). */
  startedAt: number;
  longest: { at: number; ms: number }[];
  /** Every wait over 20 ms, with when it ended (epoch ms). */
  slow: { at: number; ms: number }[];
  clientDelayMaxMs: number;
  /** This process's timer delays over 20 ms: when (epoch ms), how late. */
  clientBlocks: { at: number; ms: number }[];
}

/** Runs `job` while `/version` is asked in a loop; the waits it met. */
async function versionWaits(node: RunningNode, job: () => Promise<void>): Promise<Waits> {
  const dispatcher = new Agent({ connect: { ca: node.node.caPem }, connections: 1 });
  const url = `${node.node.api}/version`;
  const waits: number[] = [];
  let longest: { at: number; ms: number }[] = [];
  const slow: { at: number; ms: number }[] = [];
  const own = monitorEventLoopDelay({ resolution: 10 });
  own.enable();
  const clientBlocks: { at: number; ms: number }[] = [];
  let tick = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    if (now - tick - 10 > 20) clientBlocks.push({ at: Date.now(), ms: now - tick - 10 });
    tick = now;
  }, 10);
  let running = true;
  const asking = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(url, { dispatcher });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/version answered ${res.status}`);
      const ms = performance.now() - started;
      waits.push(ms);
      if (longest.length < 3 || ms > longest[2].ms) longest = [...longest, { at: Date.now(), ms }].sort((a, b) => b.ms - a.ms).slice(0, 3);
      if (ms > 20) slow.push({ at: Date.now(), ms });
    }
  })();
  const started = performance.now();
  const startedAt = Date.now();
  try {
    await job();
  } finally {
    running = false;
    await asking;
    await dispatcher.close();
    own.disable();
    clearInterval(ticker);
  }
  const sorted = [...waits].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
  const clientDelayMaxMs = Math.max(0, own.max / 1e6 - 10);
  return { maxMs: at(1), p50Ms: at(0.5), p99Ms: at(0.99), count: waits.length, jobMs: performance.now() - started, startedAt, longest, slow, clientDelayMaxMs, clientBlocks };
}

/** Asks the preloaded monitor of the node for the window since the last ask (one more line in `file`). */
async function loopWindow(node: RunningNode, file: string): Promise<LoopWindow> {
  const lines = async () => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  const before = (await lines()).length;
  node.node.proc.kill('SIGUSR2');
  for (let i = 0; i < 200; i++) {
    const now = await lines();
    if (now.length > before) return JSON.parse(now[before]) as LoopWindow;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the node wrote no loop-delay window within 10 s');
}

/** The node's figures for a row: loop delay, longest GC pause and its kind. */
function describeLoop(w: LoopWindow): string {
  const [kind, pause] = Object.entries(w.gc).sort((a, b) => b[1].maxMs - a[1].maxMs)[0] ?? ['none', { maxMs: 0 }];
  return `node loop delay longest ${w.delayMaxMs.toFixed(1)} ms, p99 ${w.delayP99Ms.toFixed(1)} ms; longest GC pause ${pause.maxMs.toFixed(1)} ms (${kind}), ${w.gc.major?.count ?? 0} mark-compacts`;
}

/** The longest wait during which this process's own timer was never over 20 ms late: what the
 * node and the network made it wait, not the benchmark losing its core (0 when none over 20 ms). */
function longestNotOwn(r: Waits): string {
  const own = (x: { at: number; ms: number }) => r.clientBlocks.some((b) => b.at >= x.at - x.ms - 20 && b.at - b.ms <= x.at + 20);
  const notOwn = r.slow.filter((x) => !own(x)).map((x) => x.ms);
  // Only waits over 20 ms are dated.
  return notOwn.length > 0 ? `${Math.max(...notOwn).toFixed(1)} ms` : 'none over 20 ms';
}

/** What each of the longest waits overlapped (when it ended, from the job's start): the node's
 * own answer to it, its loop delays and GC pauses, and this process's delays. */
function aroundWaits(r: Waits, w: LoopWindow): string {
  return r.longest
    .map((x) => {
      const during = (at: number, ms = 0) => at >= x.at - x.ms - 20 && at - ms <= x.at + 20;
      const served = w.versions.filter((v) => during(v.at, v.ms)).map((v) => `node answered in ${v.ms} ms`);
      const blocks = w.blocks.filter((b) => during(b.at, b.ms)).map((b) => `node late ${b.ms} ms`);
      const gcs = w.longGc.filter((g) => during(g.at + g.ms, g.ms)).map((g) => `node ${g.kind} GC ${g.ms} ms`);
      const own = r.clientBlocks.filter((b) => during(b.at, b.ms)).map((b) => `bench late ${b.ms.toFixed(1)} ms`);
      return `${x.ms.toFixed(1)} ms at ${((x.at - r.startedAt) / 1000).toFixed(2)} s [${[...served, ...blocks, ...gcs, ...own].join(', ') || 'nothing seen'}]`;
    })
    .join('; ');
}

/** Starts an integrity check (or fix) and waits for its end; returns the results' summary. */
async function integrityRun(node: RunningNode, fix: boolean): Promise<string> {
  const start = await node.node.request('POST', `/database/${fix ? 'fix' : 'check'}-data-integrity`, undefined, node.token);
  if (start.status !== 202) throw new Error(`integrity ${fix ? 'fix' : 'check'}: ${start.status} ${start.text}`);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const res = await node.node.request('GET', '/database/data-integrity-results', undefined, node.token);
    const data = res.body.data as { endTime: string; error: string | null; tooManyErrors: boolean; results: { fixed: boolean }[] };
    if (data.endTime === '0001-01-01T00:00:00.000Z') continue;
    if (data.error) throw new Error(`integrity run failed: ${data.error}`);
    return `${data.results.length} results kept (${data.results.filter((r) => r.fixed).length} fixed), tooManyErrors ${data.tooManyErrors}`;
  }
}

/** The list reader, run in a child process: reads `limit=-1` to its end, prints its size. */
const READER = `
const https = require('node:https');
const [url, token, ca] = process.argv.slice(1);
https.get(url, { headers: { 'zt-session': token }, ca }, (res) => {
  if (res.statusCode !== 200) { console.error('limit=-1 answered ' + res.statusCode); process.exit(1); }
  let bytes = 0; let tail = '';
  res.on('data', (c) => { bytes += c.length; tail = (tail + c.toString('latin1')).slice(-200); });
  res.on('end', () => { console.log((bytes / 1e6).toFixed(1) + ' MB, ends ' + tail.slice(-90)); });
}).on('error', (err) => { console.error(err.message); process.exit(1); });
`;

/** Reads `/identities?limit=-1` to its end in another process, without keeping it. */
async function unpagedList(node: RunningNode, log: (m: string) => void): Promise<void> {
  const child = spawn(process.execPath, ['-e', READER, `${node.node.api}/identities?limit=-1`, node.token, node.node.caPem], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`the limit=-1 reader exited with ${code}`);
  log(`limit=-1: ${out.trim()}`);
}

/** Identity index keys the fix finds missing, and as many stale ones it finds, in the copy. */
const DAMAGED_KEYS = 2_000;

/**
 * Gives the fix something to repair: deletes DAMAGED_KEYS identity index keys of the data dir's
 * replica (every 20th) and adds as many naming identities that do not exist. Only ever run on a
 * copy of the template, before the node opens it.
 */
async function damageIndex(dataDir: string): Promise<void> {
  const kv = new LevelKv({ path: join(dataDir, 'replica') });
  await kv.open();
  try {
    const prefix = 'i\x00identities\x00';
    const picked: string[] = [];
    let seen = 0;
    for await (const key of kv.keys({ gt: prefix, lt: `${prefix}\xff` })) {
      if (seen++ % 20 === 0) picked.push(key);
      if (picked.length >= DAMAGED_KEYS) break;
    }
    const stale = picked.map((key, i) => ({ type: 'put' as const, key: `${key.slice(0, key.lastIndexOf('\x00') + 1)}stale-${i}`, value: '' }));
    await kv.batch([...picked.map((key) => ({ type: 'del' as const, key })), ...stale], { sync: true });
  } finally {
    await kv.close();
  }
}

export async function stallLarge(ctx: ScenarioContext): Promise<Row[]> {
  const dataDir = await seededCopy('large', LARGE, ctx.log);
  await damageIndex(dataDir);
  const loopFile = join(dataDir, 'loop-delay.jsonl');
  const node = await startBenchNode(dataDir, { NODE_OPTIONS: `--import=${PRELOAD}`, BENCH_LOOP_FILE: loopFile });
  if (process.env.BENCH_V8_FLAGS) ctx.log(`node V8 flags: ${process.env.BENCH_V8_FLAGS}`);
  try {
    const rows: Row[] = [];
    const jobs: [string, () => Promise<void>][] = [
      // The floor the machine itself sets: the same loop with no job running, for 10 s.
      ['10 s without a job (baseline)', () => new Promise((resolve) => setTimeout(resolve, 10_000))],
      ['an integrity check', async () => ctx.log(`check: ${await integrityRun(node, false)}`)],
      ['a limit=-1 list', () => unpagedList(node, ctx.log)],
      // Snapshot first, then the check, repairing the damaged keys in commands of 200 repairs.
      [`an integrity fix (${2 * DAMAGED_KEYS} keys to repair)`, async () => ctx.log(`fix: ${await integrityRun(node, true)}`)],
      ['an integrity check after the fix', async () => ctx.log(`check after the fix: ${await integrityRun(node, false)}`)],
    ];
    for (const [name, job] of jobs) {
      await loopWindow(node, loopFile); // starts the job's window
      const r = await versionWaits(node, job);
      const w = await loopWindow(node, loopFile);
      const load = loadavg()[0].toFixed(1);
      const loop = describeLoop(w);
      ctx.log(`${name}: ${(r.jobMs / 1000).toFixed(1)} s, ${r.count} /version answers, median wait ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, longest ${r.maxMs.toFixed(1)} ms (load average ${load})`);
      ctx.log(`  ${loop}; node CPU ${(w.cpuMs / 1000).toFixed(1)} s, ${w.involuntarySwitches} involuntary switches, heap ${w.heapUsedMb} MB; this process's loop delay longest ${r.clientDelayMaxMs.toFixed(1)} ms`);
      ctx.log(`  longest waits: ${aroundWaits(r, w)}; longest with this process never late: ${longestNotOwn(r)}`);
      ctx.log(`  node delays over 20 ms: ${w.blocks.map((b) => b.ms).join(', ') || 'none'}; GC pauses over 10 ms: ${w.longGc.map((g) => `${g.kind} ${g.ms}`).join(', ') || 'none'}; longest /version in the node: ${w.versions.map((v) => `${v.ms} ms`).join(', ') || 'none timed'}`);
      rows.push({
        scenario: `longest /version wait during ${name} over 100,000 identities (job ${(r.jobMs / 1000).toFixed(1)} s, ${r.count} answers, load average ${load}; ${loop})`,
        connections: 1,
        rps: r.count / (r.jobMs / 1000),
        p50: r.p50Ms,
        p99: r.p99Ms,
        value: `${r.maxMs.toFixed(1)} ms`,
        target: name.includes('baseline') ? 'reported' : `≤ ${TARGET_MS} ms`,
        pass: name.includes('baseline') ? undefined : r.maxMs <= TARGET_MS,
      });
    }
    return rows;
  } finally {
    await node.stop();
  }
}
