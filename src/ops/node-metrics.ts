// The metrics one node exposes at GET /metrics: HTTP requests by route template, logins and
// their failures by reason, posture events, backpressure, and scrape-time gauges (actors and
// mailboxes, log apply lag, worker pool, login limiter, readiness, cluster membership and shard
// ownership, snapshot transfers, read barrier waits, process). No ids or names ever.

import { Counter, Histogram, MetricsRegistry } from './metrics-registry.js';

/** Where scrape-time gauges read from; each source is optional (tests wire what they have). */
export interface MetricSources {
  actors?: () => { inFlight: number; deepest: number; actors: number; families?: Record<string, { actors: number; queued: number; deepest: number }> };
  appliedSeq?: () => number;
  /**
   * The log's last sequence. A cluster node passes its health's last read of the stream (read
   * once a second; undefined before the first read) so a scrape never asks JetStream itself.
   */
  lastSeq?: () => number | undefined | Promise<number | undefined>;
  pool?: () => { threads: number; queueSize: number; completed: number };
  loginLimiter?: () => { window: number; inFlight: number };
  /** Is the node ready (GET /readyz answers 200)? */
  ready?: () => boolean;
  /** Cluster mode: live members, ready members and the shards this node owns. */
  cluster?: () => { members: number; readyMembers: number; shardsOwned: number };
}

/** Request latency buckets, in seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Read barrier wait buckets, in seconds (one stream query, usually well under a request's latency). */
const BARRIER_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 3];

/** Login methods reported as themselves; anything else a client sends is `other`. */
const LOGIN_METHODS = new Set(['password', 'cert', 'ext-jwt']);

export class NodeMetrics {
  readonly registry = new MetricsRegistry();
  readonly httpRequests: Counter;
  readonly httpDuration: Histogram;
  readonly logins: Counter;
  readonly loginFailures: Counter;
  /**
   * Posture events, for the posture code to count: `postureEvents.inc({ type, result })` where
   * type is a check type or event kind (`OS`, `MFA`, `response`...) and result a short outcome
   * (`pass`, `fail`, `received`...). Never put ids or names in these labels.
   */
  readonly postureEvents: Counter;
  /** Requests refused by backpressure, by where they were refused. */
  readonly rejections: Counter;
  /**
   * Replica snapshots streamed between nodes, for the snapshot transfer code to count:
   * `snapshotTransfers.inc({ direction: 'sent' | 'received', result: 'ok' | 'failed' })`.
   */
  readonly snapshotTransfers: Counter;
  /** Cluster mode: the time each request waited at the read barrier before it was handled. */
  readonly readBarrier: Histogram;

  constructor(sources: MetricSources = {}) {
    const r = this.registry;
    this.httpRequests = r.counter('weft_http_requests_total', 'HTTP requests by method, route template and status', ['method', 'route', 'status']);
    this.httpDuration = r.histogram('weft_http_request_duration_seconds', 'HTTP request latency by method, route template and status', ['method', 'route', 'status'], LATENCY_BUCKETS);
    this.logins = r.counter('weft_logins_total', 'Successful logins (API sessions created) by method', ['method']);
    this.loginFailures = r.counter('weft_login_failures_total', 'Failed logins by method and reason (error code, cause category)', ['method', 'reason']);
    this.postureEvents = r.counter('weft_posture_events_total', 'Posture events by type and result', ['type', 'result']);
    this.rejections = r.counter('weft_backpressure_rejections_total', 'Writes refused with 429 by the actor host, by source', ['source']);
    this.snapshotTransfers = r.counter('weft_snapshot_transfers_total', 'Replica snapshots streamed to or from a peer node, by direction and result', ['direction', 'result']);
    for (const direction of ['sent', 'received']) this.snapshotTransfers.inc({ direction, result: 'ok' }, 0);
    this.readBarrier = r.histogram('weft_read_barrier_seconds', 'Time a request waited at the read barrier (cluster mode) before it was handled', [], BARRIER_BUCKETS);
    this.addGauges(sources);
  }

  /** Counts one finished HTTP request (route is a template such as /identities/:id). */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  /** Counts one login attempt: a 200 is a login, anything else a failure with its reason. */
  observeLogin(method: string | undefined, status: number, reason: string): void {
    const known = method !== undefined && LOGIN_METHODS.has(method) ? method : 'other';
    if (status === 200) this.logins.inc({ method: known });
    else this.loginFailures.inc({ method: known, reason });
  }

  render(): Promise<string> {
    return this.registry.render();
  }

  private addGauges(s: MetricSources): void {
    const r = this.registry;
    if (s.actors) {
      const actors = s.actors;
      r.gauge('weft_actors', 'Live actors by family', ['family'], (g) => {
        const depth = actors();
        for (const [family, f] of Object.entries(depth.families ?? {})) g.set({ family }, f.actors);
      });
      r.gauge('weft_actor_mailbox_queued', 'Messages waiting or running in mailboxes, by actor family', ['family'], (g) => {
        for (const [family, f] of Object.entries(actors().families ?? {})) g.set({ family }, f.queued);
      });
      r.gauge('weft_actor_mailbox_depth_max', 'Depth of the deepest mailbox', [], (g) => g.set({}, actors().deepest));
      r.gauge('weft_actor_in_flight', 'Messages in all mailboxes of the actor host (bounded)', [], (g) => g.set({}, actors().inFlight));
    }
    if (s.appliedSeq) {
      const applied = s.appliedSeq;
      r.gauge('weft_replica_applied_seq', 'Last log sequence applied to the replica', [], (g) => g.set({}, applied()));
      if (s.lastSeq) {
        const last = s.lastSeq;
        // One read of the last sequence per scrape serves both gauges (the last-seq gauge collects
        // it, the lag gauge, rendered next, uses it).
        let lastRead: number | undefined;
        r.gauge('weft_log_last_seq', 'Last durable log sequence', [], async (g) => {
          lastRead = await last();
          if (lastRead !== undefined) g.set({}, lastRead);
        });
        r.gauge('weft_log_apply_lag', 'Log entries not yet applied to the replica (log lastSeq - appliedSeq)', [], (g) => {
          if (lastRead !== undefined) g.set({}, Math.max(0, lastRead - applied()));
        });
      }
    }
    if (s.pool) {
      const pool = s.pool;
      r.gauge('weft_worker_pool_queue_size', 'Tasks waiting for a worker thread', [], (g) => g.set({}, pool().queueSize));
      r.gauge('weft_worker_pool_threads', 'Worker threads', [], (g) => g.set({}, pool().threads));
      r.gauge('weft_worker_pool_completed_tasks', 'Tasks the worker pool has finished', [], (g) => g.set({}, pool().completed));
    }
    if (s.loginLimiter) {
      const limiter = s.loginLimiter;
      r.gauge('weft_login_limiter_window', 'Concurrent logins currently admitted (adaptive, 5..250)', [], (g) => g.set({}, limiter().window));
      r.gauge('weft_login_limiter_in_flight', 'Logins under way', [], (g) => g.set({}, limiter().inFlight));
    }
    if (s.ready) {
      const ready = s.ready;
      r.gauge('weft_node_ready', '1 when the node is ready (caught up with the log, NATS connected), else 0', [], (g) => g.set({}, ready() ? 1 : 0));
    }
    if (s.cluster) {
      // The membership is read once per scrape: the members gauge collects it, the shards gauge
      // (rendered next) uses the same read.
      const cluster = s.cluster;
      let read: ReturnType<typeof cluster> | undefined;
      r.gauge('weft_cluster_members', 'Cluster members heard from recently, by state', ['state'], (g) => {
        read = cluster();
        g.set({ state: 'live' }, read.members);
        g.set({ state: 'ready' }, read.readyMembers);
      });
      r.gauge('weft_cluster_shards_owned', 'Command shards this node owns', [], (g) => {
        if (read) g.set({}, read.shardsOwned);
      });
    }
    r.gauge('weft_process_resident_memory_bytes', 'Resident memory of the node process', [], (g) => g.set({}, process.memoryUsage().rss));
    r.gauge('weft_process_heap_used_bytes', 'V8 heap in use', [], (g) => g.set({}, process.memoryUsage().heapUsed));
    r.gauge('weft_process_uptime_seconds', 'Seconds since the node process started', [], (g) => g.set({}, Math.round(process.uptime())));
  }
}

/**
 * The `reason` label of a failed login: the error code, refined by a bounded category of its
 * cause (a field name, a nested code, or a known phrase). Never free text, ids or names.
 */
export function loginFailureReason(code: string | undefined, cause: unknown): string {
  const base = code ?? 'UNKNOWN';
  if (!cause || typeof cause !== 'object') return base;
  const c = cause as { field?: unknown; code?: unknown; reason?: unknown; message?: unknown };
  if (typeof c.field === 'string' && /^[A-Za-z0-9_.]{1,40}$/.test(c.field)) return `${base}:field:${c.field}`;
  if (typeof c.code === 'string' && c.code !== 'UNHANDLED' && /^[A-Z_]{1,40}$/.test(c.code)) return `${base}:${c.code}`;
  // A stable reason code (ext-jwt: BAD_SIGNATURE, EXPIRED, ...); sentences do not match.
  if (typeof c.reason === 'string' && /^[A-Z][A-Z_]{1,39}$/.test(c.reason)) return `${base}:${c.reason}`;
  const message = typeof c.message === 'string' ? c.message.toLowerCase() : '';
  for (const [phrase, category] of CAUSE_CATEGORIES) if (message.includes(phrase)) return `${base}:${category}`;
  return message ? `${base}:other` : base;
}

const CAUSE_CATEGORIES: [string, string][] = [
  ['disabled', 'identity_disabled'],
  ['locked', 'locked'],
  ['not allowed', 'auth_policy'],
  ['policy', 'auth_policy'],
  ['expired', 'expired'],
  ['mfa', 'mfa'],
  ['totp', 'mfa'],
  ['certificate', 'certificate'],
  ['jwt', 'jwt'],
  ['token', 'token'],
];
