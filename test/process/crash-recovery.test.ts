// Crash recovery of the real process: a burst of identity creates in waves of 50 concurrent
// requests, SIGKILL while the last wave is in flight, restart on the same data dir. Every create
// the node acknowledged with 201 must have survived, with its name.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { killAllCliNodes, startCliNode, type ApiResponse, type CliNode } from '../support/cli-node.js';

const ADMIN = 'admin';
const PASSWORD = 'crash-test-password';
const WAVE = 50;
/** Waves awaited in full before the last one: 6 × 50 = 300 acknowledged creates at least. */
const FULL_WAVES = 6;
const FIRST_ACK_WAIT_MS = 30_000;

const dirs: string[] = [];
const nodes: CliNode[] = [];

after(async () => {
  killAllCliNodes();
  await Promise.all(nodes.map((n) => n.kill()));
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<CliNode> {
  const node = await startCliNode({ dataDir, env: { WEFT_ADMIN_PASSWORD: PASSWORD } });
  nodes.push(node);
  return node;
}

function output(node: CliNode): string {
  return `\n--- stdout ---\n${node.stdout().slice(-4000)}\n--- stderr ---\n${node.stderr().slice(-4000)}`;
}

test('every create acknowledged with 201 before a SIGKILL survives the restart', { timeout: 600_000 }, async () => {
  const root = await mkdtemp(join(tmpdir(), 'weft-crash-'));
  dirs.push(root);
  const dataDir = join(root, 'data');

  const first = await start(dataDir);
  const token = await first.login(ADMIN, PASSWORD);

  /** id → name of every create answered 201. */
  const acknowledged = new Map<string, string>();
  let seq = 0;
  const create = async (): Promise<ApiResponse> => {
    const name = `crash-${process.pid}-${seq++}`;
    const res = await first.request('POST', '/identities', { name, type: 'User', isAdmin: false }, token);
    if (res.status === 201) {
      const id = res.body?.data?.id;
      assert.equal(typeof id, 'string', `201 without data.id: ${res.text}`);
      acknowledged.set(id, name);
    }
    return res;
  };

  for (let wave = 0; wave < FULL_WAVES; wave++) {
    const answers = await Promise.all(Array.from({ length: WAVE }, create));
    for (const res of answers) assert.equal(res.status, 201, `create in wave ${wave} failed: HTTP ${res.status} ${res.text}${output(first)}`);
  }
  assert.equal(acknowledged.size, FULL_WAVES * WAVE);

  // The last wave: SIGKILL as soon as its first answer arrives, the rest still in flight.
  let firstAnswer!: () => void;
  const answered = new Promise<void>((resolve) => (firstAnswer = resolve));
  // Each outcome is captured at once (a request cut off by the kill rejects), so none goes unhandled.
  const lastWave = Array.from({ length: WAVE }, () =>
    create().then(
      (value): PromiseSettledResult<ApiResponse> => (firstAnswer(), { status: 'fulfilled', value }),
      (reason: unknown): PromiseSettledResult<ApiResponse> => (firstAnswer(), { status: 'rejected', reason }),
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([answered, new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_ACK_WAIT_MS)))]);
  clearTimeout(timer);
  const killed = await first.stop('SIGKILL');
  assert.equal(killed, null, 'a SIGKILLed process has no exit code');
  assert.equal(first.proc.signalCode, 'SIGKILL');

  const settled = await Promise.all(lastWave);
  const lastAcked = settled.filter((s) => s.status === 'fulfilled' && s.value.status === 201).length;
  const lastLost = settled.filter((s) => s.status === 'rejected').length;
  for (const s of settled) {
    // An answer that did arrive must be a success: a crash never produces an error answer.
    if (s.status === 'fulfilled') assert.equal(s.value.status, 201, `last wave answer: HTTP ${s.value.status} ${s.value.text}`);
  }
  const total = acknowledged.size;
  assert.ok(total >= FULL_WAVES * WAVE);
  // Diagnostics only: how the last wave split between acknowledged and cut off.
  process.stdout.write(`# last wave: ${lastAcked} acknowledged, ${lastLost} cut off by SIGKILL; ${total} acknowledged in all\n`);

  const second = await start(dataDir);
  const token2 = await second.login(ADMIN, PASSWORD);

  const entries = [...acknowledged];
  for (let i = 0; i < entries.length; i += WAVE) {
    const answers = await Promise.all(entries.slice(i, i + WAVE).map(([id]) => second.request('GET', `/identities/${encodeURIComponent(id)}`, undefined, token2)));
    answers.forEach((res, j) => {
      const [id, name] = entries[i + j];
      assert.equal(res.status, 200, `acknowledged identity ${id} (${name}) lost after the crash: HTTP ${res.status} ${res.text}`);
      assert.equal(res.body.data.id, id);
      assert.equal(res.body.data.name, name, `identity ${id} came back with another name`);
    });
  }

  const list = await second.request('GET', '/identities?limit=-1', undefined, token2);
  assert.equal(list.status, 200, list.text);
  assert.ok(Array.isArray(list.body.data), list.text.slice(0, 500));
  const totalCount = list.body.meta?.pagination?.totalCount;
  assert.equal(typeof totalCount, 'number', `no meta.pagination.totalCount: ${JSON.stringify(list.body.meta)}`);
  assert.ok(totalCount >= total, `totalCount ${totalCount} < ${total} acknowledged`);
  assert.equal(list.body.data.length, totalCount, 'limit=-1 returns every identity');
  const listed = new Map<string, string>(list.body.data.map((r: { id: string; name: string }) => [r.id, r.name]));
  for (const [id, name] of acknowledged) assert.equal(listed.get(id), name, `acknowledged identity ${id} missing from the list`);
  const ours = list.body.data.filter((r: { name: string }) => r.name.startsWith(`crash-${process.pid}-`)).length;
  assert.ok(ours >= total && ours <= seq, `listed ${ours} test identities; acknowledged ${total}, sent ${seq}`);

  assert.equal(await second.stop('SIGTERM'), 0, output(second));
});
