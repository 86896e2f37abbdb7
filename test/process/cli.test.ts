// The command line of the real process: --help, refused flags and settings (exit 2 with a
// message naming them), a SIGTERM that lets requests already received finish (exit 0), the
// shutdown grace (not ready, still serving; a second signal ends it), and the worker pool's CPU
// priority as the kernel shows it.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import { after, test } from 'node:test';
import { killAllCliNodes, nodeEnv, runCliOnce, startCliNode, type CliNode } from '../support/cli-node.js';

const PASSWORD = 'cli-test-password';
const DOCUMENTED_VARIABLES = [
  'WEFT_LISTEN',
  'WEFT_GRPC_LISTEN',
  'WEFT_DATA_DIR',
  'WEFT_ADMIN_USERNAME',
  'WEFT_ADMIN_PASSWORD',
  'WEFT_NATS_URL',
  'WEFT_LOG_LEVEL',
];
/** Time for bytes already written by the client to reach the server's HTTP parser. */
const DELIVERY_GRACE_MS = 1_500;

const dirs: string[] = [];
const nodes: CliNode[] = [];
const sockets: TLSSocket[] = [];

after(async () => {
  for (const s of sockets) s.destroy();
  killAllCliNodes();
  await Promise.all(nodes.map((n) => n.kill()));
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cli-'));
  dirs.push(dir);
  return dir;
}

test('--help exits 0 and lists every WEFT_ variable', { timeout: 60_000 }, async () => {
  const dataDir = join(await tempDir(), 'data');
  const run = await runCliOnce(['--help'], nodeEnv(dataDir));
  assert.equal(run.code, 0, `exit code of --help\n${run.stdout}\n${run.stderr}`);
  for (const name of DOCUMENTED_VARIABLES) assert.ok(run.stdout.includes(name), `--help does not mention ${name}:\n${run.stdout}`);
  assert.match(run.stdout, /--listen/);
  assert.ok(!existsSync(dataDir), '--help does not create the data dir');
});

test('an unknown flag exits 2 with a message naming it', { timeout: 60_000 }, async () => {
  const dataDir = join(await tempDir(), 'data');
  const run = await runCliOnce(['--no-such-flag=1'], nodeEnv(dataDir));
  assert.equal(run.code, 2, `exit code\n${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /--no-such-flag/, `stderr names the flag: ${run.stderr}`);
  assert.doesNotMatch(run.stdout, /"msg":"listening"/);
  assert.ok(!existsSync(dataDir), 'a refused configuration does not create the data dir');
});

test('WEFT_LISTEN=nonsense exits 2 with a message naming WEFT_LISTEN', { timeout: 60_000 }, async () => {
  const dataDir = join(await tempDir(), 'data');
  const run = await runCliOnce([], nodeEnv(dataDir, { WEFT_LISTEN: 'nonsense' }));
  assert.equal(run.code, 2, `exit code\n${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /WEFT_LISTEN/, `stderr names the variable: ${run.stderr}`);
  assert.match(run.stderr, /nonsense/);
  assert.doesNotMatch(run.stdout, /"msg":"listening"/);
  assert.ok(!existsSync(dataDir), 'a refused configuration does not create the data dir');
});

test('an HTTPS address in use exits 1 with one line naming the address and WEFT_LISTEN', { timeout: 60_000 }, async () => {
  const taken = createServer();
  await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
  try {
    const port = (taken.address() as AddressInfo).port;
    const run = await runCliOnce([], nodeEnv(join(await tempDir(), 'data'), { WEFT_LISTEN: `127.0.0.1:${port}` }));
    assert.equal(run.code, 1, `exit code\n${run.stdout}\n${run.stderr}`);
    assert.equal(run.stderr, `weft-controller: cannot listen on 127.0.0.1:${port} (EADDRINUSE): choose another address with --listen / WEFT_LISTEN\n`);
  } finally {
    await new Promise((done) => taken.close(done));
  }
});

test('SIGTERM lets requests already received finish, then exits 0', { timeout: 180_000 }, async () => {
  const dataDir = join(await tempDir(), 'data');
  const node = await startCliNode({ dataDir, env: { WEFT_ADMIN_PASSWORD: PASSWORD } });
  nodes.push(node);
  const token = await node.login('admin', PASSWORD);
  const created = await node.request('POST', '/identities', { name: 'listed-while-draining', type: 'User', isAdmin: false }, token);
  assert.equal(created.status, 201, created.text);

  const api = new URL(node.api);
  const host = `${api.hostname}:${api.port}`;

  // A login whose body is only half sent, and a list whose header block is not yet ended: both
  // are on the server (its parser has begun them) but neither can complete before the SIGTERM.
  const loginBody = JSON.stringify({ username: 'admin', password: PASSWORD });
  const split = Math.floor(loginBody.length / 2);
  const login = await openRaw(api, node.caPem);
  login.socket.write(
    `POST ${api.pathname}/authenticate?method=password HTTP/1.1\r\nHost: ${host}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(loginBody)}\r\nconnection: close\r\n\r\n` +
      loginBody.slice(0, split),
  );
  const list = await openRaw(api, node.caPem);
  list.socket.write(`GET ${api.pathname}/identities?limit=-1 HTTP/1.1\r\nHost: ${host}\r\nzt-session: ${token}\r\n`);
  await sleep(DELIVERY_GRACE_MS);
  assert.equal(node.proc.exitCode, null);

  node.proc.kill('SIGTERM');
  await waitForOutput(node, /"msg":"draining"/);
  login.socket.write(loginBody.slice(split));
  list.socket.write('connection: close\r\n\r\n');

  const [loginRes, listRes] = await Promise.all([login.response, list.response]);
  assert.equal(loginRes.status, 200, `login in flight during SIGTERM: ${loginRes.raw}`);
  assert.ok(loginRes.headers.get('zt-session'), 'the login answered with a session token');
  assert.equal(listRes.status, 200, `list in flight during SIGTERM: ${listRes.raw}`);
  const listed = JSON.parse(listRes.body) as { data: { name: string }[] };
  assert.ok(listed.data.some((r) => r.name === 'listed-while-draining'), listRes.body.slice(0, 500));

  // One SIGTERM only: a second one is free to stop the process at once.
  assert.equal(await node.waitForExit(60_000), 0, `exit code after draining\n${node.stdout()}\n${node.stderr()}`);
  assert.match(node.stdout(), /"msg":"stopped"/);
  assert.equal(node.proc.signalCode, null, 'exited by itself, not by a signal');
});

test('with a shutdown grace, SIGTERM turns GET /readyz to 503 SHUTTING_DOWN while the node still serves, closing each connection; a second signal ends the grace', { timeout: 120_000 }, async () => {
  const dataDir = join(await tempDir(), 'data');
  // A grace far longer than the test: only the second signal can end it in time.
  const node = await startCliNode({ dataDir, env: { WEFT_ADMIN_PASSWORD: PASSWORD, WEFT_SHUTDOWN_GRACE: '10m' } });
  nodes.push(node);
  const token = await node.login('admin', PASSWORD);
  const api = new URL(node.api);
  const readyz = `${api.origin}/readyz`;
  assert.equal((await node.request('GET', readyz)).status, 200);

  node.proc.kill('SIGTERM');
  await waitForOutput(node, /"msg":"draining".*"graceMs":600000/);
  const notReady = await node.request('GET', readyz);
  assert.equal(notReady.status, 503, notReady.text);
  assert.equal(notReady.body.data.reason, 'SHUTTING_DOWN');
  assert.equal(notReady.body.data.live, true);
  // A keep-alive request is answered, and its connection closed by the node (the client
  // reconnects, through a balancer, to another node).
  const raw = await openRaw(api, node.caPem);
  raw.socket.write(`GET ${api.pathname}/identities?limit=1 HTTP/1.1\r\nHost: ${api.host}\r\nzt-session: ${token}\r\n\r\n`);
  const res = await raw.response;
  assert.equal(res.status, 200, res.raw);
  assert.equal(res.headers.get('connection'), 'close', res.raw);
  assert.equal(node.proc.exitCode, null, 'still running during the grace');

  node.proc.kill('SIGINT');
  assert.equal(await node.waitForExit(30_000), 0, `exit code after the second signal\n${node.stdout()}\n${node.stderr()}`);
  assert.match(node.stdout(), /"msg":"second signal: ending the grace period now"/);
  assert.match(node.stdout(), /"msg":"stopped"/);
});

interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
  raw: string;
}

/** A TLS connection to the API host; `response` is the answer read until the server closes. */
async function openRaw(api: URL, ca: string): Promise<{ socket: TLSSocket; response: Promise<RawResponse> }> {
  const socket = connect({ host: api.hostname, port: Number(api.port), ca, servername: 'localhost' });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', () => resolve());
    socket.once('error', reject);
  });
  const response = new Promise<RawResponse>((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.once('error', reject);
    socket.once('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    });
  });
  response.catch(() => {}); // observed by the test; keeps an early error from being unhandled
  return { socket, response };
}

function parseResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`incomplete HTTP answer: ${JSON.stringify(raw)}`);
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!m) throw new Error(`not an HTTP answer: ${JSON.stringify(raw.slice(0, 200))}`);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = raw.slice(end + 4);
  if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') body = dechunk(body);
  return { status: Number(m[1]), headers, body, raw };
}

function dechunk(data: string): string {
  let out = '';
  let rest = Buffer.from(data, 'utf8');
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd < 0) break;
    const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
    if (!size) break;
    out += rest.subarray(lineEnd + 2, lineEnd + 2 + size).toString('utf8');
    rest = rest.subarray(lineEnd + 2 + size + 2);
  }
  return out;
}

async function waitForOutput(node: CliNode, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(node.stdout())) {
    if (Date.now() > deadline) throw new Error(`no ${pattern} in the output\n${node.stdout()}\n${node.stderr()}`);
    await sleep(50);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Policy (SCHED_IDLE is 5) and nice value of every thread of a process, from /proc. */
function threadScheduling(pid: number): Array<{ policy: number; nice: number }> {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { nice: Number(fields[16]), policy: Number(fields[38]) };
  });
}

async function workerPoolLine(node: CliNode): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const line = (node.stdout() + node.stderr()).split('\n').find((l) => l.includes('"msg":"worker pool'));
    if (line) return JSON.parse(line) as Record<string, unknown>;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no worker pool line:\n${node.stdout()}`);
}

test('the worker pool threads run under SCHED_IDLE by default, and the start-up log says so', { timeout: 60_000 }, async () => {
  const node = await startCliNode({ dataDir: join(await tempDir(), 'data'), env: { WEFT_ADMIN_PASSWORD: PASSWORD, WEFT_WORKER_THREADS: '2' } });
  nodes.push(node);
  const line = await workerPoolLine(node);
  assert.deepEqual({ level: line.level, msg: line.msg, priority: line.priority, idle: line.idle }, { level: 'info', msg: 'worker pool', priority: 'background', idle: true });
  const threads = threadScheduling(node.proc.pid!);
  assert.equal(threads.filter((t) => t.policy === 5).length, 2, `two SCHED_IDLE threads: ${JSON.stringify(threads)}`);
  assert.equal(threads[0].policy, 0, 'the main thread keeps the normal policy');
  // Logins still work: the hashing runs on those threads.
  assert.ok(await node.login('admin', PASSWORD));
});

test('without chrt the worker pool warns and runs at nice 19; --worker-priority normal leaves it alone', { timeout: 60_000 }, async () => {
  const noChrt = await startCliNode({ dataDir: join(await tempDir(), 'data'), env: { WEFT_ADMIN_PASSWORD: PASSWORD, PATH: '/nonexistent' } });
  nodes.push(noChrt);
  const warned = await workerPoolLine(noChrt);
  assert.equal(warned.level, 'warn');
  assert.match(String(warned.msg), /SCHED_IDLE not available .* nice 19/);
  assert.equal(threadScheduling(noChrt.proc.pid!).filter((t) => t.nice === 19).length, 2);

  const normal = await startCliNode({ dataDir: join(await tempDir(), 'data'), env: { WEFT_ADMIN_PASSWORD: PASSWORD, WEFT_WORKER_PRIORITY: 'normal' } });
  nodes.push(normal);
  const line = await workerPoolLine(normal);
  assert.deepEqual({ level: line.level, priority: line.priority, idle: line.idle, nice: line.nice }, { level: 'info', priority: 'normal', idle: false, nice: threadScheduling(normal.proc.pid!)[0].nice });
  assert.equal(threadScheduling(normal.proc.pid!).filter((t) => t.policy === 5 || t.nice === 19).length, 0);
});
