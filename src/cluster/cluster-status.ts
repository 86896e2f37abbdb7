// The cluster as one node sees it, for GET /edge/management/v1/cluster and `weft cluster status`:
// members with their readiness and lag, shard owners, and the log stream's state; and the drain
// request of `weft cluster remove`. Answers `cluster.*` queries; reads, never writes the replica.

import type { NatsConnection } from 'nats';
import { DEFAULT_SHARD_COUNT } from '../bus/subjects.js';
import { ApiError } from '../errors.js';
import { unknownOperation } from '../protocol/v1/message-fields.js';
import type { Membership } from './membership.js';
import { shardOwners } from './shard-map.js';
import { logStreamName } from './cluster-names.js';

/** One member in the status answer. */
export interface MemberStatus {
  id: string;
  version: string;
  /** Ready as GET /readyz means it (caught up, NATS connected, not draining). */
  ready: boolean;
  /** Why not ready, when it is not. */
  reason: string | null;
  /** Counted as a shard owner (announced itself ready to serve, not draining). */
  serving: boolean;
  draining: boolean;
  appliedSeq: number;
  /** The stream's last sequence minus the member's applied sequence (its last heartbeat). */
  lag: number | null;
  shards: number;
  /** When the member's process started (ISO time). */
  onlineSince: string;
  address: string;
  ctrlAddress: string | null;
  isLocal: boolean;
}

/** The log stream's state, from JetStream's stream info. */
export interface StreamStatus {
  name: string;
  firstSeq: number;
  lastSeq: number;
  messages: number;
  bytes: number;
  replicas: number;
  leader: string | null;
  peers: { name: string; current: boolean; offline: boolean; lag: number }[];
}

export interface ClusterStatusReport {
  clusterName: string | null;
  clusterId: string | null;
  answeredBy: string;
  members: MemberStatus[];
  shards: { count: number; unowned: number; owners: Record<string, number> };
  stream: StreamStatus | null;
}

export interface ClusterStatusOptions {
  nodeId: string;
  clusterName: string;
  clusterId: string;
  nc: NatsConnection;
  membership: Membership;
}

export class ClusterStatus {
  constructor(private readonly opts: ClusterStatusOptions) {}

  /** Answers `cluster.status` and `cluster.drain` queries. */
  async handle(msg: Record<string, unknown>): Promise<unknown> {
    switch (msg.op) {
      case 'cluster.status':
        return this.report();
      case 'cluster.drain':
        return this.drain(String(msg.nodeId));
      default:
        throw unknownOperation('cluster', msg.op);
    }
  }

  async report(): Promise<ClusterStatusReport> {
    const stream = await this.stream();
    const live = this.opts.membership.live();
    const serving = this.opts.membership.readyMembers();
    const owners = shardOwners(serving);
    const counts: Record<string, number> = {};
    for (const owner of owners) if (owner !== undefined) counts[owner] = (counts[owner] ?? 0) + 1;
    const members = live.map((m): MemberStatus => ({
      id: m.id,
      version: m.version,
      // A drained member stops being ready at once; its heartbeat may tell so up to a beat later.
      ready: !m.draining && (m.health?.ready ?? false),
      reason: m.draining ? 'DRAINING' : m.health?.ready ? null : (m.health?.reason ?? 'UNKNOWN'),
      serving: serving.includes(m.id),
      draining: m.draining === true,
      appliedSeq: m.appliedSeq,
      lag: stream ? Math.max(0, stream.lastSeq - m.appliedSeq) : null,
      shards: counts[m.id] ?? 0,
      onlineSince: m.startedAt,
      address: m.baseUrl,
      ctrlAddress: m.ctrlAddress,
      isLocal: m.isLocal,
    }));
    return {
      clusterName: this.opts.clusterName,
      clusterId: this.opts.clusterId,
      answeredBy: this.opts.nodeId,
      members,
      shards: { count: DEFAULT_SHARD_COUNT, unowned: owners.filter((o) => o === undefined).length, owners: counts },
      stream,
    };
  }

  /** Asks a member to drain (one that died is then no longer listed offline); refuses an
   * unknown node and the last member that serves. */
  async drain(nodeId: string): Promise<{ id: string; draining: true }> {
    const member = this.opts.membership.list().find((m) => m.id === nodeId);
    if (!member) throw new ApiError('NOT_FOUND', { message: `no cluster member has the id ${JSON.stringify(nodeId)}` });
    const others = this.opts.membership.readyMembers().filter((id) => id !== nodeId);
    if (!member.draining && member.isOnline && others.length === 0) {
      throw new ApiError('COULD_NOT_VALIDATE', { message: `${nodeId} is the only member serving writes; start another node before removing it`, field: 'nodeId' });
    }
    await this.opts.membership.requestDrain(nodeId);
    return { id: nodeId, draining: true };
  }

  private async stream(): Promise<StreamStatus | null> {
    try {
      const jsm = await this.opts.nc.jetstreamManager();
      // The stream ClusterNode.openLog opens.
      const info = await jsm.streams.info(logStreamName(this.opts.clusterName));
      return {
        name: info.config.name,
        firstSeq: info.state.first_seq,
        lastSeq: info.state.last_seq,
        messages: info.state.messages,
        bytes: info.state.bytes,
        replicas: info.config.num_replicas,
        leader: info.cluster?.leader ?? null,
        peers: (info.cluster?.replicas ?? []).map((p) => ({ name: p.name, current: p.current, offline: p.offline === true, lag: p.lag ?? 0 })),
      };
    } catch {
      // NATS unreachable: members are still reported, from the last heartbeats heard.
      return null;
    }
  }
}

/** The `cluster.*` queries of an embedded node: it is its own single member; nothing to drain. */
export function embeddedStatusHandler(self: () => Parameters<typeof embeddedStatus>[0]): (msg: Record<string, unknown>) => Promise<unknown> {
  return async (msg) => {
    if (msg.op === 'cluster.status') return embeddedStatus(self());
    if (msg.op !== 'cluster.drain') throw unknownOperation('cluster', msg.op);
    throw new ApiError('COULD_NOT_VALIDATE', { message: 'this node is not in a cluster (WEFT_CLUSTER_SECRET is not set); there is no member to remove', field: 'nodeId' });
  };
}

/** The status of an embedded node: one member that owns every shard, no stream. */
export function embeddedStatus(self: Omit<MemberStatus, 'lag' | 'shards' | 'serving' | 'draining' | 'reason'>): ClusterStatusReport {
  return {
    clusterName: null,
    clusterId: null,
    answeredBy: self.id,
    members: [{ ...self, reason: null, serving: true, draining: false, lag: null, shards: DEFAULT_SHARD_COUNT }],
    shards: { count: DEFAULT_SHARD_COUNT, unowned: 0, owners: { [self.id]: DEFAULT_SHARD_COUNT } },
    stream: null,
  };
}
