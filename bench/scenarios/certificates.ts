// Certificate issuance: CSR signings per second on one worker thread (the shipped signer:
// node-forge builds the certificate, OpenSSL signs) against pure node-forge signing in the
// same run, and a burst of 250 ott enrollments with CSRs through the client API.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import forge from 'node-forge';
import { createCsr, newKey } from '../../test/support/csr.js';
import { ensureNodePki } from '../../src/pki/node-pki.js';
import { median, runLoad, seededCopy, startBenchNode } from '../lib/harness.js';
import { poolTaskRate } from '../lib/pool-rate.js';
import { BENCH_DIR } from '../lib/harness.js';
import { SMALL } from '../lib/seed.js';
import type { Row, ScenarioContext } from './types.js';

const SIGNINGS = 600;
const BURST = 250;

/** Signings per second through a one-thread pool, with 8 in flight. */
function poolRate(ca: { caCertPem: string; caKeyPem: string }, csrs: string[]): Promise<number> {
  return poolTaskRate(SIGNINGS, 8, (pool, i) => pool.signCsr({ csrPem: csrs[i % csrs.length], ...ca, validityDays: 365, usage: 'client' }));
}

/** The same certificate built and signed by node-forge alone, on this thread. */
function forgeRate(ca: { caCertPem: string; caKeyPem: string }, csrs: string[], count: number): number {
  const caCert = forge.pki.certificateFromPem(ca.caCertPem);
  const caKey = forge.pki.privateKeyFromPem(ca.caKeyPem);
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const csr = forge.pki.certificationRequestFromPem(csrs[i % csrs.length]);
    const cert = forge.pki.createCertificate();
    cert.publicKey = csr.publicKey!;
    cert.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(15))}`;
    cert.validity.notBefore = new Date();
    cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
    cert.setSubject(csr.subject.attributes);
    cert.setIssuer(caCert.subject.attributes);
    cert.setExtensions([{ name: 'basicConstraints', cA: false }, { name: 'extKeyUsage', clientAuth: true }]);
    cert.sign(caKey, forge.md.sha256.create());
  }
  return count / ((performance.now() - t0) / 1000);
}

export async function certificateIssuance(ctx: ScenarioContext): Promise<Row[]> {
  const pki = await ensureNodePki({ dir: join(BENCH_DIR, 'pki-signing'), hostnames: ['localhost'], ips: ['127.0.0.1'] });
  const ca = { caCertPem: pki.caCertPem, caKeyPem: pki.caKeyPem };
  const csrs = Array.from({ length: 16 }, (_, i) => createCsr(newKey(i % 2 ? 'ec' : 'rsa'), `bench-${i}`));
  const pooled: number[] = [];
  const forged: number[] = [];
  for (let i = 0; i < ctx.pairs; i++) {
    forged.push(forgeRate(ca, csrs.filter((_, k) => k % 2 === 0), 40)); // node-forge reads RSA requests only
    pooled.push(await poolRate(ca, csrs));
  }
  const rows: Row[] = [
    { scenario: 'CSR signing, pure node-forge (this thread; comparison)', connections: 0, rps: median(forged), p50: 0, p99: 0, value: `${median(forged).toFixed(0)}/s`, target: 'reported' },
    { scenario: 'CSR signing on one worker thread (shipped signer)', connections: 0, rps: median(pooled), p50: 0, p99: 0, baselineRps: median(forged), ratio: median(pooled) / median(forged), value: `${median(pooled).toFixed(0)}/s`, target: '≥ 220/s per thread', pass: median(pooled) >= 220 },
  ];
  rows.push(await enrollmentBurst(ctx));
  return rows;
}

/** 250 identities with ott enrollments, then all 250 enrolled at once with CSRs. */
async function enrollmentBurst(ctx: ScenarioContext): Promise<Row> {
  const node = await startBenchNode(await seededCopy('small', SMALL, ctx.log), { WEFT_WORKER_THREADS: '2', WEFT_MAILBOX_SIZE: '1024' });
  try {
    const tokens: string[] = [];
    for (let i = 0; i < BURST; i++) {
      const res = await node.node.request('POST', '/identities', { name: `burst-${Date.now()}-${i}`, type: 'Device', isAdmin: false, enrollment: { ott: true } }, node.token);
      const detail = await node.node.request('GET', `/identities/${res.body.data.id}`, undefined, node.token);
      tokens.push(detail.body.data.enrollment.ott.token);
    }
    const csr = createCsr(newKey('ec'), 'burst');
    const caFile = join(node.dataDir, 'pki', 'ca.pem');
    await readFile(caFile);
    const result = await runLoad({
      origin: node.origin, caFile, connections: 64, durationMs: 30_000, warmupMs: 0, maxRequests: BURST,
      method: 'POST', path: '/edge/client/v1/enroll?method=ott&token={pick}', picks: tokens,
      headers: { 'content-type': 'application/x-pem-file' }, body: csr,
    });
    const seconds = result.seconds;
    const ok = result.statuses['200'] ?? 0;
    return { scenario: `burst of ${BURST} ott enrollments with CSRs (64 connections)`, connections: 64, rps: result.rps, p50: result.p50, p99: result.p99, value: `${seconds.toFixed(2)} s, ${ok} enrolled`, target: '≤ 2 s', pass: seconds <= 2 && ok === BURST, statuses: result.statuses };
  } finally {
    await node.stop();
  }
}
