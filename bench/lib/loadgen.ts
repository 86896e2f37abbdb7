// The load generator, run as its own process so it never shares an event loop with the server
// it measures: N keep-alive HTTPS connections, closed-loop (each connection sends its next
// request when the previous answer arrives), for a fixed time. Prints one JSON result line.

import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { ownCpuMicros } from './cpu.js';

/** What the parent sends (as argv[2] JSON). Paths, header values and bodies may contain `{i}`
 * (request counter) and `{pick}` (an entry of `picks`, round-robin) so that requests touch
 * different entities or come from different sessions. */
export interface LoadSpec {
  origin: string;
  caFile?: string;
  connections: number;
  durationMs: number;
  warmupMs: number;
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** JSON body template; `{i}` and `{pick}` are replaced in it too. */
  body?: string;
  picks?: string[];
  /** Maximum requests in total (bounded loops); default unbounded within the duration. */
  maxRequests?: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
  errors: number;
  /** This load generator's own CPU time per request sent, in µs (it shares the machine). */
  cpuUsPerRequest: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2]) as LoadSpec;
  const ca = spec.caFile ? readFileSync(spec.caFile, 'utf8') : undefined;
  const pool = new Pool(spec.origin, { connections: spec.connections, pipelining: 1, connect: { ca } });
  let counter = 0;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let measuring = false;
  const started = performance.now();
  const stopAt = started + spec.warmupMs + spec.durationMs;
  let measureStart = 0;
  setTimeout(() => {
    measuring = true;
    measureStart = performance.now();
  }, spec.warmupMs);
  const fill = (template: string, i: number) =>
    template.replaceAll('{i}', String(i)).replaceAll('{pick}', spec.picks ? spec.picks[i % spec.picks.length] : '');

  async function worker(): Promise<void> {
    while (performance.now() < stopAt && (spec.maxRequests === undefined || counter < spec.maxRequests)) {
      const i = counter++;
      const t0 = performance.now();
      try {
        const res = await pool.request({
          method: spec.method as 'GET',
          path: fill(spec.path, i),
          headers: spec.headers && Object.fromEntries(Object.entries(spec.headers).map(([k, v]) => [k, fill(v, i)])),
          body: spec.body === undefined ? undefined : fill(spec.body, i),
        });
        await res.body.dump();
        if (measuring) {
          latencies.push(performance.now() - t0);
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        }
      } catch {
        if (measuring) errors++;
      }
    }
  }
  await Promise.all(Array.from({ length: spec.connections }, () => worker()));
  const seconds = (performance.now() - (measureStart || started)) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => (latencies.length === 0 ? 0 : latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]);
  const result: LoadResult = {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: q(0.5),
    p99: q(0.99),
    statuses,
    errors,
    cpuUsPerRequest: ownCpuMicros() / Math.max(1, counter),
  };
  await pool.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
