// Starts a real node in-process for API tests (HTTPS, LevelDB in a temp dir, memory or NATS
// bus) and gives tests a small fetch-based client that trusts the node's own CA.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { startNatsServer } from './nats-server.js';
import { DEFAULTS, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { startNode, type NodeHandle, type NodeHooks } from '../../src/main.js';

export const ADMIN = { username: 'admin', password: 'admin-secret-pw' };

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body (undefined when the body is empty or not JSON). */
  body: any;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body text, sent as is (for malformed-JSON tests). */
  raw?: string;
  token?: string;
  headers?: Record<string, string>;
  /** Abort the request after this many milliseconds (the fetch then rejects). */
  timeoutMs?: number;
}

export class ApiClient {
  constructor(
    readonly base: string,
    private readonly dispatcher: Agent,
  ) {}

  async request(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    if (opts.token) headers['zt-session'] = opts.token;
    const signal = opts.timeoutMs === undefined ? undefined : AbortSignal.timeout(opts.timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, { method, headers, body, signal, dispatcher: this.dispatcher } as RequestInit);
    } catch (err) {
      // undici says only "fetch failed"; the reason (refused, reset, certificate) is its cause.
      const reason = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
      throw new Error(`${method} ${this.base}${path}: ${reason}`, { cause: err });
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get(path: string, token?: string) {
    return this.request('GET', path, { token });
  }

  post(path: string, body: unknown, token?: string) {
    return this.request('POST', path, { body, token });
  }

  put(path: string, body: unknown, token?: string) {
    return this.request('PUT', path, { body, token });
  }

  patch(path: string, body: unknown, token?: string) {
    return this.request('PATCH', path, { body, token });
  }

  delete(path: string, token?: string) {
    return this.request('DELETE', path, { token });
  }

  /** Password login; returns the zt-session token. */
  /** Logs in with a password. With `retryUnavailableMs`, a 503 (nothing stored, as while a freshly
   * formed JetStream settles its stream's leader) is retried as its Retry-After says, like any
   * client would, until that much time has passed; so is a 504 OUTCOME_UNKNOWN (a write still
   * unsettled after 5 s, as while a joining node takes its shards over on a loaded machine): a
   * session that may have been stored is harmless, so a login is simply sent again. Any other
   * failure fails at once. */
  async login(username: string, password: string, retryUnavailableMs = 0): Promise<string> {
    const deadline = Date.now() + retryUnavailableMs;
    for (;;) {
      const res = await this.post('/authenticate?method=password', { username, password });
      if (res.status === 200) return res.headers.get('zt-session')!;
      const unsettled = res.status === 504 && res.body?.error?.cause?.code === 'OUTCOME_UNKNOWN';
      if ((res.status !== 503 && !unsettled) || Date.now() > deadline) throw new Error(`login as ${username} failed: ${res.status} ${res.text}`);
      await new Promise((resolve) => setTimeout(resolve, 1_000 * Number(res.headers.get('retry-after') ?? 1)));
    }
  }
}

export interface TestNode {
  handle: NodeHandle;
  dataDir: string;
  mgmt: ApiClient;
  client: ApiClient;
  adminToken: string;
  /** Creates a non-admin identity with a updb authenticator and returns its id and token. */
  createUser(name: string, opts?: { isAdmin?: boolean; password?: string }): Promise<{ id: string; token: string; username: string }>;
  close(): Promise<void>;
}

export interface TestNodeOptions {
  natsUrl?: string;
  dataDir?: string;
  config?: Partial<Config>;
  /** The node's logger (default: silent), e.g. one writing to a test's sink. */
  logger?: Logger;
  /** In-process overrides, e.g. a fake posture clock and timers. */
  hooks?: NodeHooks;
}

/** The cluster secret of test nodes in cluster mode. */
export const TEST_CLUSTER_SECRET = 'weft-test-cluster-secret-0123456789';

/**
 * Starts a node for API tests. With WEFT_TEST_BUS=nats (the test command's second pass), a node
 * given no NATS url gets its own real nats-server, so every API test also runs over NATS; with
 * WEFT_TEST_BUS=cluster (the third pass) its nats-server has JetStream and the node runs in
 * cluster mode (a one-node cluster: JetStream log, shards, read barrier).
 */
export async function startTestNode(opts: TestNodeOptions = {}): Promise<TestNode> {
  const bus = process.env.WEFT_TEST_BUS;
  const cluster = !opts.natsUrl && bus === 'cluster';
  const nats = !opts.natsUrl && (bus === 'nats' || cluster) ? await startNatsServer({ jetstream: cluster }) : undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'weft-api-')));
  const config: Config = {
    ...DEFAULTS,
    listen: '127.0.0.1:0',
    grpcListen: '127.0.0.1:0',
    dataDir,
    adminUsername: ADMIN.username,
    adminPassword: ADMIN.password,
    natsUrl: opts.natsUrl ?? nats?.url,
    ...(cluster ? { clusterSecret: TEST_CLUSTER_SECRET } : {}),
    workerThreads: 2,
    logLevel: 'silent',
    ...opts.config,
  };
  const handle = await startNode(config, opts.logger ?? createLogger('silent'), opts.hooks);
  // A flood test opens hundreds of TLS connections at once; on a loaded machine their handshakes
  // can take longer than undici's 10 s default, which is not what any test is about.
  const dispatcher = new Agent({ connect: { ca: handle.caPem, timeout: 60_000 } });
  const mgmt = new ApiClient(`${handle.url}/edge/management/v1`, dispatcher);
  const client = new ApiClient(`${handle.url}/edge/client/v1`, dispatcher);
  const adminToken = await mgmt.login(ADMIN.username, ADMIN.password, 30_000);
  let users = 0;
  return {
    handle,
    dataDir,
    mgmt,
    client,
    adminToken,
    async createUser(name, userOpts = {}) {
      const created = await mgmt.post('/identities', { name, type: 'User', isAdmin: userOpts.isAdmin ?? false }, adminToken);
      if (created.status !== 201) throw new Error(`create identity failed: ${created.text}`);
      const id = created.body.data.id as string;
      const username = `user-${++users}-${id}`;
      const password = userOpts.password ?? 'user-password-1';
      const auth = await mgmt.post('/authenticators', { method: 'updb', identityId: id, username, password }, adminToken);
      if (auth.status !== 201) throw new Error(`create authenticator failed: ${auth.text}`);
      return { id, username, token: await mgmt.login(username, password) };
    },
    async close() {
      await handle.close();
      await dispatcher.close();
      await nats?.stop();
      if (!opts.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
