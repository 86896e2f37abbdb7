// The gRPC posture load driver, run as its own process: one router stream (mutual TLS) sends
// posture events for many identities with a fixed number in flight, for a fixed time, and
// reports events/s and the event-to-acknowledgement (decision) latency. Prints one JSON line.

import { readFileSync } from 'node:fs';
import { PostureStream } from '../../src/rpc/posture-stream-client.js';
import type { LoadResult } from './loadgen.js';
import { ownCpuMicros } from './cpu.js';

export interface PostureDriverSpec {
  address: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  identityIds: string[];
  checkId: string;
  inFlight: number;
  durationMs: number;
  warmupMs: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2]) as PostureDriverSpec;
  const stream = PostureStream.open({
    address: spec.address,
    caPem: readFileSync(spec.caFile, 'utf8'),
    certPem: readFileSync(spec.certFile, 'utf8'),
    keyPem: readFileSync(spec.keyFile, 'utf8'),
    serverName: 'localhost',
  });
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  let measuring = false;
  let measureStart = 0;
  const stopAt = performance.now() + spec.warmupMs + spec.durationMs;
  setTimeout(() => {
    measuring = true;
    measureStart = performance.now();
  }, spec.warmupMs);
  async function lane(): Promise<void> {
    while (performance.now() < stopAt) {
      const i = counter++;
      const t0 = performance.now();
      try {
        await stream.send({
          identityId: spec.identityIds[i % spec.identityIds.length],
          responses: [{ id: spec.checkId, typeId: 'OS', type: 'Linux', version: `5.${10 + (i % 5)}.0` }],
        });
        if (measuring) latencies.push(performance.now() - t0);
      } catch {
        if (measuring) errors++;
      }
    }
  }
  await Promise.all(Array.from({ length: spec.inFlight }, () => lane()));
  const seconds = (performance.now() - measureStart) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] : 0);
  const result: LoadResult = { requests: latencies.length, seconds, rps: latencies.length / seconds, p50: q(0.5), p99: q(0.99), statuses: {}, errors, cpuUsPerRequest: ownCpuMicros() / Math.max(1, latencies.length) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  stream.cancel();
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
