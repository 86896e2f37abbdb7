// Whether this node is alive and ready to serve, for GET /healthz, GET /readyz and gRPC health.
// A cluster node is ready only while NATS is connected, the stream's last sequence was read
// recently and its replica is within `maxLag` entries of it; it reads, never decides ownership.

/** What a cluster node's health is computed from. */
export interface ClusterHealthSources {
  /** The cluster log's last sequence (one JetStream request). */
  lastSeq: () => Promise<number>;
  natsConnected: () => boolean;
  /** Set when the replica cannot apply the log: the node serves nothing until restarted. */
  failure: () => Error | undefined;
  /** True once the node was asked to leave (`weft cluster remove`): it hands its shards over. */
  draining: () => boolean;
}

export interface NodeHealthOptions {
  nodeId: string;
  appliedSeq: () => number;
  /** Absent on an embedded node, which is ready as soon as it has started. */
  cluster?: ClusterHealthSources;
  /** Most log entries a ready node may be behind the stream (default 100). */
  maxLag?: number;
  /** How old the last successful read of the stream's last sequence may be, in ms (default 5000). */
  staleAfterMs?: number;
  /** How often the stream's last sequence is read, in ms (default 1000). */
  pollMs?: number;
  /** Hears the status after every read of the stream (cluster: announced in the heartbeat). */
  onPoll?: (status: HealthStatus) => void;
  /** The clock (ms since the epoch); tests pass their own. */
  now?: () => number;
}

/** One health answer. `live` false asks for a restart; `ready` false for no traffic. */
export type HealthStatus = {
  nodeId: string;
  live: boolean;
  ready: boolean;
  /** Why the node is not ready (or not live): a stable code such as `CATCHING_UP`. */
  reason?: 'STARTING' | 'REPLICA_FAILED' | 'NATS_UNREACHABLE' | 'LOG_UNREADABLE' | 'CATCHING_UP' | 'DRAINING' | 'SHUTTING_DOWN';
  appliedSeq: number;
  /** The stream's last sequence at the last successful read, and never below appliedSeq: the
   * replica may have applied entries appended after that read (cluster only). */
  lastSeq?: number;
  /** lastSeq - appliedSeq (cluster only). */
  lag?: number;
};

export const DEFAULT_MAX_LAG = 100;

export class NodeHealth {
  private started = false;
  private shuttingDown = false;
  private lastSeq?: number;
  private lastReadMs = 0;
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private readonly maxLag: number;
  private readonly staleAfterMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: NodeHealthOptions) {
    this.maxLag = opts.maxLag ?? DEFAULT_MAX_LAG;
    this.staleAfterMs = opts.staleAfterMs ?? 5_000;
    this.now = opts.now ?? Date.now;
  }

  /** The node has finished starting; a cluster node begins reading the stream's last sequence. */
  start(): void {
    this.started = true;
    if (!this.opts.cluster || this.timer) return;
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.opts.pollMs ?? 1_000);
    this.timer.unref();
  }

  /** The node is stopping: from now on it is not ready (SHUTTING_DOWN), so balancers and
   * probes take it out while it still serves what reaches it. It stays live. */
  beginShutdown(): void {
    this.shuttingDown = true;
  }

  /** Stops reading the stream (the node is closing). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The stream's last sequence at the last successful read (cluster only; undefined before it). */
  get lastReadSeq(): number | undefined {
    return this.lastSeq;
  }

  /** Reads the stream's last sequence now (also done every pollMs); never throws. */
  poll(): Promise<void> {
    if (!this.opts.cluster) return Promise.resolve();
    this.polling ??= this.read(this.opts.cluster).finally(() => {
      this.polling = undefined;
      this.opts.onPoll?.(this.status());
    });
    return this.polling;
  }

  private async read(cluster: ClusterHealthSources): Promise<void> {
    try {
      this.lastSeq = await cluster.lastSeq();
      this.lastReadMs = this.now();
    } catch {
      // Unreadable: the read goes stale and the node stops being ready.
    }
  }

  status(): HealthStatus {
    const appliedSeq = this.opts.appliedSeq();
    const cluster = this.opts.cluster;
    const base: HealthStatus = { nodeId: this.opts.nodeId, live: true, ready: false, appliedSeq };
    if (cluster?.failure()) return { ...base, live: false, reason: 'REPLICA_FAILED' };
    if (!this.started) return { ...base, reason: 'STARTING' };
    if (!cluster) return this.shuttingDown ? { ...base, reason: 'SHUTTING_DOWN' } : { ...base, ready: true };
    // The stream is read once a second, appliedSeq now: entries applied since the read are in the
    // stream too, so the pair is reported as one moment would show it (lastSeq >= appliedSeq).
    const lastSeq = this.lastSeq === undefined ? undefined : Math.max(this.lastSeq, appliedSeq);
    const lag = lastSeq === undefined ? undefined : lastSeq - appliedSeq;
    const withLog = { ...base, lastSeq, lag };
    if (this.shuttingDown) return { ...withLog, reason: 'SHUTTING_DOWN' };
    if (!cluster.natsConnected()) return { ...withLog, reason: 'NATS_UNREACHABLE' };
    if (lag === undefined || this.now() - this.lastReadMs > this.staleAfterMs) return { ...withLog, reason: 'LOG_UNREADABLE' };
    if (lag > this.maxLag) return { ...withLog, reason: 'CATCHING_UP' };
    if (cluster.draining()) return { ...withLog, reason: 'DRAINING' };
    return { ...withLog, ready: true };
  }
}
