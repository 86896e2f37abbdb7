// Test support: a real cluster on loopback — nats-server processes in one JetStream cluster
// (nats-cluster.ts), Weft node processes (`node dist/src/main.js` in cluster mode, each with its own data dir)
// and HAProxy in TCP mode in front, checking GET /readyz. Everything it starts is killed by close() or at exit.

import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { Agent } from 'undici';
import { startHaproxy, type Balancer } from './haproxy.js';
import { tailOf } from './logged-process.js';
import { freePorts } from './nats-server.js';
import { startNatsCluster, type NatsClusterHandle } from './nats-cluster.js';
import { ClusterNode } from './cluster-node.js';
import { ApiClient } from './test-node.js';

export { ClusterNode } from './cluster-node.js';

/** WEFT_SHUTDOWN_GRACE of the nodes behind the balancer: longer than HAProxy needs to take a
 * stopping node out (haproxy.ts: 300 ms plus its checks' own time on a busy machine), short enough
 * for the suite. Nodes without a balancer stop at once. */
export const TEST_SHUTDOWN_GRACE = '1s';

/** The default admin every test cluster is created with. */
export const CLUSTER_ADMIN = { username: 'admin', password: 'cluster-admin-pw-1' };

export interface ClusterOptions {
  /** Weft nodes started (default 3); the first creates the cluster, the others join. */
  nodes?: number;
  /** nats-server processes in the JetStream cluster (default 3); ignored when `nats` is given. */
  natsServers?: number;
  /** A running NATS to share (clusters on one NATS differ by WEFT_CLUSTER_NAME). */
  nats?: NatsClusterHandle;
  /** HAProxy in front of the nodes (default true). */
  balancer?: boolean;
  /** WEFT_CLUSTER_NAME (default: a random one, so clusters never share streams by accident). */
  name?: string;
  /** WEFT_CLUSTER_SECRET (default: 48 random hex characters). */
  secret?: string;
  /** Extra environment for every node (WEFT_SHUTDOWN_GRACE defaults to TEST_SHUTDOWN_GRACE
   * with a balancer, 0 without). */
  env?: Record<string, string>;
}

/** Options of one added node. */
export interface NodeOptions {
  nodeId?: string;
  /** Reuse a data dir (default: a fresh one). */
  dataDir?: string;
  env?: Record<string, string>;
}

export class Cluster {
  /** The members: nodes started by startCluster or addNode. */
  readonly nodes: ClusterNode[] = [];
  /** Every node created here, members or not (close() kills them all). */
  private readonly created: ClusterNode[] = [];
  balancer?: Balancer;
  /** The cluster CA, read from the first node's <data>/pki/ca.pem. */
  caPem = '';
  private nodeAgent?: Agent;
  private balancerAgent?: Agent;
  private count = 0;
  private closed = false;
  /** Set once a test or set-up step failed: close() then keeps the logs. */
  failed = false;

  constructor(
    readonly dir: string,
    readonly name: string,
    readonly secret: string,
    readonly nats: NatsClusterHandle,
    private readonly ownsNats: boolean,
    private readonly env: Record<string, string>,
  ) {}

  /** Management API through the balancer (a new TLS connection per request, so requests spread). */
  get lb(): ApiClient {
    return new ApiClient(`${this.balancerUrl}/edge/management/v1`, this.balancerDispatcher());
  }

  /** Client API through the balancer. */
  get lbClient(): ApiClient {
    return new ApiClient(`${this.balancerUrl}/edge/client/v1`, this.balancerDispatcher());
  }

  get balancerUrl(): string {
    if (!this.balancer) throw new Error('this cluster has no balancer');
    return this.balancer.url;
  }

  /** Nodes whose process runs. */
  running(): ClusterNode[] {
    return this.nodes.filter((n) => n.isRunning());
  }

  /** Creates a node (fresh ports, fresh data dir unless given) without starting it. */
  async newNode(opts: NodeOptions = {}): Promise<ClusterNode> {
    const [port, grpcPort] = await freePorts(2);
    const name = `n${++this.count}`;
    const dataDir = opts.dataDir ?? join(this.dir, name, 'data');
    mkdirSync(join(this.dir, name), { recursive: true });
    const env = {
      WEFT_NATS_URL: this.nats.urls.join(','),
      WEFT_CLUSTER_SECRET: this.secret,
      WEFT_CLUSTER_NAME: this.name,
      WEFT_ADMIN_PASSWORD: CLUSTER_ADMIN.password,
      WEFT_WORKER_THREADS: '1',
      ...this.env,
      ...(opts.nodeId ? { WEFT_NODE_ID: opts.nodeId } : {}),
      ...opts.env,
    };
    const node = new ClusterNode(name, port, grpcPort, dataDir, join(this.dir, name), env, () => this.nodeDispatcher());
    this.created.push(node);
    return node;
  }

  /** Creates, starts and (when there is a balancer) balances a new node. */
  async addNode(opts: NodeOptions = {}): Promise<ClusterNode> {
    const node = await this.newNode(opts);
    await node.start();
    this.nodes.push(node);
    this.readCa(node);
    await this.balancer?.setServers(this.nodes.map((n) => ({ name: n.name, port: n.port })));
    await this.waitBalanced();
    return node;
  }

  /** Takes a member out of the balancer (a reload: connections it has go on) and the members
   * list, then stops it (SIGTERM, with its shutdown grace); resolves to its exit code. (Drain it
   * first, as an operator does: `weft cluster remove`.) */
  async removeNode(node: ClusterNode): Promise<number | null> {
    this.nodes.splice(this.nodes.indexOf(node), 1);
    await this.balancer?.setServers(this.nodes.map((n) => ({ name: n.name, port: n.port })));
    const code = await node.stop();
    await this.waitBalanced();
    return code;
  }

  /** Starts every node and NATS server that is not running; waits until the balancer sees all. */
  async ensureAllRunning(): Promise<void> {
    for (let i = 0; i < this.nats.urls.length; i++) if (!this.nats.isRunning(i)) await this.nats.restartServer(i);
    await this.waitNatsReady();
    await Promise.all(this.nodes.filter((n) => !n.isRunning()).map((n) => n.start()));
    await this.waitBalanced();
  }

  /** Waits until the balancer's health check sees every running node UP. */
  async waitBalanced(): Promise<void> {
    await this.balancer?.waitUp(this.running().map((n) => n.name));
  }

  /** Password login as the default admin; resolves to the zt-session token. */
  login(via: ApiClient = this.lb): Promise<string> {
    return via.login(CLUSTER_ADMIN.username, CLUSTER_ADMIN.password);
  }

  /** Both APIs through the balancer on a pool that presents a client certificate. */
  certClients(creds: { certPem: string; keyPem: string }): { mgmt: ApiClient; client: ApiClient; close(): Promise<void> } {
    const dispatcher = new Agent({ connect: { ca: this.caPem, cert: creds.certPem, key: creds.keyPem }, pipelining: 0 });
    return {
      mgmt: new ApiClient(`${this.balancerUrl}/edge/management/v1`, dispatcher),
      client: new ApiClient(`${this.balancerUrl}/edge/client/v1`, dispatcher),
      close: () => dispatcher.close(),
    };
  }

  /** The tail of every log: nodes' stdout and stderr, NATS servers, HAProxy. */
  diagnostics(lines = 40): string {
    const parts: string[] = [];
    for (const node of this.created) {
      parts.push(`--- ${node.name} stdout (${node.outPath}), without successful requests ---\n${tailOf(node.outPath, lines, isNotSuccess)}`);
      parts.push(`--- ${node.name} stderr (${node.errPath}) ---\n${tailOf(node.errPath, lines)}`);
    }
    if (this.balancer) parts.push(`--- haproxy ---\n${tailOf(this.balancer.logPath, 15)}`);
    return parts.join('\n');
  }

  /** Resolves once JetStream answers through every running NATS server (a meta leader exists). */
  async waitNatsReady(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (let i = 0; i < this.nats.urls.length; i++) {
      if (!this.nats.isRunning(i)) continue;
      for (;;) {
        if (await jetStreamAnswers(this.nats.urls[i])) break;
        if (Date.now() > deadline) throw new Error(`JetStream did not answer through NATS ${this.nats.names[i]} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  /** The index of the NATS server leading this cluster's busiest stream (its log; 0 when unknown). */
  async natsStreamLeader(): Promise<number> {
    let best: { leader: string; messages: number } | undefined;
    const nc = await connect({ servers: this.nats.urls.filter((_, i) => this.nats.isRunning(i)), timeout: 2_000 });
    try {
      const jsm = await nc.jetstreamManager({ timeout: 2_000 });
      for (const info of await jsm.streams.list().next()) {
        const leader = info.cluster?.leader;
        if (!leader || !info.config.name.toLowerCase().includes(this.name.toLowerCase())) continue;
        if (!best || info.state.messages > best.messages) best = { leader, messages: info.state.messages };
      }
    } finally {
      await nc.close();
    }
    return Math.max(0, best ? this.nats.names.indexOf(best.leader) : 0);
  }

  /** Runs a set-up step (e.g. in a before hook); when it throws, prints the logs' tails first. */
  async setUp<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      this.failed = true;
      console.log(`\n===== cluster logs after a failed set-up: ${(err as Error).message} =====\n${this.diagnostics()}\n`);
      throw err;
    }
  }

  /** For afterEach: prints the logs' tails when the test did not pass. */
  reportIfFailed(t: { name: string; passed?: boolean }): void {
    if (t.passed === false) this.failed = true;
    if (t.passed === false) console.log(`\n===== cluster logs after the failure of "${t.name}" =====\n${this.diagnostics()}\n`);
  }

  /** Kills every process (nodes, HAProxy, NATS when owned) and removes the temp dir. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.created.map((n) => n.kill()));
    await this.balancer?.stop();
    if (this.ownsNats) await this.nats.stop();
    ownedNats.delete(this.nats);
    await this.nodeAgent?.destroy().catch(() => {});
    await this.balancerAgent?.destroy().catch(() => {});
    if (!this.failed) {
      rmSync(this.dir, { recursive: true, force: true });
      return;
    }
    // After a failure the logs stay for a closer look; the data dirs go.
    for (const node of this.created) rmSync(node.dataDir, { recursive: true, force: true });
    console.log(`cluster logs kept in ${this.dir}`);
  }

  /** Remembers the cluster CA (from the first node that serves). */
  readCa(node: ClusterNode): void {
    if (!this.caPem) this.caPem = readFileSync(node.caPath, 'utf8');
  }

  private nodeDispatcher(): Agent {
    if (!this.caPem) throw new Error('no cluster CA yet: no node has started');
    return (this.nodeAgent ??= new Agent({ connect: { ca: this.caPem }, keepAliveTimeout: 1_000 }));
  }

  private balancerDispatcher(): Agent {
    if (!this.caPem) throw new Error('no cluster CA yet: no node has started');
    // pipelining 0: no keep-alive, so every request is a new connection that HAProxy balances.
    return (this.balancerAgent ??= new Agent({ connect: { ca: this.caPem }, pipelining: 0 }));
  }
}

/** NATS clusters started here and not yet closed: crashed at exit, like every other process. */
const ownedNats = new Set<NatsClusterHandle>();
process.once('exit', () => {
  for (const nats of ownedNats) for (let i = 0; i < nats.urls.length; i++) void nats.killServer(i);
});

/**
 * Starts NATS (unless shared), the nodes (the first alone, since it creates the cluster, then
 * the others together) and HAProxy; resolves once the balancer sees every node UP.
 */
export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-cluster-'));
  let cluster: Cluster | undefined;
  try {
    const nats = opts.nats ?? (await startNatsCluster(opts.natsServers ?? 3));
    if (!opts.nats) ownedNats.add(nats);
    const name = opts.name ?? `t${randomBytes(4).toString('hex')}`;
    const grace = (opts.balancer ?? true) ? TEST_SHUTDOWN_GRACE : '0';
    cluster = new Cluster(dir, name, opts.secret ?? randomBytes(24).toString('hex'), nats, !opts.nats, { WEFT_SHUTDOWN_GRACE: grace, ...opts.env });
    const count = opts.nodes ?? 3;
    const nodes = await Promise.all(Array.from({ length: count }, () => cluster!.newNode()));
    if (nodes.length > 0) {
      await nodes[0].start();
      cluster.readCa(nodes[0]);
      await Promise.all(nodes.slice(1).map((n) => n.start()));
    }
    cluster.nodes.push(...nodes);
    if (opts.balancer ?? true) {
      const [port, statsPort] = await freePorts(2);
      cluster.balancer = await startHaproxy(dir, port, statsPort, nodes.map((n) => ({ name: n.name, port: n.port })));
      await cluster.waitBalanced();
    }
    return cluster;
  } catch (err) {
    if (cluster) {
      console.log(`\n===== cluster logs after a failed start =====\n${cluster.diagnostics()}\n`);
      cluster.failed = true;
      await cluster.close();
    } else {
      rmSync(dir, { recursive: true, force: true });
    }
    throw err;
  }
}

/** True when JetStream's API answers through the NATS server at `url`. */
async function jetStreamAnswers(url: string): Promise<boolean> {
  const nc = await connect({ servers: url, timeout: 2_000, reconnect: false }).catch(() => undefined);
  if (!nc) return false;
  try {
    const jsm = await nc.jetstreamManager({ timeout: 2_000 });
    await jsm.getAccountInfo();
    return true;
  } catch {
    return false;
  } finally {
    await nc.close().catch(() => {});
  }
}

/** Drops the log lines of requests answered below 400 (the bulk of a node's info log). */
function isNotSuccess(line: string): boolean {
  const m = /"msg":"request".*"status":(\d+)/.exec(line);
  return !m || Number(m[1]) >= 400;
}
