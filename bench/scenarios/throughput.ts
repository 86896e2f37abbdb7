// Throughput against the bare Koa baseline: GET one identity (embedded and over NATS) and
// POST /identities (acknowledged = durable), at 1 and 64 connections, medians of paired runs.

import { startNatsServer } from '../../test/support/nats-server.js';
import { paired, runLoadMeasured, seededCopy, startBaseline, startBenchNode, type RunningNode } from '../lib/harness.js';
import type { LoadSpec } from '../lib/loadgen.js';
import { SMALL } from '../lib/seed.js';
import type { Row, ScenarioContext } from './types.js';

const CONNECTIONS = [1, 64];

export type TargetSpec = Omit<LoadSpec, 'origin' | 'connections' | 'durationMs' | 'warmupMs'>;

/** Paired runs of the target request against the Koa hello-world, at each connection count.
 * `spec` is asked anew for every run (a write benchmark needs fresh names each time). */
export async function againstBaseline(ctx: ScenarioContext, node: RunningNode, name: string, spec: (run: number) => TargetSpec, target: number, connectionCounts = CONNECTIONS): Promise<Row[]> {
  const baseline = await startBaseline(node.dataDir);
  const rows: Row[] = [];
  let run = 0;
  try {
    for (const connections of connectionCounts) {
      const common = { ...ctx.timing, connections, caFile: ctx.caFile(node) };
      const result = await paired(
        ctx.pairs,
        () => runLoadMeasured({ ...common, origin: baseline.origin, method: 'GET', path: '/' }, baseline.pid),
        () => runLoadMeasured({ ...common, ...spec(run++), origin: node.origin }, node.node.proc.pid!),
      );
      rows.push({
        scenario: name, connections, ...result, value: cpuNote(result.cpu),
        target: connections === 64 ? `≥ ${target} × Koa` : 'reported', pass: connections === 64 ? result.ratio >= target : undefined,
      });
    }
  } finally {
    baseline.stop();
  }
  return rows;
}

/** CPU per request of both processes, target and baseline: where the time goes. */
function cpuNote(cpu: { server?: number; loadgen: number; baselineServer?: number; baselineLoadgen: number }): string {
  const us = (n: number | undefined) => (n === undefined ? '?' : `${Math.round(n)} µs`);
  return `CPU/request: node ${us(cpu.server)}, load generator ${us(cpu.loadgen)} (Koa ${us(cpu.baselineServer)}, its load generator ${us(cpu.baselineLoadgen)})`;
}

async function identityPicks(node: RunningNode): Promise<string[]> {
  const res = await node.node.request('GET', '/identities?limit=200', undefined, node.token);
  return (res.body.data as { id: string }[]).map((d) => d.id);
}

export async function getIdentity(ctx: ScenarioContext): Promise<Row[]> {
  const node = await startBenchNode(await seededCopy('small', SMALL, ctx.log));
  try {
    const spec = { method: 'GET', path: '/edge/management/v1/identities/{pick}', picks: await identityPicks(node), headers: { 'zt-session': node.token } };
    return await againstBaseline(ctx, node, 'GET /identities/{id} (embedded bus)', () => spec, 0.5);
  } finally {
    await node.stop();
  }
}

export async function getIdentityNats(ctx: ScenarioContext): Promise<Row[]> {
  const nats = await startNatsServer();
  const node = await startBenchNode(await seededCopy('small', SMALL, ctx.log), { WEFT_NATS_URL: nats.url });
  try {
    const spec = { method: 'GET', path: '/edge/management/v1/identities/{pick}', picks: await identityPicks(node), headers: { 'zt-session': node.token } };
    return await againstBaseline(ctx, node, 'GET /identities/{id} (NATS bus)', () => spec, 0.2);
  } finally {
    await node.stop();
    await nats.stop();
  }
}

export async function createIdentity(ctx: ScenarioContext): Promise<Row[]> {
  const node = await startBenchNode(await seededCopy('small', SMALL, ctx.log), { WEFT_MAILBOX_SIZE: '1024' });
  const tag = `${process.pid}-${Date.now()}`;
  try {
    const spec = (run: number): TargetSpec => ({
      method: 'POST',
      path: '/edge/management/v1/identities',
      headers: { 'zt-session': node.token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench-${tag}-${run}-{i}`, type: 'Device', isAdmin: false, roleAttributes: ['team3'] }),
    });
    return await againstBaseline(ctx, node, 'POST /identities (durable)', spec, 0.08);
  } finally {
    await node.stop();
  }
}
