// Opening a cluster's JetStream KV bucket with as many replicas as the NATS cluster allows
// (min(3, servers)) unless told otherwise. Several nodes may open the same bucket at once.

import type { KV, KvOptions, NatsConnection } from 'nats';
import { isTooFewServers } from '../log/jetstream-stream.js';

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
      if (!isTooFewServers(err)) throw err;
    }
  }
  throw last;
}
