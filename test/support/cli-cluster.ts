// Test support: cluster nodes as `weft-controller` child processes (cli-node.ts) on a nats-server
// JetStream cluster, each in its own data directory under one temp dir. close() kills every node
// and server it started and removes the temp dir.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAllCliNodes, startCliNode, type CliNode } from './cli-node.js';
import { startNatsCluster, type NatsClusterHandle } from './nats-cluster.js';

export interface CliClusterOptions {
  /** nats-server processes (default 1). */
  natsServers?: number;
  /** Environment of every node (the cluster secret, name, admin password...); WEFT_NATS_URL is added. */
  env: Record<string, string>;
}

export class CliCluster {
  /** Every node started, in order (killed by close()). */
  readonly nodes: CliNode[] = [];

  private constructor(readonly root: string, readonly nats: NatsClusterHandle, private readonly env: Record<string, string>) {}

  static async start(opts: CliClusterOptions): Promise<CliCluster> {
    const root = await mkdtemp(join(tmpdir(), 'weft-cli-cluster-'));
    const nats = await startNatsCluster(opts.natsServers ?? 1);
    return new CliCluster(root, nats, opts.env);
  }

  /** The data directory of node `name`. */
  dir(name: string): string {
    return join(this.root, name);
  }

  /** Starts a node on data directory `name` (reused if it exists); resolves once it listens. */
  async start(name: string, extra: Record<string, string> = {}): Promise<CliNode> {
    const node = await startCliNode({ dataDir: this.dir(name), env: { ...this.env, WEFT_NATS_URL: this.nats.urls.join(','), ...extra } });
    this.nodes.push(node);
    return node;
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill()));
    killAllCliNodes();
    await this.nats.stop();
    await rm(this.root, { recursive: true, force: true });
  }
}
