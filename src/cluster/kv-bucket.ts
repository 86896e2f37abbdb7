// Opening a cluster's JetStream KV bucket with as many replicas as the NATS cluster allows
// (min(3, servers)) unless told otherwise. Several nodes may open the same bucket at once.

import type { KV, KvOptions, NatsConnection } from 'nats';

/** Opens (creating if missing) the bucket; `replicas` undefined = try 3, then 2, then 1. */
export async function openKv(nc: NatsConnection, bucket: string, opts: Partial<KvOptions> & { replicas?: number }): Promise<KV> {
  const js = nc.jetstream();
  const tries = opts.replicas !== undefined ? [opts.replicas] : [3, 2, 1];
  let last: unknown;
  for (const replicas of tries) {
    try {
      return await js.views.kv(bucket, { ...opts, replicas });
    } catch (err) {
      last = err;
      if (!isReplicaRefusal(err)) throw err;
    }
  }
  throw last;
}

/** nats-server refuses more replicas than it has servers: "replicas > 1 not supported in
 * non-clustered mode" (one server) or "insufficient resources" (too few servers). */
export function isReplicaRefusal(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return /replicas|insufficient resources|no suitable peers/i.test(message);
}
