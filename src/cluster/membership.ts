// Cluster membership: every node puts a heartbeat under its node id in a JetStream KV bucket
// each second and watches the bucket; a member not heard from for `deadAfterMs` is gone. The
// ready members decide shard ownership (shard-map.ts). Volatile; never in the replica. A peer's
// silence counts only while this node's own heartbeats go through: when they fail too (the bucket
// has no stream leader for a while, or this node lost NATS), silence says nothing about the peer.

import { randomBytes } from 'node:crypto';
import type { KV, KvEntry, NatsConnection, QueuedIterator } from 'nats';
import type { KnownNode, NodeAnnouncement, NodeDirectory } from '../protocol/v1/node-announcements.js';
import { ClockOffset } from './clock-offset.js';
import { openKv } from './kv-bucket.js';
import { membersBucket } from './cluster-names.js';

/** What a member announces in its heartbeat. */
export interface MemberInfo extends NodeAnnouncement {
  /** Random per process: tells a restarted node from a second process with the same id. */
  instance: string;
  /** True once the node has caught up with the log and serves commands. */
  ready: boolean;
  /** Weft version the node runs. */
  version: string;
  /** The node's applied log sequence at the time of the heartbeat. */
  appliedSeq: number;
  /** True once the node was asked to leave for good: it owns no shard from then on. */
  draining?: boolean;
  /** The node's readiness (GET /readyz) at the time of the heartbeat, with the reason when not. */
  health?: { ready: boolean; reason?: string };
  /** Epoch ms on the node's clock when it wrote the heartbeat (its clock's offset from
   * JetStream's is measured with it; see ClockOffset). */
  sentAt?: number;
}

/** The key under which a node is asked to drain (`weft cluster remove`); expires with the bucket's TTL. */
const DRAIN_PREFIX = 'drain.';

/** A member not heard from for this long is gone (ms), unless MembershipOptions.deadAfterMs says otherwise. */
const DEAD_AFTER_MS = 3_000;
/** The members bucket's TTL (ms): a heartbeat key not renewed for this long expires. A member that
 * died is listed offline (GET /controllers) until then, on every node alike. */
export const MEMBER_EXPIRY_MS = 60_000;

export interface MembershipOptions {
  nc: NatsConnection;
  clusterName: string;
  replicas?: number;
  intervalMs?: number;
  deadAfterMs?: number;
  /** Told when the members watch fails. */
  onError?: (err: unknown) => void;
  /** Told when heartbeats start failing (with the first failure) and when they succeed again
   * (undefined): once per change, not once per beat. */
  onHeartbeat?: (failure: unknown) => void;
  /** Told when this node's clock goes further than MAX_CLOCK_OFFSET_MS from JetStream's (true)
   * and when it is back within (false), with the offset in ms (positive: JetStream is ahead). */
  onClockOffset?: (offsetMs: number, off: boolean) => void;
}

/** Thrown when another live process already heartbeats under this node id. */
export class NodeIdInUseError extends Error {}

interface Heard {
  info: MemberInfo;
  lastSeenMs: number;
}

export class Membership implements NodeDirectory {
  readonly instance = randomBytes(8).toString('hex');
  private readonly peers = new Map<string, Heard>();
  private readonly intervalMs: number;
  private readonly deadAfterMs: number;
  private watcher?: QueuedIterator<KvEntry>;
  private beat?: NodeJS.Timeout;
  private checker?: NodeJS.Timeout;
  private lastReady = '';
  private stopped = false;
  /** Start of the first of this node's heartbeats that failed since the last one went through. */
  private blindSince?: number;
  /** Start of the oldest heartbeat still waiting for its answer. */
  private pendingSince?: number;
  /** True while heartbeats fail (told once, see MembershipOptions.onHeartbeat). */
  private beatFailing = false;
  /** True once the watch has delivered the values stored before it began. */
  private initialized = false;
  private onChange?: (ready: string[]) => void;
  /** Members asked to drain (keys `drain.<id>` in the bucket): node id → the drained process's
   * instance, so a node restarted under the same id later is not held out. */
  private readonly drains = new Map<string, string>();
  /** This node's clock against JetStream's, from its own heartbeats as the watch delivers them. */
  readonly clock: ClockOffset;

  private constructor(
    private readonly kv: KV,
    private self: Omit<MemberInfo, 'instance'>,
    private readonly opts: MembershipOptions,
  ) {
    this.intervalMs = opts.intervalMs ?? 1_000;
    this.deadAfterMs = opts.deadAfterMs ?? DEAD_AFTER_MS;
    this.clock = new ClockOffset((offsetMs, off) => opts.onClockOffset?.(offsetMs, off));
  }

  /** Opens the members bucket; refuses (NodeIdInUseError) when the node id is live elsewhere. */
  static async open(self: Omit<MemberInfo, 'instance'>, opts: MembershipOptions): Promise<Membership> {
    const kv = await openKv(opts.nc, membersBucket(opts.clusterName), { history: 1, ttl: MEMBER_EXPIRY_MS, replicas: opts.replicas });
    const membership = new Membership(kv, self, opts);
    await membership.assertIdFree();
    return membership;
  }

  /** Starts heartbeats and watching peers; `onChange` hears every change of the ready members
   * (sorted node ids). */
  async start(onChange?: (ready: string[]) => void): Promise<void> {
    this.onChange = onChange;
    this.watcher = await this.kv.watch({ initializedFn: () => (this.initialized = true) });
    void this.follow(this.watcher);
    await this.heartbeat();
    this.beat = setInterval(() => void this.heartbeat(), this.intervalMs);
    this.checker = setInterval(() => this.check(), Math.max(100, Math.floor(this.intervalMs / 4)));
    this.beat.unref();
    this.checker.unref();
  }

  /** Updates what this node announces; announced at once when `ready` changes. */
  update(fields: Partial<Omit<MemberInfo, 'id' | 'instance'>>): void {
    const readyChanged = fields.ready !== undefined && fields.ready !== this.self.ready;
    this.self = { ...this.self, ...fields };
    if (readyChanged && this.beat) void this.heartbeat().then(() => this.check());
  }

  /** Node ids of the ready members (this node included when it is ready), sorted. */
  readyMembers(): string[] {
    const now = this.silenceClock();
    const ids = new Set<string>();
    for (const [id, heard] of this.peers) {
      const drained = heard.info.draining === true || this.drains.get(id) === heard.info.instance;
      if (heard.info.ready && !drained && now - heard.lastSeenMs <= this.deadAfterMs) ids.add(id);
    }
    if (this.self.ready && !this.self.draining && !this.stopped) ids.add(this.self.id);
    else ids.delete(this.self.id);
    return [...ids].sort();
  }

  /** Every member, this node first (GET /controllers): the live ones, and those that stopped
   * heartbeating without leaving (`isOnline` false) until their key expires (MEMBER_EXPIRY_MS)
   * or they are removed (`weft cluster remove`). A member that stopped cleanly left at once. */
  list(): (KnownNode & MemberInfo)[] {
    const now = Date.now();
    const silence = this.silenceClock();
    const peers = [...this.peers.values()]
      .filter((h) => h.info.id !== this.self.id && now - h.lastSeenMs <= MEMBER_EXPIRY_MS)
      .map((h) => ({ heard: h, online: silence - h.lastSeenMs <= this.deadAfterMs }))
      .filter(({ heard, online }) => online || this.drains.get(heard.info.id) !== heard.info.instance)
      .sort((a, b) => (a.heard.info.id < b.heard.info.id ? -1 : 1))
      .map(({ heard, online }) => ({ ...heard.info, lastSeenMs: heard.lastSeenMs, isOnline: online, isLocal: false }));
    return [{ ...this.self, instance: this.instance, lastSeenMs: now, isOnline: true, isLocal: true }, ...peers];
  }

  /** The members heard from within the dead interval, this node first. */
  live(): (KnownNode & MemberInfo)[] {
    return this.list().filter((n) => n.isOnline);
  }

  /** The API base URLs of the live members, this node first (enrollment JWT `ctrls`). */
  onlineUrls(): string[] {
    return [...new Set(this.live().map((n) => n.baseUrl))];
  }

  /** True once this node was asked to drain. */
  get draining(): boolean {
    return this.self.draining === true;
  }

  /** Asks member `id` to drain: every node stops counting it as an owner at once, and the node
   * itself announces `draining` from then on (so it stays out after the request expires). */
  async requestDrain(id: string): Promise<void> {
    const instance = id === this.self.id ? this.instance : this.peers.get(id)?.info.instance;
    if (!instance) return;
    if (id === this.self.id) this.update({ draining: true });
    await this.kv.put(`${DRAIN_PREFIX}${id}`, JSON.stringify({ instance, requestedAt: new Date().toISOString() }));
  }

  /** Stops heartbeats and removes this node's key, so peers take its shards over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.beat);
    clearInterval(this.checker);
    this.watcher?.stop();
    await this.kv.delete(this.self.id).catch(() => undefined);
  }

  private async assertIdFree(): Promise<void> {
    const first = await this.kv.get(this.self.id);
    if (!first || first.operation !== 'PUT') return;
    if (Date.now() - first.created.getTime() > this.deadAfterMs + 1_000) return;
    // Heard recently: a crashed predecessor stops beating; a live process keeps on.
    const until = Date.now() + this.deadAfterMs + 500;
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      const now = await this.kv.get(this.self.id);
      if (now && now.operation === 'PUT' && now.revision !== first.revision) {
        throw new NodeIdInUseError(`node id ${this.self.id} is already live in cluster ${this.opts.clusterName} ` +
          `(another process heartbeats under it); give this node its own WEFT_NODE_ID or data directory`);
      }
    }
  }

  private async heartbeat(): Promise<void> {
    if (this.stopped) return;
    const started = Date.now();
    this.pendingSince ??= started;
    try {
      const info: MemberInfo = { ...this.self, instance: this.instance, sentAt: Date.now() };
      await this.kv.put(this.self.id, JSON.stringify(info));
      this.heardSelf();
    } catch (err) {
      this.pendingSince = undefined;
      this.blindSince ??= started;
      if (!this.beatFailing && !this.stopped) (this.opts.onHeartbeat ?? this.opts.onError)?.(err);
      this.beatFailing = true;
      return;
    }
    if (this.beatFailing) {
      this.beatFailing = false;
      this.opts.onHeartbeat?.(undefined);
    }
  }

  /** The time up to which peers' silence counts: now, or, while this node's own heartbeats
   * fail or hang, when they began to. */
  private silenceClock(): number {
    const now = Date.now();
    let clock = Math.min(now, this.blindSince ?? now);
    if (this.pendingSince !== undefined && now - this.pendingSince > this.intervalMs) clock = Math.min(clock, this.pendingSince);
    return clock;
  }

  /** A heartbeat went through: the time this node could not write does not count as the peers'
   * silence, so each of them gets that long again to be heard. */
  private heardSelf(): void {
    const blind = Date.now() - this.silenceClock();
    this.blindSince = undefined;
    this.pendingSince = undefined;
    if (blind <= 0) return;
    for (const heard of this.peers.values()) heard.lastSeenMs = Math.min(Date.now(), heard.lastSeenMs + blind);
  }

  private async follow(watcher: QueuedIterator<KvEntry>): Promise<void> {
    try {
      for await (const entry of watcher) {
        if (entry.key.startsWith(DRAIN_PREFIX)) {
          this.heardDrain(entry.key.slice(DRAIN_PREFIX.length), entry.operation === 'PUT' ? drainedInstance(entry.string()) : undefined);
        } else if (entry.operation !== 'PUT') {
          this.peers.delete(entry.key);
        } else {
          const info = parseMember(entry.string());
          // This node's own heartbeat, stored: JetStream's timestamp against the time written in it.
          if (info?.instance === this.instance && typeof info.sentAt === 'number') this.clock.observe(info.sentAt, entry.created.getTime());
          // Values from before the watch started carry their server time; new ones are heard now.
          if (info && info.instance !== this.instance) {
            this.peers.set(entry.key, { info, lastSeenMs: this.initialized ? Date.now() : Math.min(Date.now(), entry.created.getTime()) });
          }
        }
        this.check();
      }
    } catch (err) {
      if (!this.stopped) this.opts.onError?.(err);
    }
  }

  private heardDrain(id: string, instance: string | undefined): void {
    if (!instance) {
      this.drains.delete(id);
      return;
    }
    this.drains.set(id, instance);
    if (id === this.self.id && instance === this.instance && !this.self.draining) {
      this.self = { ...this.self, draining: true };
      void this.heartbeat();
    }
  }

  private check(): void {
    const now = Date.now();
    for (const [id, heard] of this.peers) if (now - heard.lastSeenMs > MEMBER_EXPIRY_MS) this.peers.delete(id);
    const ready = this.readyMembers();
    const key = ready.join(',');
    if (key === this.lastReady) return;
    this.lastReady = key;
    this.onChange?.(ready);
  }
}

/**
 * The members heard from within `freshMs` (default: the dead interval), as the bucket holds them
 * now: for a process that is not a member yet (a node choosing a peer to copy a snapshot from).
 * One watch delivers every current value; it is read for at most `waitMs`.
 */
export async function readMembers(nc: NatsConnection, clusterName: string, opts: { freshMs?: number; waitMs?: number } = {}): Promise<MemberInfo[]> {
  const kv = await openKv(nc, membersBucket(clusterName), { history: 1, ttl: MEMBER_EXPIRY_MS });
  const latest = new Map<string, KvEntry>();
  let initialized!: () => void;
  const current = new Promise<void>((resolve) => (initialized = resolve));
  const watcher = await kv.watch({ initializedFn: () => initialized() });
  const reading = (async () => {
    for await (const entry of watcher) {
      latest.set(entry.key, entry);
      if (watcher.getPending() === 0 && entry.delta === 0) initialized();
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([current, new Promise((resolve) => (timer = setTimeout(resolve, opts.waitMs ?? 3_000)))]);
  clearTimeout(timer);
  watcher.stop();
  await reading.catch(() => undefined);
  const freshMs = opts.freshMs ?? DEAD_AFTER_MS;
  const members: MemberInfo[] = [];
  for (const entry of latest.values()) {
    if (entry.key.startsWith(DRAIN_PREFIX) || entry.operation !== 'PUT' || Date.now() - entry.created.getTime() > freshMs) continue;
    const info = parseMember(entry.string());
    if (info) members.push(info);
  }
  return members;
}

function drainedInstance(text: string): string | undefined {
  try {
    const instance = (JSON.parse(text) as { instance?: unknown }).instance;
    return typeof instance === 'string' ? instance : undefined;
  } catch {
    return undefined;
  }
}

function parseMember(text: string): MemberInfo | undefined {
  try {
    const m = JSON.parse(text) as MemberInfo;
    if (typeof m?.id !== 'string' || typeof m.instance !== 'string' || typeof m.baseUrl !== 'string') return undefined;
    return m;
  } catch {
    return undefined;
  }
}
