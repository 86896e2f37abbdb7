// Which live node owns which shard: rendezvous (highest random weight) hashing over the ready
// members. Every node computes the same map from the same member list; when a member joins or
// leaves, only the shards it wins or held move.

import { DEFAULT_SHARD_COUNT, stableHash } from '../bus/subjects.js';

/** The member that owns `shard` among `members` (node ids); undefined when there are none. */
export function shardOwner(shard: number, members: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestWeight = -1;
  for (const member of members) {
    const weight = stableHash(`${member}/${shard}`);
    if (weight > bestWeight || (weight === bestWeight && best !== undefined && member < best)) {
      best = member;
      bestWeight = weight;
    }
  }
  return best;
}

/** The shards `nodeId` owns among `members`. */
export function ownedShards(nodeId: string, members: readonly string[], shardCount = DEFAULT_SHARD_COUNT): Set<number> {
  const owned = new Set<number>();
  for (let shard = 0; shard < shardCount; shard++) if (shardOwner(shard, members) === nodeId) owned.add(shard);
  return owned;
}

/** Every shard's owner, in shard order (status pages, metrics). */
export function shardOwners(members: readonly string[], shardCount = DEFAULT_SHARD_COUNT): (string | undefined)[] {
  return Array.from({ length: shardCount }, (_, shard) => shardOwner(shard, members));
}
