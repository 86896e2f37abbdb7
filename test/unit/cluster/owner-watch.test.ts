// OwnerWatch: a requester learns when the node that owned a shard when its command was sent is
// no longer heard in the membership; other members coming and going do not count.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { OwnerWatch } from '../../../src/cluster/owner-watch.js';
import { shardOwner } from '../../../src/cluster/shard-map.js';

function members(ids: string[]) {
  const state = { ready: [...ids], live: [...ids] };
  return { state, readyMembers: () => state.ready, live: () => state.live.map((id) => ({ id })) };
}

/** Waits for `p`; the watch's own poll timer is unref'd, so a ref'd timer keeps the test alive. */
async function settles<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within 10 s`)), 10_000)));
  try {
    return await Promise.race([p, expired]);
  } finally {
    clearTimeout(timer);
  }
}

describe('OwnerWatch', () => {
  it('says gone once the shard\'s owner at the start is no longer heard', async () => {
    const m = members(['a', 'b', 'c']);
    const watch = new OwnerWatch(m, 5).watch(7);
    assert.equal(watch.owner, shardOwner(7, ['a', 'b', 'c']));
    m.state.live = m.state.live.filter((id) => id !== watch.owner);
    await settles(watch.gone, 'the owner is said gone');
  });

  it('does not say gone when another member leaves, nor when the owner only stops being ready', async () => {
    const m = members(['a', 'b', 'c']);
    const watch = new OwnerWatch(m, 5).watch(7);
    let gone = false;
    void watch.gone.then(() => (gone = true));
    m.state.live = m.state.live.filter((id) => id === watch.owner || id === m.state.live.find((x) => x !== watch.owner));
    m.state.ready = [watch.owner!];
    await new Promise((resolve) => setTimeout(resolve, 50));
    watch.stop();
    assert.equal(gone, false);
  });

  it('never says gone for a shard that had no owner, and stops watching when told', async () => {
    const m = members([]);
    const owners = new OwnerWatch(m, 5);
    const none = owners.watch(3);
    assert.equal(none.owner, undefined);
    const m2 = members(['a']);
    const watch = new OwnerWatch(m2, 5).watch(3);
    watch.stop();
    m2.state.live = [];
    let gone = false;
    void watch.gone.then(() => (gone = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(gone, false);
  });
});
