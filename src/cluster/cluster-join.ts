// Joining a cluster: the first node to arrive creates the cluster record (its id, a verifier of
// the secret, and the cluster CA sealed with a key derived from the secret) in a JetStream KV
// bucket; every later node checks its secret against it and unseals the CA (a node given the
// previous secret too re-seals the record under the new one: secret rotation). The data directory
// remembers which cluster it belongs to, so it is never mixed into another.

import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KV, NatsConnection } from 'nats';
import { openKv } from './kv-bucket.js';
import { seal, secretMatches, unseal, verifier } from './cluster-seal.js';
import { clusterBucket } from './cluster-names.js';
import type { Retry } from './start-retry.js';

/** The cluster CA, in PEM. */
export interface ClusterCa {
  certPem: string;
  keyPem: string;
}

/** What the cluster bucket holds under `cluster`. The CA never travels in the clear. */
interface ClusterRecord {
  id: string;
  createdAt: string;
  verifier: string;
  sealedCa: string;
}

export interface JoinOptions {
  nc: NatsConnection;
  clusterName: string;
  secret: string;
  /** The secret being rotated away from: a cluster still on it is moved to `secret` (its record
   * re-sealed and re-verified), and nodes on the old secret alone are refused from then on. */
  previousSecret?: string;
  replicas?: number;
  /** Makes a new CA when this node is the first one. */
  createCa: () => Promise<ClusterCa>;
  /** Runs the bucket's opening and the join again after a transient failure (default: once). */
  retry?: Retry;
}

export interface Joined {
  clusterId: string;
  ca: ClusterCa;
  /** True when this node created the cluster. */
  founded: boolean;
  /** True when this node moved the cluster from the previous secret to its secret. */
  rotated?: boolean;
}

/** Refusals at join: wrong secret, a data directory of another cluster. */
export class ClusterJoinError extends Error {}

const RECORD_KEY = 'cluster';

/** Joins the cluster, or founds it when its record does not exist yet. Whoever creates the record
 * founds the cluster (KV create is atomic: of nodes racing, one wins and the others join it). A
 * create whose answer was lost is recognised on the next attempt by the record's id. */
export async function joinCluster(opts: JoinOptions): Promise<Joined> {
  const retry: Retry = opts.retry ?? ((_step, fn) => fn());
  const kv = await retry('open the cluster bucket', () => openKv(opts.nc, clusterBucket(opts.clusterName), { history: 1, replicas: opts.replicas }));
  let candidate: Promise<{ record: ClusterRecord; ca: ClusterCa }> | undefined;
  const propose = () => (candidate ??= (async () => {
    const ca = await opts.createCa();
    const id = randomUUID();
    const record: ClusterRecord = { id, createdAt: new Date().toISOString(), verifier: verifier(opts.secret, id), sealedCa: seal(opts.secret, id, JSON.stringify(ca)) };
    return { record, ca };
  })());
  return retry('read or create the cluster record', () => joinOnce(kv, opts, propose, candidate));
}

async function joinOnce(kv: KV, opts: JoinOptions, propose: () => Promise<{ record: ClusterRecord; ca: ClusterCa }>,
  earlier: Promise<{ record: ClusterRecord; ca: ClusterCa }> | undefined): Promise<Joined> {
  let entry = await kv.get(RECORD_KEY);
  if (entry && entry.operation === 'PUT' && earlier) {
    // An earlier attempt's create was stored though its answer was lost: this node founded it.
    const mine = await earlier;
    if ((JSON.parse(entry.string()) as ClusterRecord).id === mine.record.id) return { clusterId: mine.record.id, ca: mine.ca, founded: true };
  }
  if (!entry || entry.operation !== 'PUT') {
    const mine = await propose();
    try {
      await kv.create(RECORD_KEY, JSON.stringify(mine.record));
      return { clusterId: mine.record.id, ca: mine.ca, founded: true };
    } catch (err) {
      // Another node created it first: join that one. Nothing there: the create failed (retried).
      entry = await kv.get(RECORD_KEY);
      if (!entry || entry.operation !== 'PUT') throw err;
      if ((JSON.parse(entry.string()) as ClusterRecord).id === mine.record.id) return { clusterId: mine.record.id, ca: mine.ca, founded: true };
    }
  }
  for (;;) {
    const record = JSON.parse(entry.string()) as ClusterRecord;
    if (secretMatches(opts.secret, record.id, record.verifier)) {
      const ca = JSON.parse(unseal(opts.secret, record.id, record.sealedCa)) as ClusterCa;
      return { clusterId: record.id, ca, founded: false };
    }
    if (!opts.previousSecret || !secretMatches(opts.previousSecret, record.id, record.verifier)) {
      throw new ClusterJoinError(`WEFT_CLUSTER_SECRET does not match the secret of cluster ${opts.clusterName} (${record.id})` +
        `${opts.previousSecret ? ', nor does WEFT_CLUSTER_PREVIOUS_SECRET' : ''}; every node needs the same secret`);
    }
    // Rotation: this node moves the cluster to the new secret. A concurrent rotation (revision
    // conflict) is read again, and then matches the new secret.
    const ca = unseal(opts.previousSecret, record.id, record.sealedCa);
    const rotated: ClusterRecord = { ...record, verifier: verifier(opts.secret, record.id), sealedCa: seal(opts.secret, record.id, ca) };
    try {
      await kv.update(RECORD_KEY, JSON.stringify(rotated), entry.revision);
      return { clusterId: record.id, ca: JSON.parse(ca) as ClusterCa, founded: false, rotated: true };
    } catch {
      const again = await kv.get(RECORD_KEY);
      if (!again || again.operation !== 'PUT') throw new ClusterJoinError(`cluster ${opts.clusterName}: its record vanished during a secret rotation`);
      entry = again;
    }
  }
}

/** The data directory's cluster marker: which cluster its replica belongs to. */
interface Marker {
  name: string;
  id: string;
}

/** Reads the data directory's marker (undefined when it belongs to no cluster). */
export async function readClusterMarker(dataDir: string): Promise<Marker | undefined> {
  try {
    return JSON.parse(await readFile(join(dataDir, 'cluster.json'), 'utf8')) as Marker;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
