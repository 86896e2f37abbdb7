// `npm run bench [-- <scenario> ...] [--quick]`: runs benchmark scenarios against real node
// processes and prints throughput, p50/p99 and the ratio to a baseline measured in the same run.

import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { killAllCliNodes } from '../test/support/cli-node.js';
import { BENCH_DIR } from './lib/harness.js';
import { certificateIssuance } from './scenarios/certificates.js';
import { clusterScenarios } from './scenarios/cluster.js';
import { costCurve } from './scenarios/cost-curve.js';
import { memoryScale, memoryScalePaired } from './scenarios/memory.js';
import { postureEvents } from './scenarios/posture.js';
import { readBarrier } from './scenarios/read-barrier.js';
import { joinHuge, joinLarge } from './scenarios/snapshot-join.js';
import { stallLarge } from './scenarios/stall.js';
import { accessLarge, listLarge, loginsVsReads, sizeRatio, startLarge } from './scenarios/scale.js';
import { createIdentity, getIdentity, getIdentityNats } from './scenarios/throughput.js';
import type { Row, Scenario, ScenarioContext } from './scenarios/types.js';

const SCENARIOS: Record<string, Scenario> = {
  'get-identity': getIdentity,
  'get-identity-nats': getIdentityNats,
  'create-identity': createIdentity,
  'list-100k': listLarge,
  'size-ratio': sizeRatio,
  'access-100k': accessLarge,
  'logins-vs-reads': loginsVsReads,
  'start-100k': startLarge,
  'stall-100k': stallLarge,
  'join-100k': joinLarge,
  'join-1m': joinHuge,
  posture: postureEvents,
  certificates: certificateIssuance,
  'cost-curve': costCurve,
  'memory-scale': memoryScale,
  'memory-scale-paired': memoryScalePaired,
  cluster: clusterScenarios,
  'read-barrier': readBarrier,
};

function format(rows: Row[]): string {
  const head = ['scenario', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'ratio', 'value', 'target', 'result'];
  const lines = rows.map((r) => [
    r.scenario,
    String(r.connections || ''),
    r.rps ? r.rps.toFixed(0) : '',
    r.p50 ? r.p50.toFixed(2) : '',
    r.p99 ? r.p99.toFixed(2) : '',
    r.baselineRps ? r.baselineRps.toFixed(0) : '',
    r.ratio !== undefined ? r.ratio.toFixed(3) : '',
    r.value ?? '',
    r.target,
    r.pass === undefined ? '' : r.pass ? 'met' : 'MISSED',
  ]);
  return ['| ' + head.join(' | ') + ' |', '|' + head.map(() => ' --- ').join('|') + '|', ...lines.map((l) => '| ' + l.join(' | ') + ' |')].join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const names = args.filter((a) => !a.startsWith('--'));
  const unknown = names.filter((n) => !SCENARIOS[n]);
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`);
  const ctx: ScenarioContext = {
    pairs: quick ? 1 : 3,
    timing: quick ? { durationMs: 2_000, warmupMs: 500 } : { durationMs: 8_000, warmupMs: 2_000 },
    caFile: (node) => join(node.dataDir, 'pki', 'ca.pem'),
    log: (m) => process.stderr.write(`[bench] ${m}\n`),
  };
  const rows: Row[] = [];
  for (const name of names.length > 0 ? names : Object.keys(SCENARIOS)) {
    ctx.log(`scenario ${name}`);
    const result = await SCENARIOS[name](ctx);
    rows.push(...result);
    process.stdout.write(`${format(result)}\n\n`);
  }
  process.stdout.write(`All scenarios:\n${format(rows)}\n`);
  await mkdir(BENCH_DIR, { recursive: true });
  await writeFile(join(BENCH_DIR, `results-${Date.now()}.json`), JSON.stringify(rows, null, 2));
}

main().then(
  () => process.exit(0),
  (err) => {
    killAllCliNodes();
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
