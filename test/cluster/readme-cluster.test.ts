// The README's "Three nodes on one machine", run as it is written: its shell block, with its ports
// and its folder moved to free ones, starts three nats-servers, three Weft nodes and HAProxy. The
// founding node's password logs in through the balancer, a write through the balancer is read
// back from every node, and the cluster lists its three members.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import { findHaproxy } from '../support/haproxy.js';
import { findNatsServer } from '../support/nats-server.js';
import { ApiClient } from '../support/test-node.js';
import { until } from '../support/until.js';
import { sleep } from '../support/write-load.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** The block's port prefixes (each followed by one digit) and its folder. */
const PREFIXES = [':422', ':622', ':822', ':128', ':129'];
const FOLDER = '/tmp/weft';
/** From starting the block until a login through the balancer succeeds. */
const UP_WITHIN_MS = 120_000;

/** The shell block under "### Three nodes on one machine" in README.md. */
function readmeClusterBlock(readme: string): string {
  const section = readme.indexOf('### Three nodes on one machine');
  assert.ok(section >= 0, 'README.md has the section "Three nodes on one machine"');
  const start = readme.indexOf('```sh\n', section);
  const end = readme.indexOf('\n```', start + 6);
  assert.ok(start > section && end > start, 'the section has a ```sh block');
  return readme.slice(start + 6, end + 1);
}

/** True when nothing listens on 127.0.0.1:port. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `count` four-digit prefixes P, all different, whose ports P0…P9 are free now: 20000–32759,
 * below the kernel's ephemeral ports (32768 and up), which other processes' connections and
 * listen(0) take from. */
async function freePrefixes(count: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < count) {
    const prefix = String(2000 + Math.floor(Math.random() * 1276));
    if (out.includes(prefix)) continue;
    const free = await Promise.all(Array.from({ length: 10 }, (_, d) => canListen(Number(`${prefix}${d}`))));
    if (free.every(Boolean)) out.push(prefix);
  }
  return out;
}

/** Signals a process by pid (0: only asks whether it runs); false when it is gone. */
function signal(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM, then SIGKILL whatever still runs after `ms`. */
async function stopAll(pids: number[], ms: number): Promise<void> {
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + ms;
  while (pids.some((pid) => signal(pid, 0)) && Date.now() < deadline) await sleep(100);
  for (const pid of pids) signal(pid, 'SIGKILL');
}

describe("the README's three nodes on one machine", () => {
  const dir = mkdtempSync(join(tmpdir(), 'readme-cluster-'));
  let pids: number[] = [];
  /** The shell's process group: it and everything it started in the background. */
  let group: number | undefined;
  const killAll = () => void (group !== undefined && signal(-group, 'SIGKILL'));
  process.once('exit', killAll);
  after(async () => {
    // As the README says: the nodes and the balancer first, then NATS; then whatever is left
    // (a block that stopped half-way wrote no pids).
    await stopAll(pids.slice(3), 15_000);
    await stopAll(pids.slice(0, 3), 10_000);
    killAll();
    process.off('exit', killAll);
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts as written; the founding password logs in through the balancer, and every node reads a write made through it', { timeout: 240_000 }, async () => {
    const block = readmeClusterBlock(readFileSync(join(REPO, 'README.md'), 'utf8'));
    const prefixes = await freePrefixes(PREFIXES.length);
    let script = block.replaceAll(FOLDER, join(dir, 'weft'));
    PREFIXES.forEach((from, i) => (script = script.replaceAll(from, `:${prefixes[i]}`)));
    for (const from of [...PREFIXES, FOLDER]) assert.ok(!script.includes(from), `every ${from} of the block was moved`);
    const [, , , api, grpc] = prefixes;
    // The block's `&` jobs outlive the shell; it writes their pids (NATS ×3, nodes ×3, HAProxy).
    writeFileSync(join(dir, 'cluster.sh'), `set -e\n${script}\njobs -p > ${join(dir, 'pids')}\n`);
    // `nats-server` and `haproxy` by name, as the block calls them.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(findNatsServer(), join(bin, 'nats-server'));
    symlinkSync(findHaproxy(), join(bin, 'haproxy'));
    const env = { PATH: `${bin}:${process.env.PATH}`, HOME: dir };

    const shell = spawn('bash', [join(dir, 'cluster.sh')], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    group = shell.pid;
    let output = '';
    shell.stdout.on('data', (c: Buffer) => (output += c.toString()));
    shell.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await Promise.race([
      new Promise<number | null>((resolve) => shell.once('exit', resolve)),
      sleep(60_000).then(() => 'timeout' as const),
    ]);
    if (existsSync(join(dir, 'pids'))) pids = readFileSync(join(dir, 'pids'), 'utf8').split('\n').filter(Boolean).map(Number);
    assert.equal(code, 0, `the block ran to its end: ${output}`);
    assert.equal(pids.length, 7, 'three nats-servers, three nodes and HAProxy run in the background');

    const weft = join(dir, 'weft');
    const logs = () => [1, 2, 3].map((i) => `node${i}: ${readFileSync(join(weft, `node${i}.log`), 'utf8').slice(-2_000)}`).join('\n');
    // "The node that founded the cluster ... keeps it in its admin-password file".
    // "prints the admin password (grep -A1 'Default admin' /tmp/weft/node*.log)".
    const printedBy = () => readdirSync(weft).filter((f) => /^node\d\.log$/.test(f) && readFileSync(join(weft, f), 'utf8').includes('Default admin created'));
    const up = { timeoutMs: UP_WITHIN_MS, everyMs: 250, detail: logs };
    const passwords = await until('an admin-password file and the password printed', () => {
      const found = [1, 2, 3].map((i) => join(weft, `node${i}`, 'admin-password')).filter(existsSync).map((f) => readFileSync(f, 'utf8').trim());
      return found.length > 0 && printedBy().length > 0 && found;
    }, up);
    assert.equal(passwords.length, 1, 'exactly one node founded the cluster');
    assert.equal(printedBy().length, 1, 'the password is printed by the founding node only');
    assert.ok(readFileSync(join(weft, printedBy()[0]), 'utf8').includes(passwords[0]), 'the printed password is the one in the file');
    // "/tmp/weft/node1/pki/ca.pem (the same file on every node) is the CA to trust".
    const caOf = (i: number) => join(weft, `node${i}`, 'pki', 'ca.pem');
    await until("every node's copy of the cluster's CA", () => [1, 2, 3].every((i) => existsSync(caOf(i))), up);
    const caPem = readFileSync(caOf(1), 'utf8');
    for (const i of [2, 3]) assert.equal(readFileSync(caOf(i), 'utf8'), caPem, `node${i} trusts the same CA`);

    const agent = new Agent({ connect: { ca: caPem }, pipelining: 0 });
    try {
      const balancer = new ApiClient(`https://127.0.0.1:${api}0/edge/management/v1`, agent);
      const nodes = [1, 2, 3].map((i) => new ApiClient(`https://127.0.0.1:${api}${i}/edge/management/v1`, agent));
      let lastLogin = '';
      const token = await until('a login through the balancer', async () => {
        const login = await balancer.request('POST', '/authenticate?method=password', { body: { username: 'admin', password: passwords[0] }, timeoutMs: 10_000 });
        lastLogin = `${login.status} ${login.text}`;
        return login.status === 200 && (login.headers.get('zt-session') ?? undefined);
      }, { ...up, everyMs: 500, detail: () => `${lastLogin}\n${logs()}` });

      // A node answers 503 while it starts and joins; the balancer sends only to ready ones.
      for (const i of [1, 2, 3]) {
        const root = new ApiClient(`https://127.0.0.1:${api}${i}`, agent);
        await until(`node${i} ready`, async () => (await root.request('GET', '/readyz')).status === 200, up);
      }

      const created = await balancer.request('POST', '/identities', { body: { name: 'readme-cluster-user', type: 'User', isAdmin: false }, token });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.id as string;
      for (const [i, node] of nodes.entries()) {
        const read = await node.request('GET', `/identities/${id}`, { token });
        assert.equal(read.status, 200, `node${i + 1} reads the identity created through the balancer: ${read.text}`);
        assert.equal(read.body.data.name, 'readme-cluster-user');
      }

      // Every member heartbeats within a second of its start: wait for all three.
      let lastControllers = '';
      await until('three members online', async () => {
        const controllers = await balancer.request('GET', '/controllers', { token });
        lastControllers = `${controllers.status} ${controllers.text}`;
        return controllers.status === 200 && (controllers.body.data as { isOnline: boolean }[]).filter((c) => c.isOnline).length === 3;
      }, { timeoutMs: 15_000, everyMs: 250, detail: () => lastControllers });
      // The gRPC listeners the block gave each node.
      for (const i of [1, 2, 3]) assert.equal(await canListen(Number(`${grpc}${i}`)), false, `node${i} listens for gRPC on ${grpc}${i}`);
    } finally {
      await agent.close();
    }
  });
});
