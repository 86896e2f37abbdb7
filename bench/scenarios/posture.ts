// Posture events per second on one node, through REST (`/posture-response-bulk`, one and ten
// events per request, many API sessions) and through a router's gRPC stream, with the
// event-to-decision latency (the answer or acknowledgement comes after evaluation).

import { spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeLeaf } from '../../test/support/test-pki.js';
import { median, runLoad, seededCopy, startBenchNode, type RunningNode } from '../lib/harness.js';
import type { LoadResult } from '../lib/loadgen.js';
import type { PostureDriverSpec } from '../lib/posture-driver.js';
import { SMALL, withOfflineStore } from '../lib/seed.js';
import type { Row, ScenarioContext } from './types.js';

const DRIVER_JS = fileURLToPath(new URL('../lib/posture-driver.js', import.meta.url));
const USERS = 32;

async function create(node: RunningNode, path: string, body: Record<string, unknown>): Promise<string> {
  const res = await node.node.request('POST', path, body, node.token);
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body.data.id as string;
}

/** Router, policies, an OS check and USERS logged-in identities the check applies to. */
async function setUp(node: RunningNode) {
  const routerId = await create(node, '/edge-routers', { name: 'bench-router', roleAttributes: ['bench'] });
  await create(node, '/edge-router-policies', { name: 'bench-erp', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#bench'] });
  await create(node, '/service-edge-router-policies', { name: 'bench-serp', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#bench'] });
  const serviceId = await create(node, '/services', { name: 'bench-posture-svc', encryptionRequired: true });
  const checkId = await create(node, '/posture-checks', { name: 'bench-os', typeId: 'OS', roleAttributes: ['bench-os'], operatingSystems: [{ type: 'Linux', versions: ['>=5.10.0'] }] });
  await create(node, '/service-policies', { name: 'bench-posture-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#bench-posture'], serviceRoles: [`@${serviceId}`], postureCheckRoles: ['#bench-os'] });
  const users: { id: string; token: string }[] = [];
  for (let i = 0; i < USERS; i++) {
    const id = await create(node, '/identities', { name: `bench-posture-${i}`, type: 'Device', isAdmin: false, roleAttributes: ['bench-posture'] });
    await create(node, '/authenticators', { method: 'updb', identityId: id, username: `bench-posture-${i}`, password: 'bench-posture-pw' });
    users.push({ id, token: await node.node.login(`bench-posture-${i}`, 'bench-posture-pw') });
  }
  return { routerId, checkId, users };
}

/** Issues the router a client certificate from the node CA and records its fingerprint (the
 * node is stopped meanwhile; its data dir is written offline). */
async function certifyRouter(dataDir: string, routerId: string): Promise<{ certFile: string; keyFile: string }> {
  const pki = join(dataDir, 'pki');
  const ca = { certPem: await readFile(join(pki, 'ca.pem'), 'utf8'), keyPem: await readFile(join(pki, 'ca.key.pem'), 'utf8') };
  const leaf = makeLeaf(ca, routerId);
  const fingerprint = createHash('sha1').update(new X509Certificate(leaf.certPem).raw).digest('hex');
  await withOfflineStore(dataDir, ({ proposer }) => proposer.propose([{ op: 'set', kind: 'edge-routers', id: routerId, fields: { fingerprint, isVerified: true } }]));
  const certFile = join(dataDir, 'bench-router.pem');
  const keyFile = join(dataDir, 'bench-router.key.pem');
  await writeFile(certFile, leaf.certPem, { mode: 0o600 });
  await writeFile(keyFile, leaf.keyPem, { mode: 0o600 });
  return { certFile, keyFile };
}

export function runDriver(spec: PostureDriverSpec): Promise<LoadResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [DRIVER_JS, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.once('close', (code) => (code === 0 ? done(JSON.parse(out.trim()) as LoadResult) : fail(new Error(`posture driver exited ${code}`))));
  });
}

export async function postureEvents(ctx: ScenarioContext): Promise<Row[]> {
  const dir = await seededCopy('small', SMALL, ctx.log);
  let node = await startBenchNode(dir, { WEFT_MAILBOX_SIZE: '1024', WEFT_WORKER_THREADS: '2' });
  const { routerId, checkId, users } = await setUp(node);
  await node.node.stop();
  const cert = await certifyRouter(dir, routerId);
  node = await startBenchNode(dir, { WEFT_MAILBOX_SIZE: '1024', WEFT_WORKER_THREADS: '2' });
  const rows: Row[] = [];
  try {
    const response = (n: number) => JSON.stringify(Array.from({ length: n }, (_, k) => ({ id: checkId, typeId: 'OS', type: 'Linux', version: `5.${10 + k}.{i}` })));
    for (const perRequest of [1, 10]) {
      const runs: LoadResult[] = [];
      for (let i = 0; i < ctx.pairs; i++) {
        runs.push(await runLoad({
          ...ctx.timing, origin: node.origin, caFile: ctx.caFile(node), connections: 64, method: 'POST',
          path: '/edge/client/v1/posture-response-bulk', picks: users.map((u) => u.token),
          headers: { 'zt-session': '{pick}', 'content-type': 'application/json' }, body: response(perRequest),
        }));
      }
      const rps = median(runs.map((r) => r.rps));
      rows.push({ scenario: `posture events via REST bulk (${perRequest} per request, 64 connections)`, connections: 64, rps, p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)), value: `${(rps * perRequest).toFixed(0)} events/s`, target: 'reported', statuses: runs[0].statuses, errors: runs.reduce((n, r) => n + r.errors, 0) });
    }
    const grpcRuns: LoadResult[] = [];
    for (let i = 0; i < ctx.pairs; i++) {
      grpcRuns.push(await runDriver({ address: node.node.grpc, caFile: ctx.caFile(node), ...cert, identityIds: users.map((u) => u.id), checkId, inFlight: 64, ...ctx.timing }));
    }
    const rps = median(grpcRuns.map((r) => r.rps));
    rows.push({ scenario: 'posture events via the gRPC router stream (64 in flight)', connections: 1, rps, p50: median(grpcRuns.map((r) => r.p50)), p99: median(grpcRuns.map((r) => r.p99)), value: `${rps.toFixed(0)} events/s`, target: 'reported', errors: grpcRuns.reduce((n, r) => n + r.errors, 0) });
    return rows;
  } finally {
    await node.stop();
  }
}
