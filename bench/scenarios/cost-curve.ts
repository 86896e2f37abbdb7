// The cost curve: what a given amount of per-request CPU does to the ratio against the bare Koa
// hello-world, on this machine, with this load generator. A stand-in Koa handler spins for N µs
// and answers 1.5 kB (the size of an identity detail); the ratio it gets is the best any
// handler of that cost can get, which puts the GET budget rows in proportion.

import { paired, runLoad, seededCopy, startBaseline, startBenchNode } from '../lib/harness.js';
import { SMALL } from '../lib/seed.js';
import type { Row, ScenarioContext } from './types.js';

const SPINS_US = [0, 25, 50, 100, 200];
const ANSWER_BYTES = 1_500;
const CONNECTIONS = 64;

export async function costCurve(ctx: ScenarioContext): Promise<Row[]> {
  // A node is started only to create the data dir's TLS material the baselines use.
  const node = await startBenchNode(await seededCopy('small', SMALL, ctx.log), {}, { waitForCache: false });
  const rows: Row[] = [];
  try {
    const common = { ...ctx.timing, connections: CONNECTIONS, caFile: ctx.caFile(node), method: 'GET', path: '/' };
    const hello = await startBaseline(node.dataDir);
    try {
      for (const spinUs of SPINS_US) {
        const standIn = await startBaseline(node.dataDir, { spinUs, bytes: ANSWER_BYTES });
        try {
          const result = await paired(ctx.pairs, () => runLoad({ ...common, origin: hello.origin }), () => runLoad({ ...common, origin: standIn.origin }));
          rows.push({ scenario: `Koa answering ${ANSWER_BYTES} B after ${spinUs} µs of CPU`, connections: CONNECTIONS, ...result, target: 'reported' });
        } finally {
          standIn.stop();
        }
      }
    } finally {
      hello.stop();
    }
  } finally {
    await node.stop();
  }
  return rows;
}
