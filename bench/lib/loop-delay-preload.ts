// Preloaded into a node process by the stall benchmark (`NODE_OPTIONS=--import=<this file>`, with
// BENCH_LOOP_FILE set): measures the main thread's own event-loop delay and garbage-collection
// pauses. Each SIGUSR2 appends one JSON line (a `LoopWindow`) to that file covering the time since
// the previous one, so a job between two signals gets its own figures. Not loaded with
// cpu-profile-preload.ts (both answer SIGUSR2). Changes nothing in the product but precedes the
// HTTPS server's listeners by one that times each `/version` answer. BENCH_V8_FLAGS, when set, is
// given to V8 at once (to compare collector settings: V8 flags are refused in NODE_OPTIONS).

import { appendFileSync } from 'node:fs';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

/** One window between two signals. Times in ms; `at` values are epoch ms. */
export interface LoopWindow {
  /** Wall time the window covers. */
  ms: number;
  /** How late a 10 ms timer (monitorEventLoopDelay) fired, longest and p99: a turn that blocks
   * the loop for B ms shows as B - 10 to B. */
  delayMaxMs: number;
  delayP99Ms: number;
  /** Delays over BLOCK_MS of a 10 ms timer of its own: when it fired (epoch ms), how late. */
  blocks: { at: number; ms: number }[];
  /** Pauses by kind (major, minor, incremental, weakcb): how many, their sum and the longest. */
  gc: Record<string, { count: number; totalMs: number; maxMs: number }>;
  /** Pauses over BLOCK_MS / 2, with when they started. */
  longGc: { at: number; kind: string; ms: number }[];
  /** The process's CPU over the window (user + system, every thread: the collector's helpers
   * too), and its involuntary context switches (a thread lost its core while it could run). */
  cpuMs: number;
  involuntarySwitches: number;
  /** The longest `/version` answers in the node, from the request event (headers parsed) to the
   * response's finish (handed to TLS): when they finished (epoch ms), how long. */
  versions: { at: number; ms: number }[];
  /** Heap used at the window's end. */
  heapUsedMb: number;
}

/** A delay worth a timestamp. */
const BLOCK_MS = 20;
/** The monitor's timer; its histogram holds the time between two firings, so this much is not delay. */
const RESOLUTION_MS = 10;

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

if (process.env.BENCH_V8_FLAGS) setFlagsFromString(process.env.BENCH_V8_FLAGS);

const file = process.env.BENCH_LOOP_FILE;
if (file && isMainThread) {
  const window = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  window.enable();
  let started = performance.now();
  let cpu = process.cpuUsage();
  let switches = process.resourceUsage().involuntaryContextSwitches;
  let blocks: LoopWindow['blocks'] = [];
  let gc: LoopWindow['gc'] = {};
  let longGc: LoopWindow['longGc'] = [];
  let versions: LoopWindow['versions'] = [];

  const createServer = https.createServer;
  // Every HTTPS server gets a first 'request' listener that times `/version` (main.ts adds its
  // own listener after creating the server).
  https.createServer = ((...args: unknown[]) => {
    const server = (createServer as (...a: unknown[]) => https.Server)(...args);
    server.prependListener('request', (req, res) => {
      if (!req.url?.endsWith('/version')) return;
      const started = performance.now();
      res.once('finish', () => {
        const ms = performance.now() - started;
        if (versions.length < 5 || ms > versions[4].ms) versions = [...versions, { at: Date.now(), ms: round(ms) }].sort((a, b) => b.ms - a.ms).slice(0, 5);
      });
    });
    return server;
  }) as typeof https.createServer;
  syncBuiltinESMExports();

  // A timer of its own dates a long delay (the histogram cannot: resetting it drops the next gap).
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    const lateMs = now - last - RESOLUTION_MS;
    if (lateMs > BLOCK_MS) blocks.push({ at: Date.now(), ms: round(lateMs) });
    last = now;
  }, RESOLUTION_MS).unref();

  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = KINDS[(entry as unknown as { detail: { kind: number } }).detail?.kind] ?? 'other';
      const k = (gc[kind] ??= { count: 0, totalMs: 0, maxMs: 0 });
      k.count++;
      k.totalMs += entry.duration;
      k.maxMs = Math.max(k.maxMs, entry.duration);
      if (entry.duration > BLOCK_MS / 2) longGc.push({ at: Math.round(performance.timeOrigin + entry.startTime), kind, ms: round(entry.duration) });
    }
  }).observe({ entryTypes: ['gc'] });

  process.on('SIGUSR2', () => {
    const used = process.cpuUsage(cpu);
    const nowSwitches = process.resourceUsage().involuntaryContextSwitches;
    const line: LoopWindow = {
      ms: round(performance.now() - started),
      delayMaxMs: round(late(window.max)),
      delayP99Ms: round(late(window.percentile(99))),
      blocks,
      gc: Object.fromEntries(Object.entries(gc).map(([kind, g]) => [kind, { count: g.count, totalMs: round(g.totalMs), maxMs: round(g.maxMs) }])),
      longGc,
      cpuMs: round((used.user + used.system) / 1000),
      involuntarySwitches: nowSwitches - switches,
      versions,
      heapUsedMb: round(process.memoryUsage().heapUsed / 1e6),
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    window.reset();
    started = performance.now();
    cpu = process.cpuUsage();
    switches = nowSwitches;
    blocks = [];
    gc = {};
    longGc = [];
    versions = [];
  });
}

/** A histogram value (ns between two firings; 0 when none) as the timer's lateness in ms. */
function late(ns: number): number {
  return Math.max(0, ns / 1e6 - RESOLUTION_MS);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
