// Test support: N nats-server processes (Debian's package) in one JetStream cluster on loopback,
// each with a fixed client, route and monitoring port and its own store, so any server can be
// stopped, killed and started again in place.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnLogged, tailOf, type LoggedProcess } from './logged-process.js';
import { findNatsServer, freePorts } from './nats-server.js';

const READY_TIMEOUT_MS = 30_000;

/** One nats-server of the cluster. */
export interface NatsNode {
  /** server_name, e.g. s1 */
  name: string;
  /** nats://127.0.0.1:<port> */
  url: string;
  port: number;
  monitorPort: number;
  logPath: string;
  isRunning(): boolean;
  /** Starts the server (same ports, same store) and waits until it accepts clients. */
  start(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** SIGKILL (a crash) and wait. */
  kill(): Promise<void>;
}

/** A JetStream cluster of nats-servers. */
export interface NatsCluster {
  servers: NatsNode[];
  /** Every server's client URL, comma-separated (the WEFT_NATS_URL of a node). */
  url: string;
  /** Resolves once every running server answers /healthz and the cluster has a meta leader. */
  waitReady(timeoutMs?: number): Promise<void>;
  /** The server that leads most streams whose name contains `part` (else the meta leader). */
  streamLeader(part: string): Promise<NatsNode | undefined>;
  close(): Promise<void>;
}

/** Starts `count` servers in one JetStream cluster (a single server when count is 1). */
export async function startJetStreamCluster(dir: string, count = 3): Promise<NatsCluster> {
  const bin = findNatsServer();
  const ports = await freePorts(count * 3);
  const specs = Array.from({ length: count }, (_, i) => ({
    name: `s${i + 1}`,
    port: ports[i * 3],
    routePort: ports[i * 3 + 1],
    monitorPort: ports[i * 3 + 2],
  }));
  mkdirSync(dir, { recursive: true });
  const servers: NatsNode[] = specs.map((spec) => {
    const store = join(dir, spec.name);
    const configPath = join(dir, `${spec.name}.conf`);
    const logPath = join(dir, `${spec.name}.log`);
    const routes = specs.filter((s) => s !== spec).map((s) => `"nats://127.0.0.1:${s.routePort}"`);
    writeFileSync(
      configPath,
      [
        `server_name: "${spec.name}"`,
        `listen: "127.0.0.1:${spec.port}"`,
        `http: "127.0.0.1:${spec.monitorPort}"`,
        `jetstream { store_dir: "${store}", max_memory_store: 67108864, max_file_store: 1073741824 }`,
        count > 1 ? `cluster { name: "weft-test", listen: "127.0.0.1:${spec.routePort}", routes: [${routes.join(', ')}] }` : '',
        '',
      ].join('\n'),
    );
    let run: LoggedProcess | undefined;
    const node: NatsNode = {
      name: spec.name,
      url: `nats://127.0.0.1:${spec.port}`,
      port: spec.port,
      monitorPort: spec.monitorPort,
      logPath,
      isRunning: () => run?.isRunning() ?? false,
      async start() {
        if (node.isRunning()) return;
        run = spawnLogged(bin, ['-c', configPath], process.env, logPath, logPath);
        const deadline = Date.now() + READY_TIMEOUT_MS;
        while (!(await monitor(spec.monitorPort, '/varz'))) {
          if (!run.isRunning()) throw new Error(`nats-server ${spec.name} exited at start:\n${tailOf(logPath)}`);
          if (Date.now() > deadline) throw new Error(`nats-server ${spec.name} not up within ${READY_TIMEOUT_MS} ms:\n${tailOf(logPath)}`);
          await sleep(100);
        }
      },
      async stop() {
        await run?.stop('SIGTERM', 15_000).catch(() => run?.kill());
      },
      async kill() {
        await run?.kill();
      },
    };
    return node;
  });

  const waitReady = async (timeoutMs = READY_TIMEOUT_MS) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const up = servers.filter((s) => s.isRunning());
      const checks = await Promise.all(up.map((s) => isReady(s.monitorPort, count)));
      if (up.length > 0 && checks.every(Boolean)) return;
      if (Date.now() > deadline) {
        throw new Error(`JetStream cluster not ready within ${timeoutMs} ms:\n${up.map((s) => tailOf(s.logPath, 10)).join('\n')}`);
      }
      await sleep(200);
    }
  };

  const cluster: NatsCluster = {
    servers,
    url: servers.map((s) => s.url).join(','),
    waitReady,
    async streamLeader(part) {
      const votes = new Map<string, number>();
      let meta: string | undefined;
      for (const s of servers.filter((x) => x.isRunning())) {
        const jsz = (await monitor(s.monitorPort, '/jsz?accounts=true&streams=true')) as JszAnswer | undefined;
        meta ??= jsz?.meta_cluster?.leader;
        for (const account of jsz?.account_details ?? []) {
          for (const stream of account.stream_detail ?? []) {
            const leader = stream.cluster?.leader;
            if (leader && stream.name.includes(part)) votes.set(leader, (votes.get(leader) ?? 0) + 1);
          }
        }
      }
      const best = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? meta;
      return servers.find((s) => s.name === best);
    },
    async close() {
      await Promise.all(servers.map((s) => s.kill()));
    },
  };
  try {
    await Promise.all(servers.map((s) => s.start()));
    await waitReady();
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}

interface JszAnswer {
  meta_cluster?: { leader?: string };
  account_details?: { stream_detail?: { name: string; cluster?: { leader?: string } }[] }[];
}

/** /healthz answers 200 and, in a cluster, a meta leader is known. */
async function isReady(monitorPort: number, count: number): Promise<boolean> {
  const health = await fetch(`http://127.0.0.1:${monitorPort}/healthz`).then((r) => r.status, () => 0);
  if (health !== 200) return false;
  if (count === 1) return true;
  const jsz = (await monitor(monitorPort, '/jsz')) as JszAnswer | undefined;
  return Boolean(jsz?.meta_cluster?.leader);
}

/** GET on the monitoring port: the parsed JSON, or undefined when it does not answer. */
async function monitor(port: number, path: string): Promise<unknown> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2_000) });
    return res.ok ? await res.json() : undefined;
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
