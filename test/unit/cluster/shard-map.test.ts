import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { ownedShards, shardOwner, shardOwners } from '../../../src/cluster/shard-map.js';

describe('shard map (rendezvous hashing)', () => {
  it('gives every shard exactly one owner among the members', () => {
    const members = ['node-a', 'node-b', 'node-c'];
    const owned = members.map((m) => ownedShards(m, members));
    const all = owned.flatMap((s) => [...s]).sort((a, b) => a - b);
    assert.deepEqual(all, Array.from({ length: 64 }, (_, i) => i));
    for (const set of owned) assert.ok(set.size >= 10, `a member owns only ${set.size} of 64 shards`);
  });

  it('does not depend on the order of the member list', () => {
    assert.deepEqual(shardOwners(['a', 'b', 'c']), shardOwners(['c', 'a', 'b']));
  });

  it('moves only the departed member\'s shards when one leaves', () => {
    const before = shardOwners(['a', 'b', 'c']);
    const after = shardOwners(['a', 'b']);
    before.forEach((owner, shard) => {
      if (owner !== 'c') assert.equal(after[shard], owner, `shard ${shard} moved`);
      else assert.notEqual(after[shard], 'c');
    });
  });

  it('has no owner without members', () => {
    assert.equal(shardOwner(3, []), undefined);
    assert.equal(ownedShards('a', []).size, 0);
  });
});
