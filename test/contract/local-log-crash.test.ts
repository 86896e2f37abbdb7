// Crash test for LocalLog: a child process appends and prints each acknowledged seq; we SIGKILL
// it mid-stream, reopen the log and require every acknowledged entry, exact, with no gaps.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LocalLog } from '../../src/log/local-log.js';
import type { LogEntry } from '../../src/log/log.js';
import { waitFor } from './log-contract.js';

/** The compiled LocalLog, relative to this compiled test (dist/test/contract → dist/src/log). */
const LOCAL_LOG_URL = new URL('../../src/log/local-log.js', import.meta.url).href;
const ACKS_BEFORE_KILL = 200;

const CHILD = `
import { LocalLog } from ${JSON.stringify(LOCAL_LOG_URL)};
const log = new LocalLog({ path: process.argv[2] });
await log.open();
const round = Number(process.argv[3]);
let n = 0;
async function writer() {
  for (;;) {
    const i = ++n;
    const command = { round, i, text: 'entry-' + i + '-' + 'é😀'.repeat(i % 7) + 'x'.repeat(i % 300) };
    const seq = await log.append(command);
    process.stdout.write(JSON.stringify({ seq, command }) + '\\n');
  }
}
for (let w = 0; w < 16; w++) writer();
`;

interface Ack {
  seq: number;
  command: unknown;
}

/** Runs the child until it has acknowledged enough appends, SIGKILLs it, returns every ack it printed. */
function runAndKill(script: string, dbPath: string, round: number): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, dbPath, String(round)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let acks = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      acks += chunk.split('\n').length - 1;
      if (acks >= ACKS_BEFORE_KILL) child.kill('SIGKILL');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`child exited early (code ${code}): ${err}`));
      const lines = out.split('\n').slice(0, -1); // the last piece is partial (or empty)
      resolve(lines.map((line) => JSON.parse(line) as Ack));
    });
  });
}

async function readAll(log: LocalLog): Promise<LogEntry[]> {
  const last = await log.lastSeq();
  const seen: LogEntry[] = [];
  const sub = log.follow(0, async (entry) => void seen.push(entry));
  await waitFor(() => seen.length === last, 'replay', 20_000);
  await sub.close();
  return seen;
}

test('local-log - every acknowledged append survives SIGKILL', { timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'weft-log-crash-'));
  try {
    const script = join(dir, 'child.mjs');
    const dbPath = join(dir, 'log');
    await writeFile(script, CHILD);
    const acked: Ack[] = [];
    for (let round = 1; round <= 2; round++) {
      const acks = await runAndKill(script, dbPath, round);
      assert.ok(acks.length >= ACKS_BEFORE_KILL, `round ${round}: ${acks.length} acks`);
      acked.push(...acks);
    }
    const log = new LocalLog({ path: dbPath });
    await log.open();
    const entries = await readAll(log);
    await log.close();
    entries.forEach((entry, i) => assert.equal(entry.seq, i + 1));
    const bySeq = new Map(entries.map((e) => [e.seq, e.command]));
    assert.equal(new Set(acked.map((a) => a.seq)).size, acked.length, 'acknowledged seqs are distinct');
    for (const ack of acked) assert.deepEqual(bySeq.get(ack.seq), ack.command, `seq ${ack.seq}`);
    t.diagnostic(`${acked.length} acknowledged, ${entries.length} recovered`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
