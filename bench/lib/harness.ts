// Benchmark plumbing: the baseline server, the load generator process, seeded data dirs
// (cached under .bench-data/), and medians of paired runs (baseline, target, baseline, ...).

import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { cp, mkdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCliNode, type CliNode } from '../../test/support/cli-node.js';
import type { LoadResult, LoadSpec } from './loadgen.js';
import { BENCH_ADMIN, seedDataDir, type SeedSizes } from './seed.js';
import { processCpuMicros } from './cpu.js';

const LOADGEN_JS = fileURLToPath(new URL('./loadgen.js', import.meta.url));
const KOA_JS = fileURLToPath(new URL('./koa-hello.js', import.meta.url));
export const BENCH_DIR = resolve('.bench-data');

/** Runs the load generator in its own process and returns its measurement. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [LOADGEN_JS, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.once('close', (code) => (code === 0 ? done(JSON.parse(out.trim()) as LoadResult) : fail(new Error(`loadgen exited ${code}`))));
  });
}

/** The bare Koa hello-world over HTTPS, with the node's own certificate. `work` makes it a
 * stand-in handler instead: `spinUs` of synchronous CPU per request and a `bytes`-sized answer. */
export async function startBaseline(dataDir: string, work?: { spinUs: number; bytes: number }): Promise<{ origin: string; pid: number; stop(): void }> {
  const extra = work ? [String(work.spinUs), String(work.bytes)] : [];
  const child = spawn(process.execPath, [KOA_JS, join(dataDir, 'pki', 'server.pem'), join(dataDir, 'pki', 'server.key.pem'), ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((done, fail) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = /listening (\d+)/.exec(out);
      if (m) done(Number(m[1]));
    });
    child.once('close', () => fail(new Error('baseline server exited')));
  });
  return { origin: `https://localhost:${port}`, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

/** Runs a load and measures the server's CPU per request over it (warm-up included, so the
 * CPU is divided over every request sent, as the load generator's own figure is). */
export async function runLoadMeasured(spec: LoadSpec, serverPid: number): Promise<LoadResult & { serverCpuUsPerRequest: number }> {
  const before = processCpuMicros(serverPid);
  const result = await runLoad(spec);
  const sent = (result.requests * (spec.durationMs + spec.warmupMs)) / spec.durationMs;
  return { ...result, serverCpuUsPerRequest: (processCpuMicros(serverPid) - before) / Math.max(1, sent) };
}

/** A data dir seeded at `sizes`, made once and copied for each run (runs may write to it). */
export async function seededCopy(name: string, sizes: SeedSizes, log: (m: string) => void): Promise<string> {
  const template = join(BENCH_DIR, `template-${name}`);
  const ready = await stat(join(template, 'seeded')).then(() => true, () => false);
  if (!ready) {
    // A seed stopped part way is resumed where it stopped (seedDataDir).
    log(`seeding ${name} (once; kept in ${template})`);
    await seedDataDir(template, sizes, log);
    await mkdir(join(template, 'seeded'));
  }
  const copy = join(BENCH_DIR, `run-${name}-${process.pid}-${Date.now()}`);
  await cp(template, copy, { recursive: true });
  return copy;
}

export interface RunningNode {
  node: CliNode;
  origin: string;
  token: string;
  dataDir: string;
  /** Seconds from spawning the process to the first successful login. */
  servingSeconds: number;
  stop(): Promise<void>;
}

/** Starts a real node process on a data dir and logs in as the benchmark admin. */
export async function startBenchNode(dataDir: string, env: Record<string, string> = {}, opts: { waitForCache?: boolean } = {}): Promise<RunningNode> {
  const started = performance.now();
  const node = await startCliNode({ dataDir, env: { WEFT_LOG_LEVEL: 'info', WEFT_WORKER_THREADS: '1', ...env } });
  const token = await node.login(BENCH_ADMIN.username, BENCH_ADMIN.password);
  const servingSeconds = (performance.now() - started) / 1000;
  // Measure the steady state: reads are served from memory once the replica is cached.
  if (opts.waitForCache !== false) {
    for (let i = 0; i < 600 && !node.stdout().includes('replica cached in memory'); i++) await new Promise((r) => setTimeout(r, 100));
  }
  const origin = new URL(node.api).origin.replace('127.0.0.1', 'localhost');
  return {
    node,
    origin,
    token,
    dataDir,
    servingSeconds,
    async stop() {
      await node.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The median of an optional per-run figure, when every run has it. */
function medianOf(runs: LoadResult[], field: 'serverCpuUsPerRequest'): number | undefined {
  const values = runs.map((r) => (r as LoadResult & Partial<Record<typeof field, number>>)[field]);
  return values.every((v): v is number => v !== undefined) ? median(values) : undefined;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Paired runs: baseline then target, `pairs` times; medians of each and of the ratios. */
export async function paired(pairs: number, baseline: () => Promise<LoadResult>, target: () => Promise<LoadResult>) {
  const b: LoadResult[] = [];
  const t: LoadResult[] = [];
  for (let i = 0; i < pairs; i++) {
    b.push(await baseline());
    t.push(await target());
  }
  return {
    baselineRps: median(b.map((r) => r.rps)),
    rps: median(t.map((r) => r.rps)),
    ratio: median(t.map((r, i) => r.rps / b[i].rps)),
    p50: median(t.map((r) => r.p50)),
    p99: median(t.map((r) => r.p99)),
    statuses: t[t.length - 1].statuses,
    errors: t.reduce((n, r) => n + r.errors, 0),
    cpu: {
      baselineServer: medianOf(b, 'serverCpuUsPerRequest'),
      baselineLoadgen: median(b.map((r) => r.cpuUsPerRequest)),
      server: medianOf(t, 'serverCpuUsPerRequest'),
      loadgen: median(t.map((r) => r.cpuUsPerRequest)),
    },
  };
}
