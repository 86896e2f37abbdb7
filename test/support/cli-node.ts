// Test support: runs the real controller as a child process (`node dist/src/main.js`), waits for
// its "listening" log line and talks HTTPS to it trusting the node's own CA. Every process this
// module starts is tracked so an `after` hook can SIGKILL whatever is still alive.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';

/** The compiled entry point, relative to this compiled file (dist/test/support → dist/src). */
export const MAIN_JS = fileURLToPath(new URL('../../src/main.js', import.meta.url));

/** How long a node may take to log "listening" (WEFT_BENCH_READY_MS: a benchmark over a large data set may allow more). */
const READY_TIMEOUT_MS = Number(process.env.WEFT_BENCH_READY_MS ?? 20_000);
const STOP_TIMEOUT_MS = 30_000;
const MANAGEMENT_PREFIX = '/edge/management/v1';

/** One HTTP answer: status, headers, the raw text and the parsed JSON body (undefined if not JSON). */
export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export interface CliNodeOptions {
  dataDir: string;
  env?: Record<string, string>;
  args?: string[];
  /** How long to wait for "listening" (default 20 s). */
  readyTimeoutMs?: number;
}

export interface CliNode {
  proc: ChildProcess;
  /** https://host:port/edge/management/v1 */
  api: string;
  /** https://host:port/edge/client/v1 */
  client: string;
  /** host:port of the gRPC server. */
  grpc: string;
  /** Path of the CA file the node printed (ca.pem). */
  ca: string;
  /** The CA PEM as read at start-up. */
  caPem: string;
  /** The parsed "listening" log line. */
  listening: Record<string, unknown>;
  stdout(): string;
  stderr(): string;
  /** A request to the management API; `path` is relative to it (e.g. '/identities') or a full https URL. */
  request(method: string, path: string, body?: unknown, token?: string): Promise<ApiResponse>;
  /** Password login; resolves to the zt-session token, throws with the answer when not 200. */
  login(username: string, password: string): Promise<string>;
  /** Sends the signal (default SIGTERM), waits for exit (SIGKILL after 30 s), resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** SIGKILL at once if still running (for after hooks); resolves once it exited (or after 10 s); never throws. */
  kill(): Promise<void>;
  /** Waits (without signalling) for the exit; SIGKILL and throw after `timeoutMs`. Resolves to the exit code. */
  waitForExit(timeoutMs?: number): Promise<number | null>;
  /** Resolves when the process has exited and its output is closed. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const live = new Set<ChildProcess>();

// Safety net: a test body that outlives its `after` hooks (node:test ends a test at once on an
// unhandled rejection) must not leave a node behind. The children are unref'd so they never keep
// this process alive on their own, and whatever still runs is SIGKILLed when this process exits.
process.once('exit', () => killAllCliNodes());

/** SIGKILLs every node process started here that is still running (use in `after` hooks). */
export function killAllCliNodes(): void {
  for (const proc of live) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
}

/** The environment a node child gets: loopback port-0 listeners, the data dir, info logs. */
export function nodeEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Keep PATH/HOME and the like, but no WEFT_* setting of the caller leaks into the child.
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WEFT_') && !k.startsWith('NODE_TEST')) env[k] = v;
  return {
    ...env,
    WEFT_LISTEN: '127.0.0.1:0',
    WEFT_GRPC_LISTEN: '127.0.0.1:0',
    WEFT_DATA_DIR: dataDir,
    WEFT_LOG_LEVEL: 'info',
    ...extra,
  };
}

/** Starts a node and resolves once it logged "listening"; rejects (and kills it) otherwise. */
export async function startCliNode(opts: CliNodeOptions): Promise<CliNode> {
  const proc = spawn(process.execPath, [MAIN_JS, ...(opts.args ?? [])], {
    env: nodeEnv(opts.dataDir, opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(proc);
  proc.unref();
  let out = '';
  let err = '';
  proc.stdout!.setEncoding('utf8');
  proc.stderr!.setEncoding('utf8');
  proc.stdout!.on('data', (chunk: string) => (out += chunk));
  proc.stderr!.on('data', (chunk: string) => (err += chunk));
  unrefStream(proc.stdout);
  unrefStream(proc.stderr);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('close', (code, signal) => {
      live.delete(proc);
      resolve({ code, signal });
    });
  });
  proc.once('error', (e) => (err += `\n[spawn error] ${e.message}\n`));

  let listening: Record<string, unknown>;
  try {
    listening = await waitForListening(proc, () => out, () => err, exited, opts.readyTimeoutMs);
  } catch (e) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))]);
    clearTimeout(timer);
    throw e;
  }

  const api = String(listening.api);
  const caPath = String(listening.ca);
  const caPem = readFileSync(caPath, 'utf8');
  const dispatcher = new Agent({ connect: { ca: caPem }, keepAliveTimeout: 1_000 });

  const request = async (method: string, path: string, body?: unknown, token?: string): Promise<ApiResponse> => {
    const url = /^https?:\/\//.test(path) ? path : `${api}${path}`;
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers['zt-session'] = token;
    const res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher,
    } as RequestInit);
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  };

  const login = async (username: string, password: string): Promise<string> => {
    const res = await request('POST', '/authenticate?method=password', { username, password });
    const token = res.headers.get('zt-session');
    if (res.status !== 200 || !token) {
      throw new Error(`login as ${username} failed: HTTP ${res.status} ${res.text}`);
    }
    return token;
  };

  const kill = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await dispatcher.destroy().catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000)))]);
    clearTimeout(timer);
  };

  const waitForExit = async (timeoutMs = STOP_TIMEOUT_MS, why = 'waiting'): Promise<number | null> => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const result = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    await dispatcher.destroy().catch(() => {});
    if (result === 'timeout') {
      proc.kill('SIGKILL');
      await exited;
      throw new Error(`node did not exit within ${timeoutMs} ms (${why})\n--- stdout ---\n${out}\n--- stderr ---\n${err}`);
    }
    return result.code;
  };

  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    return waitForExit(STOP_TIMEOUT_MS, `after ${signal}`);
  };

  return {
    proc,
    api,
    client: String(listening.client),
    grpc: String(listening.grpc),
    ca: caPath,
    caPem,
    listening,
    stdout: () => out,
    stderr: () => err,
    request,
    login,
    stop,
    waitForExit: (timeoutMs?: number) => waitForExit(timeoutMs),
    kill,
    exited,
  };
}

/** The base https://host:port of an API URL (strips the management prefix). */
export function originOf(api: string): string {
  return api.endsWith(MANAGEMENT_PREFIX) ? api.slice(0, -MANAGEMENT_PREFIX.length) : new URL(api).origin;
}

/** Runs main.js to completion (for --help and config errors); SIGKILL after `timeoutMs`. */
export async function runCliOnce(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [MAIN_JS, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout!.setEncoding('utf8');
  proc.stderr!.setEncoding('utf8');
  proc.stdout!.on('data', (c: string) => (stdout += c));
  proc.stderr!.on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  try {
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      proc.once('error', reject);
      proc.once('close', (code, signal) => resolve({ code, signal }));
    });
    return { code, signal, stdout, stderr };
  } finally {
    clearTimeout(timer);
    live.delete(proc);
  }
}

function waitForListening(
  proc: ChildProcess,
  stdout: () => string,
  stderr: () => string,
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
  timeoutMs = READY_TIMEOUT_MS,
): Promise<Record<string, unknown>> {
  const describe = (why: string) => `${why}\n--- stdout ---\n${stdout()}\n--- stderr ---\n${stderr()}`;
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      proc.stdout!.off('data', check);
      fn();
    };
    const check = () => {
      for (const line of stdout().split('\n')) {
        if (!line.includes('"msg":"listening"')) continue;
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (parsed.msg === 'listening' && typeof parsed.api === 'string') return finish(() => resolve(parsed));
        } catch {
          // a partial line: wait for the rest
        }
      }
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(describe(`node did not log "listening" within ${timeoutMs} ms`)))),
      timeoutMs,
    );
    proc.stdout!.on('data', check);
    void exited.then(({ code, signal }) =>
      finish(() => reject(new Error(describe(`node exited before listening (code ${code}, signal ${signal})`)))),
    );
    check();
  });
}

function unrefStream(stream: unknown): void {
  (stream as { unref?: () => void } | null)?.unref?.();
}
