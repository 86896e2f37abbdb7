// Joining from a peer's snapshot: before a node opens its replica, decides whether it must (its
// replica is empty, or its position was trimmed from the log) and streams a ready peer's
// snapshot into a fresh directory, verified, then swaps it in. Never touches a replica in use.

import { rename, rm } from 'node:fs/promises';
import type { NatsConnection } from 'nats';
import type { Logger } from '../logger.js';
import { apiErrorCode, STREAM_NOT_FOUND } from '../log/jetstream-stream.js';
import { fetchSnapshot, grpcTarget, type ReceivedSnapshot, type SnapshotClientTls } from '../rpc/snapshot-client.js';
import { readAppliedSeq } from '../store/applied-seq.js';
import { logStreamName } from './cluster-names.js';
import { readMembers } from './membership.js';
import type { Retry } from './start-retry.js';

/** A member that may serve a snapshot. */
export interface SnapshotPeer {
  id: string;
  /** `tls:host:port` of its gRPC server. */
  ctrlAddress: string;
  baseUrl: string;
  appliedSeq: number;
}

/** The stream's bounds: the first sequence still stored and the last. */
export interface LogBounds {
  firstSeq: number;
  lastSeq: number;
}

export interface SnapshotJoinOptions {
  nc: NatsConnection;
  clusterName: string;
  nodeId: string;
  /** `<data-dir>/replica`. */
  replicaDir: string;
  tls: SnapshotClientTls;
  log: Logger;
  /** How long a node whose position was trimmed waits for a peer to serve it (ms, default 60 s). */
  peerWaitMs?: number;
  /** Test seams: the stream bounds and the ready peers (default: asked of NATS). */
  bounds?: () => Promise<LogBounds | undefined>;
  peers?: () => Promise<SnapshotPeer[]>;
  /** Runs a NATS request again after a transient failure at start (default: once). */
  retry?: Retry;
}

/** What prepareReplica did. */
export type JoinOutcome =
  | { joined: false; reason: 'current' | 'first-node' | 'replay' }
  | { joined: true; snapshot: ReceivedSnapshot; peer: string; ms: number };

/** A peer heard from more than this long ago is not asked (ms; membership calls it dead at 3 s). */
const FRESH_MS = 5_000;
const RETRY_MS = 1_000;
/** Longest wait for the members bucket's current values (ms). */
const WATCH_MS = 3_000;

/** Thrown when the node cannot follow the log (its position was trimmed) and no peer could serve it. */
export class SnapshotJoinError extends Error {}

/**
 * Makes `replicaDir` fit to follow the log: a replica that is current stays; an empty one is
 * replaced by a ready peer's snapshot (or replays the log when no peer serves and the log
 * still starts at 1); one whose position was trimmed away is replaced by a peer's snapshot,
 * waiting up to peerWaitMs for one (SnapshotJoinError after that).
 */
export async function prepareReplica(opts: SnapshotJoinOptions): Promise<JoinOutcome> {
  const retry: Retry = opts.retry ?? ((_step, fn) => fn());
  const bounds = await retry('read the cluster log\'s bounds', opts.bounds ?? (() => logBounds(opts.nc, logStreamName(opts.clusterName))));
  if (!bounds || bounds.lastSeq === 0) return { joined: false, reason: 'first-node' };
  const applied = await readAppliedSeq(opts.replicaDir);
  const trimmed = applied + 1 < bounds.firstSeq;
  if (!trimmed && applied > 0) return { joined: false, reason: 'current' };
  const deadline = Date.now() + (trimmed ? (opts.peerWaitMs ?? 60_000) : 0);
  for (;;) {
    const joined = await tryPeers(opts, trimmed ? bounds.firstSeq - 1 : 0, retry);
    if (joined) return joined;
    if (!trimmed) {
      opts.log.info('no peer serves a snapshot; replaying the cluster log from its start', { firstSeq: bounds.firstSeq });
      return { joined: false, reason: 'replay' };
    }
    if (Date.now() >= deadline) {
      throw new SnapshotJoinError(`this node applied the cluster log up to ${applied}, but the log now starts at ${bounds.firstSeq} ` +
        'and no ready peer served a snapshot; start it again once a peer is ready');
    }
    opts.log.warn('this node\'s log position was trimmed; waiting for a peer to serve a snapshot', { appliedSeq: applied, firstSeq: bounds.firstSeq });
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/** Tries the ready peers, most advanced first; a failed or bad transfer moves on to the next. */
async function tryPeers(opts: SnapshotJoinOptions, atLeastSeq: number, retry: Retry): Promise<JoinOutcome | undefined> {
  const ready = await retry('read the members bucket', opts.peers ?? (() => readyPeers(opts.nc, opts.clusterName)));
  const peers = ready.filter((p) => p.id !== opts.nodeId && p.appliedSeq >= atLeastSeq).sort((a, b) => b.appliedSeq - a.appliedSeq);
  if (peers.length === 0) opts.log.debug('no ready peer can serve a snapshot', { needSeq: atLeastSeq, ready: ready.map((p) => `${p.id}@${p.appliedSeq}`) });
  const incoming = `${opts.replicaDir}.incoming`;
  for (const peer of peers) {
    const started = performance.now();
    try {
      const target = grpcTarget(peer.ctrlAddress, hostOf(peer.baseUrl));
      const snapshot = await fetchSnapshot(target, opts.tls, incoming);
      if (snapshot.appliedSeq < atLeastSeq) {
        await rm(incoming, { recursive: true, force: true });
        opts.log.warn('a peer\'s snapshot is older than the log\'s start; trying another', { peer: peer.id, appliedSeq: snapshot.appliedSeq });
        continue;
      }
      await rm(opts.replicaDir, { recursive: true, force: true });
      await rename(incoming, opts.replicaDir);
      const ms = performance.now() - started;
      opts.log.info('joined from a peer snapshot', {
        peer: peer.id, appliedSeq: snapshot.appliedSeq, files: snapshot.files, bytes: snapshot.bytes, ms: Math.round(ms),
        mbPerSecond: Number((snapshot.bytes / 1e6 / (ms / 1000)).toFixed(1)),
      });
      return { joined: true, snapshot, peer: peer.id, ms };
    } catch (err) {
      await rm(incoming, { recursive: true, force: true }).catch(() => undefined);
      opts.log.warn('snapshot transfer failed; trying another peer', { peer: peer.id, error: err });
    }
  }
  return undefined;
}

/** The stream's first and last sequence; undefined when the stream does not exist yet. */
async function logBounds(nc: NatsConnection, stream: string): Promise<LogBounds | undefined> {
  const jsm = await nc.jetstreamManager({ timeout: 5_000 });
  try {
    const { state } = await jsm.streams.info(stream);
    return { firstSeq: Math.max(1, state.first_seq), lastSeq: state.last_seq };
  } catch (err) {
    if (apiErrorCode(err) === STREAM_NOT_FOUND) return undefined;
    throw err;
  }
}

/** Ready members heard from recently (this node has not joined yet, so it reads the bucket once). */
async function readyPeers(nc: NatsConnection, clusterName: string): Promise<SnapshotPeer[]> {
  const members = await readMembers(nc, clusterName, { freshMs: FRESH_MS, waitMs: WATCH_MS });
  return members
    .filter((m) => m.ready && typeof m.ctrlAddress === 'string')
    .map((m) => ({ id: m.id, ctrlAddress: m.ctrlAddress as string, baseUrl: m.baseUrl, appliedSeq: Number(m.appliedSeq ?? 0) }));
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}
