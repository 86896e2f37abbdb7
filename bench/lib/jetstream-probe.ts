// What the NATS cluster alone does on this machine: appends to an R3 stream with a fixed number
// in flight (each waits for its acknowledgement, as a node's append does), and stream info round
// trips (what a node's read barrier asks), for a fixed time. Also the size of a cluster's log
// entries. Runs in the benchmark process while the nodes are idle.

import { randomBytes } from 'node:crypto';
import { connect } from 'nats';

export interface ProbeResult {
  appendsPerSecond: number;
  appendP50: number;
  appendP99: number;
  infoPerSecond: number;
  infoP50: number;
}

function quantile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/** Appends of `bytes`-sized messages (`inFlight` at once) to a fresh R`replicas` stream, then
 * `inFlight` stream info loops, `durationMs` each; the stream is deleted afterwards. */
export async function probeJetStream(urls: string[], opts: { replicas: number; inFlight: number; bytes: number; durationMs: number }): Promise<ProbeResult> {
  const nc = await connect({ servers: urls, timeout: 5_000 });
  const name = `BENCH_PROBE_${randomBytes(4).toString('hex')}`;
  const subject = `bench.probe.${name}`;
  try {
    const jsm = await nc.jetstreamManager({ timeout: 5_000 });
    await jsm.streams.add({ name, subjects: [subject], num_replicas: opts.replicas });
    const js = nc.jetstream({ timeout: 10_000 });
    const payload = randomBytes(opts.bytes);
    const loop = async (op: () => Promise<unknown>) => {
      const latencies: number[] = [];
      const stopAt = performance.now() + opts.durationMs;
      const started = performance.now();
      await Promise.all(Array.from({ length: opts.inFlight }, async () => {
        while (performance.now() < stopAt) {
          const t0 = performance.now();
          await op();
          latencies.push(performance.now() - t0);
        }
      }));
      latencies.sort((a, b) => a - b);
      return { rate: latencies.length / ((performance.now() - started) / 1000), latencies };
    };
    const appends = await loop(() => js.publish(subject, payload));
    const infos = await loop(() => jsm.streams.info(name));
    await jsm.streams.delete(name);
    return {
      appendsPerSecond: appends.rate, appendP50: quantile(appends.latencies, 0.5), appendP99: quantile(appends.latencies, 0.99),
      infoPerSecond: infos.rate, infoP50: quantile(infos.latencies, 0.5),
    };
  } finally {
    await nc.close();
  }
}

/** Messages and average bytes per message of a stream. */
export async function streamSize(urls: string[], stream: string): Promise<{ messages: number; avgBytes: number }> {
  const nc = await connect({ servers: urls, timeout: 5_000 });
  try {
    const info = await (await nc.jetstreamManager({ timeout: 5_000 })).streams.info(stream);
    return { messages: info.state.messages, avgBytes: info.state.bytes / Math.max(1, info.state.messages) };
  } finally {
    await nc.close();
  }
}
