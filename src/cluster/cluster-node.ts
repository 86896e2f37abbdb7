// What makes a node a cluster member: the NATS connection, the cluster record (secret check,
// the sealed CA), the data directory's claim, the shared JetStream log, membership heartbeats
// with shard ownership, and the read barrier. main.ts wires it in when a cluster secret is set.

import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JetStreamManager } from 'nats';
import type { ActorHost, ActorHostOptions } from '../actors/actor-host.js';
import type { NodeAnnouncement } from '../protocol/v1/node-announcements.js';
import type { RouterPresence } from '../rpc/router-presence.js';
import { NatsBus } from '../bus/nats-bus.js';
import { logSubject } from '../bus/subjects.js';
import type { Command } from '../domain/commands.js';
import { ApiError } from '../errors.js';
import { PRODUCT_VERSION } from '../gateway/routes/info-routes.js';
import { JetStreamLog, LogTrimmedError } from '../log/jetstream-log.js';
import type { Logger } from '../logger.js';
import { generateCa } from '../pki/node-pki.js';
import type { Replica } from '../store/replica.js';
import { ClusterJoinError, joinCluster, readClusterMarker, type ClusterCa } from './cluster-join.js';
import { Membership } from './membership.js';
import { PresenceExchange } from './presence-exchange.js';
import { ReadBarrier } from './read-barrier.js';
import { CommandFences } from './command-fences.js';
import { CommandOutcomes } from './command-outcomes.js';
import { OwnerWatch } from './owner-watch.js';
import type { NodeClientOptions } from '../gateway/node-client.js';
import { ownedShards } from './shard-map.js';
import { clusterBucket, logStreamName, membersBucket } from './cluster-names.js';
import { growReplicas } from './replica-growth.js';
import { causeOf, startRetry, type Retry } from './start-retry.js';
import { MAX_CLOCK_OFFSET_MS } from './clock-offset.js';

/** Cluster settings from the node's configuration. */
export interface ClusterConfig {
  natsUrls: string[];
  secret: string;
  /** The secret being rotated away from (see JoinOptions.previousSecret). */
  previousSecret?: string;
  name: string;
  /** JetStream replicas of the log and buckets; undefined = min(3, NATS servers). */
  replicas?: number;
  /** The log's retention: entries older (ms) / beyond this many bytes may go; 0 = no limit. */
  logMaxAgeMs?: number;
  logMaxBytes?: number;
  /** How long start-up retries NATS and JetStream requests that fail transiently (ms); 0 = for ever. */
  startTimeoutMs?: number;
}

/** Default of ClusterConfig.startTimeoutMs. */
export const START_TIMEOUT_MS = 60_000;

/** How long a read or a command waits for this node to apply the log (ms). */
const APPLY_WAIT_MS = 3_000;
/** How often a node checks whether the streams' replicas can be raised. */
const REPLICA_GROWTH_MS = 60_000;
/** The least time between two read-barrier queries of a node (ms). Under load the queries ran
 * back to back, each costing the three NATS servers about 350 µs of CPU (several times what a
 * GET costs a node); pacing bounds them at 200 a second per node for at most 5 ms of added
 * wait (BENCHMARKS.md, "A three-node cluster on one machine"). */
const BARRIER_GAP_MS = 5;
/** How long after its request reached the node a command waits for its shard to get an owner
 * again after a node died (ms; then 503, nothing written): within the 5 s answer bound
 * (NodeClient), and past the 3 s after which a dead node's shards move. */
const HANDOVER_MS = 5_000;
/** How long after it was proposed a command may still be stored (ms; see Command.expires). */
export const COMMAND_TTL_MS = 8_000;

export class ClusterNode {
  /** Set when this node's replica cannot apply the log: it then answers nothing but 503. */
  failure?: Error;

  private constructor(
    readonly config: ClusterConfig,
    readonly bus: NatsBus,
    readonly clusterId: string,
    readonly ca: ClusterCa,
    /** True when this node created the cluster (its CA, and so the default admin). */
    readonly founded: boolean,
    private readonly log: Logger,
    /** Retries a start-up request that failed transiently, until the start deadline. */
    readonly retry: Retry,
  ) {}

  /** Connects to NATS and joins (or founds) the cluster; refuses a data directory that
   * belongs elsewhere. Throws ClusterJoinError with a message for the operator. */
  static async connect(config: ClusterConfig, dataDir: string, nodeId: string, log: Logger): Promise<ClusterNode> {
    const marker = await readClusterMarker(dataDir);
    if (!marker && existsSync(join(dataDir, 'replica'))) {
      throw new ClusterJoinError(`data directory ${dataDir} holds the data of an embedded node, not of cluster ${config.name}; ` +
        'give this node an empty data directory');
    }
    if (marker && marker.name !== config.name) {
      throw new ClusterJoinError(`data directory ${dataDir} belongs to cluster ${marker.name} (${marker.id}), not to cluster ${config.name}; ` +
        'give this node an empty data directory');
    }
    const timeout = config.startTimeoutMs ?? START_TIMEOUT_MS;
    const retry = startRetry({
      deadline: timeout === 0 ? Infinity : Date.now() + timeout,
      onRetry: (step, err, waitMs) => log.warn('NATS or JetStream not ready at start; retrying', { step, cause: causeOf(err), retryInMs: waitMs }),
    });
    let bus: NatsBus;
    try {
      bus = await retry('connect to NATS', () => NatsBus.connect(config.natsUrls, {
        name: `weft-${config.name}-${nodeId}`,
        onConnectionChange: (up) => (up ? log.info('NATS connection regained') : log.error('NATS connection lost; writes and reads answer 503 until it is back')),
      }));
    } catch (err) {
      throw new ClusterJoinError(`cannot reach NATS at ${config.natsUrls.join(', ')}: ${err instanceof Error ? err.message : String(err)}`);
    }
    try {
      const joined = await joinCluster({
        nc: bus.connection, clusterName: config.name, secret: config.secret, previousSecret: config.previousSecret, replicas: config.replicas,
        createCa: async () => generateCa(), retry,
      });
      if (marker && marker.id !== joined.clusterId) {
        throw new ClusterJoinError(`data directory ${dataDir} belongs to another cluster (${marker.name}, ${marker.id}), ` +
          `not to cluster ${config.name} (${joined.clusterId}); give this node an empty data directory`);
      }
      if (!marker) await writeFile(join(dataDir, 'cluster.json'), `${JSON.stringify({ name: config.name, id: joined.clusterId })}\n`, { mode: 0o600 });
      if (joined.rotated) log.warn('the cluster secret was rotated: nodes on the previous secret alone are refused from now on', { cluster: config.name });
      log.info(joined.founded ? 'cluster founded' : 'cluster joined', { cluster: config.name, clusterId: joined.clusterId });
      return new ClusterNode(config, bus, joined.clusterId, joined.ca, joined.founded, log, retry);
    } catch (err) {
      await bus.close();
      throw err;
    }
  }

  /** The cluster's command log (one JetStream stream shared by every node). */
  async openLog(): Promise<JetStreamLog<Command>> {
    const log = new JetStreamLog<Command>({
      nc: this.bus.connection,
      stream: logStreamName(this.config.name),
      subject: logSubject(this.config.name),
      replicas: this.config.replicas,
      maxAgeMs: this.config.logMaxAgeMs,
      maxBytes: this.config.logMaxBytes,
    });
    await this.retry('open the cluster log', () => log.open());
    return log;
  }

  /** Opens membership (refusing a node id that is live elsewhere) without announcing yet. */
  openMembership(self: NodeAnnouncement, replica: Replica): Promise<Membership> {
    return this.retry('open the members bucket', () => Membership.open(
      { ...self, ready: false, version: PRODUCT_VERSION, appliedSeq: replica.appliedSeq },
      { nc: this.bus.connection, clusterName: this.config.name, replicas: this.config.replicas, onError: (err) => this.log.warn('members watch failed', { cause: causeOf(err) }),
        onHeartbeat: (failure) => (failure === undefined
          ? this.log.info('heartbeats resumed')
          : this.log.warn('heartbeats failing; peers count this node as gone until they resume', { cause: causeOf(failure) })),
        onClockOffset: (offsetMs, off) => (off
          ? this.log.warn('this node\'s clock is off from the NATS servers\'; keep the clocks in sync (NTP)', { offsetMs, maxOffsetMs: MAX_CLOCK_OFFSET_MS })
          : this.log.info('this node\'s clock is back in sync with the NATS servers\'', { offsetMs })),
      },
    ));
  }

  /** Starts heartbeats and the presence exchange; once this node is ready, its actors serve the
   * shards it owns among the ready members, and follow every change of the member list.
   * Returns the stop: this node leaves (peers take its shards over at once). */
  async startMember(membership: Membership, actors: ActorHost, replica: Replica, nodeId: string, presence: RouterPresence): Promise<() => Promise<void>> {
    let owned = -1;
    const apply = (ready: string[]) => {
      const shards = ownedShards(nodeId, ready);
      if (shards.size !== owned) this.log.info('shards owned', { shards: shards.size, members: ready.length });
      owned = shards.size;
      void actors.serveShards(shards).catch((err) => this.log.error('shard hand-over failed', { error: err }));
    };
    await this.retry('watch the members bucket', () => membership.start(apply));
    const timer = setInterval(() => membership.update({ appliedSeq: replica.appliedSeq }), 1_000);
    timer.unref();
    membership.update({ ready: true });
    apply(membership.readyMembers());
    const exchange = new PresenceExchange({
      bus: this.bus, clusterName: this.config.name, nodeId, presence,
      liveMembers: () => membership.live().map((n) => n.id),
      onError: (err) => this.log.warn('presence report failed', { error: err }),
    });
    await exchange.start();
    const growth = this.config.replicas === undefined ? this.growReplicasEvery(REPLICA_GROWTH_MS) : undefined;
    return async () => {
      clearInterval(growth);
      clearInterval(timer);
      await exchange.stop();
      await membership.stop();
      await actors.serveShards(new Set());
    };
  }

  /** Raises the log's and buckets' replicas once the NATS cluster has servers for them (they
   * may have been created while it had fewer): now, then every `everyMs`. */
  private growReplicasEvery(everyMs: number): NodeJS.Timeout {
    const streams = [logStreamName(this.config.name), `KV_${membersBucket(this.config.name)}`, `KV_${clusterBucket(this.config.name)}`];
    let manager: JetStreamManager | undefined; // made once: making one asks JetStream for the account
    const grow = async () => {
      try {
        const jsm = (manager ??= await this.bus.connection.jetstreamManager());
        for (const g of await growReplicas(jsm, streams)) this.log.info('stream replicas raised', { stream: g.stream, from: g.from, to: g.to });
      } catch (err) {
        this.log.warn('could not check the streams\' replicas', { cause: causeOf(err) });
      }
    };
    void grow();
    const timer = setInterval(() => void grow(), everyMs);
    timer.unref();
    return timer;
  }

  private async assertHealthy(): Promise<void> {
    if (this.failure) {
      throw new ApiError('SERVICE_UNAVAILABLE', { code: 'REPLICA_FAILED', message: `this node cannot apply the cluster log (${this.failure.message}); it serves nothing until restarted` });
    }
  }

  /** How this node's commands behave in the cluster: they wait for a shard owner during a
   * hand-over, tell the owner how far this node has applied the log, wait after their answer
   * until this node applied what the command appended, and recover lost answers. */
  commandOptions(replica: Replica, barrier: ReadBarrier, membership: Membership): NodeClientOptions {
    const outcomes = new CommandOutcomes(replica, barrier);
    const owners = new OwnerWatch(membership);
    return {
      watchOwner: (shard) => {
        const watch = owners.watch(shard);
        void watch.gone.then(() => this.log.info('command sent again: its shard owner is gone', { shard, owner: watch.owner }));
        return watch;
      },
      handoverMs: HANDOVER_MS,
      appliedSeq: () => replica.appliedSeq,
      waitApplied: (seq, maxMs) => this.waitApplied(replica, seq, maxMs),
      recover: (rid, settledBy) => outcomes.outcome(rid, settledBy),
      logReadable: () => barrier.lastSeqAfterNow().then(() => true, () => false),
      connectionLosses: () => this.bus.connectionLosses,
      commandTtlMs: COMMAND_TTL_MS,
    };
  }

  /** What this node's sharded actor host needs of the cluster: waiting for the requester's
   * `seen`, and fencing the earlier deliveries of a command sent again. */
  shardedHost(log: JetStreamLog<Command>, replica: Replica, nodeId: string): NonNullable<ActorHostOptions['sharded']> {
    const fences = new CommandFences({ log, nodeId, resultOf: (seq) => replica.waitFor(seq, APPLY_WAIT_MS) });
    return {
      waitApplied: (seq, maxMs) => this.waitApplied(replica, seq, maxMs),
      fence: (rid, attempt) => fences.fence(rid, attempt),
    };
  }

  /** Waits until the replica has applied `seq`: 503 CATCHING_UP after `maxMs` (at most APPLY_WAIT_MS). */
  async waitApplied(replica: Replica, seq: number, maxMs = APPLY_WAIT_MS): Promise<void> {
    if (replica.appliedSeq >= seq) return;
    await replica.waitFor(seq, Math.max(0, Math.min(maxMs, APPLY_WAIT_MS))).catch(() => {
      throw new ApiError('SERVICE_UNAVAILABLE', { code: 'CATCHING_UP', message: `this node has not applied the cluster log up to ${seq} yet` });
    });
  }

  /** Follows the cluster log into the replica. A replica that cannot apply (disk full, a
   * corrupt store) stops the node: it leaves the membership, so its shards move, and every
   * request gets 503 naming the cause; nothing is answered from a replica that fell out of step. */
  followLog(log: JetStreamLog<Command>, replica: Replica, leave: () => Promise<void>, onTrimmed?: (err: LogTrimmedError) => void): { close(): Promise<void> } {
    replica.failOnStoreError = true;
    const applying = log.followBatches(replica.appliedSeq, (entries) => replica.applyBatch(entries));
    applying.done.catch((err: unknown) => {
      if (err instanceof LogTrimmedError && onTrimmed) {
        // Entries this node still needs are gone (it was cut off longer than the log keeps them):
        // it leaves, and the caller starts it again from a peer's snapshot (snapshot-join.ts).
        this.log.warn('this node\'s log position was trimmed; re-joining from a peer snapshot', { appliedSeq: replica.appliedSeq, firstSeq: err.firstSeq });
        void leave().catch(() => undefined).then(() => onTrimmed(err));
        return;
      }
      this.failure = err instanceof Error ? err : new Error(String(err));
      this.log.error('this node cannot apply the cluster log and stops serving; fix its data directory (or give it an empty one) and restart it', { error: err, appliedSeq: replica.appliedSeq });
      void leave().catch(() => undefined);
    });
    return applying;
  }

  /** The read barrier over this node's replica and the cluster log. */
  barrier(log: JetStreamLog<Command>, replica: Replica): ReadBarrier {
    return new ReadBarrier({
      lastSeq: () => this.assertHealthy().then(() => log.lastSeq()).catch((err) => {
        if (err instanceof ApiError) throw err;
        throw new ApiError('SERVICE_UNAVAILABLE', { code: 'NATS_UNREACHABLE', message: `the cluster log cannot be read now: ${err instanceof Error ? err.message : String(err)}` });
      }),
      waitApplied: (seq, maxMs) => this.waitApplied(replica, seq, maxMs),
    }, { minGapMs: BARRIER_GAP_MS });
  }
}

