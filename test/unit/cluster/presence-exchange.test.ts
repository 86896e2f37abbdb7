// Router presence across the cluster: a router connected to one node is online on every node,
// and is forgotten with its node.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { RouterPresence } from '../../../src/rpc/router-presence.js';
import { MemoryBus } from '../../../src/bus/memory-bus.js';
import { PresenceExchange } from '../../../src/cluster/presence-exchange.js';

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('PresenceExchange', () => {
  it('makes a router connected to one node online on the others, until it disconnects', async () => {
    const bus = new MemoryBus();
    const live = ['a', 'b'];
    const a = new RouterPresence();
    const b = new RouterPresence();
    const ea = new PresenceExchange({ bus, clusterName: 'c', nodeId: 'a', presence: a, liveMembers: () => live, intervalMs: 50 });
    const eb = new PresenceExchange({ bus, clusterName: 'c', nodeId: 'b', presence: b, liveMembers: () => live, intervalMs: 50 });
    await ea.start();
    await eb.start();
    const connection = a.open('router-1');
    await until(() => b.isOnline('router-1'));
    assert.equal(b.onlineRouterIds().length, 0, 'b reports only its own routers');
    connection.close();
    await until(() => !b.isOnline('router-1'));
    await ea.stop();
    await eb.stop();
  });

  it('forgets the routers of a node that left the membership, and ignores other clusters', async () => {
    const bus = new MemoryBus();
    let live = ['a', 'b'];
    const a = new RouterPresence();
    const b = new RouterPresence();
    const other = new RouterPresence();
    const ea = new PresenceExchange({ bus, clusterName: 'c', nodeId: 'a', presence: a, liveMembers: () => live, intervalMs: 50 });
    const eb = new PresenceExchange({ bus, clusterName: 'c', nodeId: 'b', presence: b, liveMembers: () => live, intervalMs: 50 });
    const eo = new PresenceExchange({ bus, clusterName: 'elsewhere', nodeId: 'a', presence: other, liveMembers: () => ['a'], intervalMs: 50 });
    await Promise.all([ea.start(), eb.start(), eo.start()]);
    a.open('router-1');
    await until(() => b.isOnline('router-1'));
    assert.equal(other.isOnline('router-1'), false);
    live = ['b'];
    await until(() => !b.isOnline('router-1'));
    await Promise.all([ea.stop(), eb.stop(), eo.stop()]);
  });
});
