// `read-barrier`: what the read barrier costs a cluster node under load. Three Weft nodes on a
// three-server JetStream cluster behind HAProxy serve GET /identities/{id} at 64 connections,
// once alone and once while a write load (POST /identities, 8 connections) runs beside it; each
// node's weft_read_barrier_seconds and weft_http_request_duration_seconds (GET) are read before
// and after, so the row gives the barrier's mean wait against the mean time a node spent per GET.

import { mkdir } from 'node:fs/promises';
import { Agent, fetch } from 'undici';
import { startCluster, type Cluster } from '../../test/support/cluster.js';
import { BENCH_DIR, median, runLoad } from '../lib/harness.js';
import type { LoadResult } from '../lib/loadgen.js';
import type { Row, ScenarioContext } from './types.js';

const CONNECTIONS = 64;
const WRITERS = 8;
const IDENTITIES = 200;

/** Sums over every node: barrier waits and GET handling times (seconds) and their counts. */
interface Totals {
  barrierSum: number;
  barrierCount: number;
  getSum: number;
  getCount: number;
}

export async function readBarrier(ctx: ScenarioContext): Promise<Row[]> {
  await mkdir(BENCH_DIR, { recursive: true });
  let cluster: Cluster | undefined;
  try {
    ctx.log('starting a cluster (3 NATS servers, 3 nodes, HAProxy)');
    cluster = await startCluster({ env: { WEFT_MAILBOX_SIZE: '1024' } });
    const token = await cluster.login();
    const ids: string[] = [];
    for (let i = 0; i < IDENTITIES; i++) {
      const res = await cluster.lb.request('POST', '/identities', { body: { name: `barrier-read-${i}`, type: 'Device', isAdmin: false }, token, timeoutMs: 10_000 });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
      ids.push(res.body.data.id);
    }
    await new Promise((r) => setTimeout(r, 2_000));
    const agent = new Agent({ connect: { ca: cluster.caPem } });
    const rows: Row[] = [];
    try {
      for (const withWrites of [false, true]) {
        const runs: { load: LoadResult; totals: Totals }[] = [];
        for (let i = 0; i < ctx.pairs; i++) {
          const before = await totals(cluster, agent);
          const reads = runLoad({
            ...ctx.timing, connections: CONNECTIONS, origin: cluster.balancerUrl, caFile: cluster.nodes[0].caPath,
            method: 'GET', path: '/edge/management/v1/identities/{pick}', picks: ids, headers: { 'zt-session': token },
          });
          const writes = withWrites
            ? runLoad({
              ...ctx.timing, connections: WRITERS, origin: cluster.balancerUrl, caFile: cluster.nodes[0].caPath,
              method: 'POST', path: '/edge/management/v1/identities', headers: { 'zt-session': token, 'content-type': 'application/json' },
              body: JSON.stringify({ name: `barrier-write-${process.pid}-${i}-{i}`, type: 'Device', isAdmin: false }),
            })
            : undefined;
          const [load, written] = await Promise.all([reads, writes]);
          const after = await totals(cluster, agent);
          const delta = { barrierSum: after.barrierSum - before.barrierSum, barrierCount: after.barrierCount - before.barrierCount, getSum: after.getSum - before.getSum, getCount: after.getCount - before.getCount };
          runs.push({ load, totals: delta });
          ctx.log(`  ${withWrites ? 'with writes' : 'reads only'} ${i + 1}: ${load.rps.toFixed(0)} GET/s p50 ${load.p50.toFixed(2)} ms` +
            `${written ? `, ${written.rps.toFixed(0)} POST/s` : ''}; barrier ${JSON.stringify(delta)}`);
        }
        const barrierMs = median(runs.map((r) => (r.totals.barrierSum / Math.max(1, r.totals.barrierCount)) * 1000));
        const getMs = median(runs.map((r) => (r.totals.getSum / Math.max(1, r.totals.getCount)) * 1000));
        rows.push({
          scenario: `read barrier, GET /identities/{id} through HAProxy on 3 nodes${withWrites ? ` while ${WRITERS} connections POST` : ''}`,
          connections: CONNECTIONS,
          rps: median(runs.map((r) => r.load.rps)),
          p50: median(runs.map((r) => r.load.p50)),
          p99: median(runs.map((r) => r.load.p99)),
          value: `barrier wait per request: mean ${barrierMs.toFixed(2)} ms; a GET takes ${getMs.toFixed(2)} ms in the node, barrier included (${((barrierMs / Math.max(getMs, 1e-9)) * 100).toFixed(0)}%)`,
          target: 'reported',
          statuses: runs[runs.length - 1].load.statuses,
          errors: runs.reduce((n, r) => n + r.load.errors, 0),
        });
      }
    } finally {
      await agent.close();
    }
    return rows;
  } finally {
    await cluster?.close();
  }
}

/** The barrier and GET histograms' sums and counts over every node (its /metrics, directly). */
async function totals(cluster: Cluster, agent: Agent): Promise<Totals> {
  const out: Totals = { barrierSum: 0, barrierCount: 0, getSum: 0, getCount: 0 };
  for (const node of cluster.nodes) {
    const text = await (await fetch(`${node.url}/metrics`, { dispatcher: agent })).text();
    for (const line of text.split('\n')) {
      const [name, value] = [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))];
      if (name === 'weft_read_barrier_seconds_sum') out.barrierSum += value;
      else if (name === 'weft_read_barrier_seconds_count') out.barrierCount += value;
      else if (name.startsWith('weft_http_request_duration_seconds_sum{') && name.includes('method="GET"') && !name.includes('/metrics')) out.getSum += value;
      else if (name.startsWith('weft_http_request_duration_seconds_count{') && name.includes('method="GET"') && !name.includes('/metrics')) out.getCount += value;
    }
  }
  return out;
}
