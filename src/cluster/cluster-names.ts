// The names of a cluster's JetStream resources, built in one place: every node, the status
// report and the snapshot join must name the same stream and buckets.

/** The stream that holds the cluster's command log. */
export function logStreamName(clusterName: string): string {
  return `weft-${clusterName}-log`;
}

/** The KV bucket of member heartbeats. */
export function membersBucket(clusterName: string): string {
  return `weft-${clusterName}-members`;
}

/** The KV bucket of the cluster record (id, secret verifier, sealed CA). */
export function clusterBucket(clusterName: string): string {
  return `weft-${clusterName}-cluster`;
}
