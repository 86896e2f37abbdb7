// Test support: a JetStream cluster of real nats-server processes on loopback (one store dir each
// under one temp dir), ready once an R<size> stream can be created; stop, kill or restart members.
// With size 1 it is a lone JetStream server that keeps its store across restarts.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { findNatsServer, freePort, launchNatsServer, type NatsServerHandle } from './nats-server.js';

/** A running test cluster. */
export interface NatsClusterHandle {
  /** Client urls, one per server, in server order. */
  urls: string[];
  /** Server names (`n1`, `n2`, ...), in server order: stream info's `cluster.leader` is one. */
  names: string[];
  /** Stops server `i` (SIGTERM; its store is kept). */
  stopServer(i: number): Promise<void>;
  /** Kills server `i` (SIGKILL, a crash; its store is kept) and waits until it has exited. */
  killServer(i: number): Promise<void>;
  /** Starts server `i` again on its ports with its store; resolves once JetStream can place an
   * R<size> stream again. */
  restartServer(i: number): Promise<void>;
  /** Is server `i` running? */
  isRunning(i: number): boolean;
  /** Stops every server and removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;
const CLUSTER_NAME = 'weft-test';

/** Starts `size` (default 3) JetStream servers routed to each other; resolves once JetStream
 * has a meta leader and can place a stream on all of them. With `only`, starts just those
 * servers and does not wait for JetStream (a cluster still forming: restartServer starts the others). */
export async function startNatsCluster(size = 3, opts: { only?: number[] } = {}): Promise<NatsClusterHandle> {
  const bin = findNatsServer();
  const dir = mkdtempSync(join(tmpdir(), 'weft-nats-cluster-'));
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })));
  const names = ports.map((_, i) => `n${i + 1}`);
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.route}`);
  const configs = ports.map((p, i) => {
    const store = join(dir, names[i]);
    mkdirSync(store);
    const file = join(dir, `${names[i]}.conf`);
    writeFileSync(file, [
      `server_name: ${names[i]}`,
      `listen: "127.0.0.1:${p.client}"`,
      `jetstream { store_dir: ${JSON.stringify(store)} }`,
      size === 1 ? '' : `cluster { name: ${CLUSTER_NAME}, listen: "127.0.0.1:${p.route}", routes: [${routes.filter((_, j) => j !== i).map((r) => JSON.stringify(r)).join(', ')}] }`,
    ].join('\n'));
    return file;
  });
  const servers: (NatsServerHandle | null)[] = Array.from({ length: size }, () => null);
  const start = async (i: number) => {
    servers[i] = await launchNatsServer(bin, ['-c', configs[i]], ports[i].client);
  };
  const stopServer = async (i: number, crash = false) => {
    const server = servers[i];
    servers[i] = null;
    if (crash) server?.kill();
    await server?.stop();
  };
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= Promise.all(servers.map((_, i) => stopServer(i))).then(() => rmSync(dir, { recursive: true, force: true })));
  const urls = ports.map((p) => `nats://127.0.0.1:${p.client}`);
  try {
    if (opts.only) {
      await Promise.all(opts.only.map((i) => start(i)));
    } else {
      await Promise.all(servers.map((_, i) => start(i)));
      await waitForJetStream(urls, size);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    urls,
    names,
    stopServer: (i) => stopServer(i),
    killServer: (i) => stopServer(i, true),
    restartServer: async (i) => {
      if (servers[i]) return;
      await start(i);
      await waitForJetStream(urls, size);
    },
    isRunning: (i) => servers[i] !== null,
    stop,
  };
}

let probes = 0;

/** Polls until an R`replicas` stream can be created (then deletes it): the meta leader is elected
 * and every server has joined JetStream. */
async function waitForJetStream(urls: string[], replicas: number): Promise<void> {
  const nc = await connect({ servers: urls });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  // Unique per call: restarting several servers at once runs several probes concurrently.
  const probe = ++probes;
  const name = `READY_PROBE_${process.pid}_${probe}`;
  try {
    for (;;) {
      try {
        const jsm = await nc.jetstreamManager({ timeout: 2000 });
        await jsm.streams.add({ name, subjects: [`weft-test.ready-probe.${process.pid}.${probe}`], num_replicas: replicas });
        await jsm.streams.delete(name);
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`JetStream cluster not ready within ${READY_TIMEOUT_MS} ms`, { cause: err });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  } finally {
    await nc.close();
  }
}
