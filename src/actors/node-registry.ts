// The node registry: every node announces itself on the bus every few seconds (heartbeat event)
// and keeps the last announcement of each peer. Volatile, per node; never stored in the replica.

import { X509Certificate } from 'node:crypto';
import type { Bus, Subscription } from '../bus/bus.js';
import { eventSubject } from '../bus/subjects.js';
import type { KnownNode, NodeAnnouncement, NodeDirectory } from '../protocol/v1/node-announcements.js';
import { certFingerprint as derFingerprint } from '../pki/ca-certificates.js';

export type { KnownNode, NodeAnnouncement, NodeDirectory };

export interface NodeRegistryOptions {
  /** Milliseconds between heartbeats (default 5000). */
  intervalMs?: number;
  /** A peer not heard from for longer is offline (default 15000). */
  onlineWindowMs?: number;
  now?: () => number;
  /** Told when heartbeats start failing (with the first failure) and when they go through again
   * (undefined): once per change, not once per beat. */
  onHeartbeat?: (failure: unknown) => void;
}

export const HEARTBEAT_TOPIC = 'nodes.heartbeat';

export class NodeRegistry implements NodeDirectory {
  private readonly peers = new Map<string, { node: NodeAnnouncement; lastSeenMs: number }>();
  private readonly intervalMs: number;
  private readonly onlineWindowMs: number;
  private readonly now: () => number;
  private readonly onHeartbeat: (failure: unknown) => void;
  /** True while heartbeats fail (told once, see NodeRegistryOptions.onHeartbeat). */
  private beatFailing = false;
  private subscription?: Subscription;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly bus: Bus,
    private self: NodeAnnouncement,
    opts: NodeRegistryOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 5_000;
    this.onlineWindowMs = opts.onlineWindowMs ?? 15_000;
    this.now = opts.now ?? Date.now;
    this.onHeartbeat = opts.onHeartbeat ?? (() => undefined);
  }

  /** Subscribes to heartbeats and starts announcing this node (at once, then every interval). */
  async start(): Promise<void> {
    this.subscription = await this.bus.subscribe(eventSubject(HEARTBEAT_TOPIC), (msg) => this.heard(msg));
    this.announce();
    this.timer = setInterval(() => this.announce(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  /** Updates what this node announces (e.g. once its gRPC address is bound). */
  update(fields: Partial<Omit<NodeAnnouncement, 'id'>>): void {
    this.self = { ...this.self, ...fields };
  }

  /** Every known node, this one first, then peers by id. */
  list(): KnownNode[] {
    const now = this.now();
    const peers = [...this.peers.values()]
      .filter(({ node }) => node.id !== this.self.id)
      .sort((a, b) => (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : 0))
      .map(({ node, lastSeenMs }) => ({ ...node, lastSeenMs, isOnline: now - lastSeenMs <= this.onlineWindowMs, isLocal: false }));
    return [{ ...this.self, lastSeenMs: now, isOnline: true, isLocal: true }, ...peers];
  }

  /** The API base URLs of the online nodes, this one first (enrollment JWT `ctrls`). */
  onlineUrls(): string[] {
    return [...new Set(this.list().filter((n) => n.isOnline).map((n) => n.baseUrl))];
  }

  private announce(): void {
    if (!this.subscription) return;
    this.bus.publish(eventSubject(HEARTBEAT_TOPIC), this.self).then(() => this.beatWent(undefined), (err: unknown) => this.beatWent(err));
  }

  private beatWent(failure: unknown): void {
    const failing = failure !== undefined;
    if (failing === this.beatFailing || !this.subscription) return;
    this.beatFailing = failing;
    this.onHeartbeat(failure);
  }

  private heard(msg: unknown): void {
    const node = asAnnouncement(msg);
    if (!node || node.id === this.self.id) return;
    const known = this.peers.get(node.id);
    this.peers.set(node.id, { node, lastSeenMs: this.now() });
    // A newcomer (or a restarted peer) learns about us at once instead of after an interval.
    if (!known || known.node.startedAt !== node.startedAt) this.announce();
  }
}

/** Hex SHA-1 of a PEM certificate's DER, the upstream fingerprint format. */
export function certFingerprint(certPem: string): string {
  return derFingerprint(new X509Certificate(certPem));
}

function asAnnouncement(msg: unknown): NodeAnnouncement | undefined {
  if (typeof msg !== 'object' || msg === null) return undefined;
  const m = msg as Record<string, unknown>;
  const strings = ['id', 'baseUrl', 'certPem', 'fingerprint', 'startedAt'] as const;
  if (!strings.every((k) => typeof m[k] === 'string')) return undefined;
  if (m.ctrlAddress !== null && typeof m.ctrlAddress !== 'string') return undefined;
  return {
    id: m.id as string,
    baseUrl: m.baseUrl as string,
    ctrlAddress: (m.ctrlAddress as string | null) ?? null,
    certPem: m.certPem as string,
    fingerprint: m.fingerprint as string,
    startedAt: m.startedAt as string,
  };
}
