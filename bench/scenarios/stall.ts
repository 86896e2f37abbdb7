// Long jobs against one request: the longest wait of a `/version` request while an integrity
// check, then an unpaged list (`limit=-1`), runs over 100,000 identities. `/version` is asked
// one request after another on its own connection; the list's answer is read and dropped.

import { loadavg } from 'node:os';
import { Agent, fetch } from 'undici';
import { seededCopy, startBenchNode, type RunningNode } from '../lib/harness.js';
import { LARGE } from '../lib/seed.js';
import type { Row, ScenarioContext } from './types.js';

/** The wait a request may have behind a long job. */
const TARGET_MS = 50;

/** Runs `job` while `/version` is asked in a loop; the longest and the median wait, and the count. */
async function versionWaits(node: RunningNode, job: () => Promise<void>): Promise<{ maxMs: number; p50Ms: number; p99Ms: number; count: number; jobMs: number }> {
  const dispatcher = new Agent({ connect: { ca: node.node.caPem }, connections: 1 });
  const url = `${node.node.api}/version`;
  const waits: number[] = [];
  let running = true;
  const asking = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(url, { dispatcher });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/version answered ${res.status}`);
      waits.push(performance.now() - started);
    }
  })();
  const started = performance.now();
  try {
    await job();
  } finally {
    running = false;
    await asking;
    await dispatcher.close();
  }
  const sorted = [...waits].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
  return { maxMs: at(1), p50Ms: at(0.5), p99Ms: at(0.99), count: waits.length, jobMs: performance.now() - started };
}

/** Starts an integrity check and waits for its end. */
async function integrityCheck(node: RunningNode): Promise<void> {
  const start = await node.node.request('POST', '/database/check-data-integrity', undefined, node.token);
  if (start.status !== 202) throw new Error(`integrity check: ${start.status} ${start.text}`);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const res = await node.node.request('GET', '/database/data-integrity-results', undefined, node.token);
    if (res.body.data.endTime !== '0001-01-01T00:00:00.000Z') return;
  }
}

/** Reads `/identities?limit=-1` to its end without keeping it; returns its size. */
async function unpagedList(node: RunningNode, log: (m: string) => void): Promise<void> {
  const dispatcher = new Agent({ connect: { ca: node.node.caPem } });
  try {
    const res = await fetch(`${node.node.api}/identities?limit=-1`, { headers: { 'zt-session': node.token }, dispatcher });
    if (res.status !== 200 || !res.body) throw new Error(`limit=-1 answered ${res.status}`);
    let bytes = 0;
    let tail = '';
    for await (const chunk of res.body) {
      bytes += chunk.byteLength;
      tail = (tail + Buffer.from(chunk).toString('latin1')).slice(-200);
    }
    log(`limit=-1: ${(bytes / 1e6).toFixed(1)} MB, ends ${tail.slice(-90)}`);
  } finally {
    await dispatcher.close();
  }
}

export async function stallLarge(ctx: ScenarioContext): Promise<Row[]> {
  const node = await startBenchNode(await seededCopy('large', LARGE, ctx.log));
  try {
    const rows: Row[] = [];
    const jobs: [string, () => Promise<void>][] = [
      // The floor the machine itself sets: the same loop with no job running, for 10 s.
      ['10 s without a job (baseline)', () => new Promise((resolve) => setTimeout(resolve, 10_000))],
      ['an integrity check', () => integrityCheck(node)],
      ['a limit=-1 list', () => unpagedList(node, ctx.log)],
    ];
    for (const [name, job] of jobs) {
      const r = await versionWaits(node, job);
      const load = loadavg()[0].toFixed(1);
      ctx.log(`${name}: ${(r.jobMs / 1000).toFixed(1)} s, ${r.count} /version answers, median wait ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, longest ${r.maxMs.toFixed(1)} ms (load average ${load})`);
      rows.push({
        scenario: `longest /version wait during ${name} over 100,000 identities (job ${(r.jobMs / 1000).toFixed(1)} s, ${r.count} answers, load average ${load})`,
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
