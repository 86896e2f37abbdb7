// `join-100k` / `join-1m`: a fresh cluster node joins from a peer's snapshot holding 100,000
// (the seeded large data set) or 1,000,000 identities (the huge one) and serves: time from spawn to its login and first point read answered,
// to a deep list page answered, and the snapshot transfer rate the joining node logged. Real
// processes: one nats-server, two nodes.

import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'nats';
import { join } from 'node:path';
import { startCliNode, type CliNode } from '../../test/support/cli-node.js';
import { startNatsServer } from '../../test/support/nats-server.js';
import { APPLIED_SEQ_KEY } from '../../src/store/keys.js';
import { LevelKv } from '../../src/store/level-kv.js';
import { BENCH_DIR, median, seededCopy } from '../lib/harness.js';
import { BENCH_ADMIN, LARGE, type SeedSizes } from '../lib/seed.js';
import { HUGE } from './memory.js';
import type { Row, ScenarioContext } from './types.js';

const SECRET = 'bench-join-cluster-secret-0123456789abcdef';

export function joinLarge(ctx: ScenarioContext): Promise<Row[]> {
  return joinFromSnapshot(ctx, 'large', LARGE);
}

export function joinHuge(ctx: ScenarioContext): Promise<Row[]> {
  return joinFromSnapshot(ctx, 'huge', HUGE);
}

async function joinFromSnapshot(ctx: ScenarioContext, name: string, sizes: SeedSizes): Promise<Row[]> {
  const deep = sizes.identities - 1_000;
  const count = sizes.identities.toLocaleString('en');
  const nats = await startNatsServer({ jetstream: true });
  await mkdir(BENCH_DIR, { recursive: true });
  const root = await mkdtemp(join(BENCH_DIR, 'join-'));
  const env = { WEFT_NATS_URL: nats.url, WEFT_CLUSTER_SECRET: SECRET, WEFT_CLUSTER_NAME: 'bench', WEFT_ADMIN_PASSWORD: BENCH_ADMIN.password, WEFT_WORKER_THREADS: '1' };
  const nodes: CliNode[] = [];
  try {
    // The peer: founds the cluster, then its replica is replaced by the seeded one, recorded as
    // applied up to the log's end (the seeded data stands for what the log built).
    const peerDir = join(root, 'peer');
    const founding = await startCliNode({ dataDir: peerDir, env });
    const nc = await connect({ servers: nats.url });
    const lastSeq = (await (await nc.jetstreamManager()).streams.info('weft-bench-log')).state.last_seq;
    await nc.close();
    await founding.stop();
    const seeded = await seededCopy(name, sizes, ctx.log);
    await rm(join(peerDir, 'replica'), { recursive: true, force: true });
    await cp(join(seeded, 'replica'), join(peerDir, 'replica'), { recursive: true });
    await rm(seeded, { recursive: true, force: true });
    const kv = new LevelKv({ path: join(peerDir, 'replica') });
    await kv.open();
    await kv.batch([{ type: 'put', key: APPLIED_SEQ_KEY, value: String(lastSeq) }], { sync: true });
    await kv.close();
    const peer = await startCliNode({ dataDir: peerDir, env, readyTimeoutMs: 120_000 });
    nodes.push(peer);
    for (let i = 0; i < 3_000 && !peer.stdout().includes('replica cached in memory'); i++) await new Promise((r) => setTimeout(r, 100));
    // One seeded identity, for the joined node's first point read.
    const peerToken = await peer.login(BENCH_ADMIN.username, BENCH_ADMIN.password);
    const known = (await peer.request('GET', `/identities?limit=1&offset=${deep}`, undefined, peerToken)).body.data[0].id as string;

    const seconds: number[] = [];
    const serving: number[] = [];
    const rates: number[] = [];
    for (let i = 0; i < ctx.pairs; i++) {
      const t0 = performance.now();
      const spawnedAt = Date.now();
      const joiner = await startCliNode({ dataDir: join(root, `joiner-${i}`), env, readyTimeoutMs: 600_000 });
      nodes.push(joiner);
      const spawnedS = (performance.now() - t0) / 1000;
      const token = await joiner.login(BENCH_ADMIN.username, BENCH_ADMIN.password);
      const loggedInS = (performance.now() - t0) / 1000;
      const one = await joiner.request('GET', `/identities/${known}`, undefined, token);
      if (one.status !== 200) throw new Error(`the joined node does not serve identity ${known}: ${one.status} ${one.text.slice(0, 200)}`);
      serving.push((performance.now() - t0) / 1000);
      const page = await joiner.request('GET', `/identities?limit=1&offset=${deep}`, undefined, token);
      if (page.status !== 200 || page.body.meta.pagination.totalCount < sizes.identities) throw new Error(`the joined node does not serve the data: ${page.status} ${page.text.slice(0, 200)}`);
      seconds.push((performance.now() - t0) / 1000);
      const joined = joiner.stdout().split('\n').find((l) => l.includes('joined from a peer snapshot'));
      if (!joined) throw new Error(`the node did not join from a snapshot:\n${joiner.stdout()}`);
      const info = JSON.parse(joined) as { bytes: number; ms: number };
      rates.push(info.bytes / 1e6 / (info.ms / 1000));
      ctx.log(`join ${i}: ${seconds[i].toFixed(2)} s, ${(info.bytes / 1e6).toFixed(1)} MB in ${info.ms} ms; ${phases(joiner.stdout(), spawnedAt)}, ` +
        `start returned ${spawnedS.toFixed(2)} s, logged in ${loggedInS.toFixed(2)} s, point read ${serving[i].toFixed(2)} s`);
      await joiner.kill();
    }
    const s = median(seconds);
    const served = median(serving);
    return [
      { scenario: `node joins a cluster from a peer snapshot, ${count} identities (spawn to login and a point read of a seeded identity answered)`, connections: 0, rps: 0, p50: 0, p99: 0, value: `${served.toFixed(2)} s`, target: '≤ 10 s', pass: served <= 10 },
      { scenario: `the same join, spawn to a list page at offset ${deep.toLocaleString('en')} with its totalCount answered (index cache still warming)`, connections: 0, rps: 0, p50: 0, p99: 0, value: `${s.toFixed(2)} s`, target: '≤ 10 s', pass: s <= 10 },
      { scenario: 'snapshot transfer rate (gRPC, mutual TLS, verified and written to LevelDB)', connections: 0, rps: 0, p50: 0, p99: 0, value: `${median(rates).toFixed(1)} MB/s`, target: 'informational' },
    ];
  } finally {
    await Promise.all(nodes.map((n) => n.kill()));
    await nats.stop();
    await rm(root, { recursive: true, force: true });
  }
}

/** When the joining node reached each step, in seconds from its spawn (read from its log). */
function phases(stdout: string, spawnedAt: number): string {
  const at = (msg: string) => {
    const line = stdout.split('\n').find((l) => l.includes(`"msg":"${msg}"`));
    return line ? `${((Date.parse((JSON.parse(line) as { time: string }).time) - spawnedAt) / 1000).toFixed(2)} s` : '-';
  };
  return `cluster joined ${at('cluster joined')}, snapshot in place ${at('joined from a peer snapshot')}, listening ${at('listening')}`;
}
