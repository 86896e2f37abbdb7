// Test support: starts a private nats-server on a free loopback port (optionally with JetStream
// in a temp dir) and stops it. A missing binary is a loud failure, never a skipped test.

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** A running test nats-server. */
export interface NatsServerHandle {
  /** `nats://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** SIGTERM, wait for exit (SIGKILL after 5s), remove the temp dir. Safe to call twice. */
  stop(): Promise<void>;
  /** SIGKILL at once (simulates a crash); call stop() afterwards to clean up. */
  kill(): void;
}

/** Options of startNatsServer. */
export interface NatsServerOptions {
  /** Enables JetStream (`-js`) with its store in the server's temp dir. */
  jetstream?: boolean;
}

const FIXED_LOCATIONS = ['/usr/bin/nats-server', '/usr/sbin/nats-server'];
const READY_TIMEOUT_MS = 10_000;

/** Starts nats-server on a free loopback port and resolves once it accepts connections. */
export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const bin = findNatsServer();
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOn(bin, await freePort(), opts);
    } catch (err) {
      lastError = err; // most likely the port was taken between probing and binding: retry
    }
  }
  throw lastError;
}

/** NATS_SERVER_BIN, then PATH, then the distro locations; throws a clear error when absent. */
export function findNatsServer(): string {
  const fromEnv = process.env.NATS_SERVER_BIN;
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new Error(`NATS_SERVER_BIN=${fromEnv} is not an executable file`);
  }
  const onPath = (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'nats-server'));
  const found = [...onPath, ...FIXED_LOCATIONS].find(isExecutable);
  if (found) return found;
  throw new Error(
    'nats-server binary not found (looked at $NATS_SERVER_BIN, $PATH, /usr/bin, /usr/sbin). ' +
      'The test command (`npm test`) installs it when missing; to install it yourself run ' +
      '`apt-get update && apt-get install -y nats-server`, or set NATS_SERVER_BIN.',
  );
}

async function startOn(bin: string, port: number, opts: NatsServerOptions): Promise<NatsServerHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-nats-'));
  const args = ['-a', '127.0.0.1', '-p', String(port)];
  if (opts.jetstream) args.push('-js', '-sd', dir);
  return launchNatsServer(bin, args, port, () => rmSync(dir, { recursive: true, force: true }));
}

/** Spawns nats-server with `args` (which must make it listen on 127.0.0.1:`port`) and resolves
 * once it accepts connections. `cleanup` runs after the process has exited (also on failure). */
export async function launchNatsServer(bin: string, args: string[], port: number, cleanup: () => void = () => {}): Promise<NatsServerHandle> {
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const output = collectTail(child);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve()); // spawn failure: 'exit' may never come
  });
  try {
    await waitUntilReady(port, child, exited, output);
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    cleanup();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    kill: () => void child.kill('SIGKILL'),
    stop: () => (stopping ??= stopChild(child, exited).finally(cleanup)),
  };
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Polls the port until a TCP connection succeeds; fails if the server exits or takes too long. */
async function waitUntilReady(port: number, child: ChildProcess, exited: Promise<void>, output: () => string) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let dead = false;
  void exited.then(() => (dead = true));
  while (Date.now() < deadline) {
    if (dead) throw new Error(`nats-server exited early (code ${child.exitCode}): ${output()}`);
    if (await canConnect(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server did not accept connections on port ${port} within ${READY_TIMEOUT_MS}ms: ${output()}`);
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A loopback TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Keeps the last few KB of stderr (drained continuously so the server never blocks on it). */
function collectTail(child: ChildProcess): () => string {
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4096);
  });
  return () => tail.trim();
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `count` distinct free loopback ports (all held open at once while probing, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(
      servers.map(
        (server) =>
          new Promise<number>((resolve, reject) => {
            server.once('error', reject);
            server.listen(0, '127.0.0.1', () => {
              const address = server.address();
              resolve(typeof address === 'object' && address ? address.port : 0);
            });
          }),
      ),
    );
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))));
  }
}
