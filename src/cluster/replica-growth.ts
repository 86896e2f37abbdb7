// Raising the replicas of the cluster's streams once the NATS cluster has the servers for them.
// The log and buckets are created with min(3, servers) replicas, trying 3, then 2, then 1; a
// stream created while only some servers were in JetStream (nodes started together with NATS)
// would otherwise keep fewer replicas than the cluster can give it for good.

import type { JetStreamManager } from 'nats';
import { apiErrorCode, isTooFewServers, STREAM_NOT_FOUND } from '../log/jetstream-stream.js';

/** The replicas a cluster's streams get when not fixed by configuration. */
export const WANTED_REPLICAS = 3;

/** One stream whose replicas were raised. */
export interface ReplicaGrowth {
  stream: string;
  from: number;
  to: number;
}

/** Raises each stream's replicas towards `want` (default 3), as far as the NATS cluster has
 * servers for; a stream that is missing or already there is left alone. Returns what changed. */
export async function growReplicas(jsm: JetStreamManager, streams: readonly string[], want = WANTED_REPLICAS): Promise<ReplicaGrowth[]> {
  const grown: ReplicaGrowth[] = [];
  for (const stream of streams) {
    let info;
    try {
      info = await jsm.streams.info(stream);
    } catch (err) {
      if (apiErrorCode(err) === STREAM_NOT_FOUND) continue;
      throw err;
    }
    const from = info.config.num_replicas ?? 1;
    for (let to = want; to > from; to--) {
      try {
        await jsm.streams.update(stream, { ...info.config, num_replicas: to });
        grown.push({ stream, from, to });
        break;
      } catch (err) {
        if (!isTooFewServers(err)) throw err;
      }
    }
  }
  return grown;
}
