// The node registry over the memory bus: peers appear from heartbeats, newcomers are answered at
// once, a silent peer goes offline after the window, and the local node is always listed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NodeRegistry, type NodeAnnouncement } from '../../../src/actors/node-registry.js';
import { MemoryBus } from '../../../src/bus/memory-bus.js';

const announcement = (id: string): NodeAnnouncement => ({
  id,
  baseUrl: `https://${id}.test:1280`,
  ctrlAddress: `tls:${id}.test:1281`,
  certPem: `cert-of-${id}`,
  fingerprint: `fp-${id}`,
  startedAt: '2026-01-01T00:00:00.000Z',
});

const settle = () => new Promise((r) => setTimeout(r, 10));

describe('NodeRegistry', () => {
  it('lists only itself, online, before hearing anyone', async () => {
    const bus = new MemoryBus();
    const a = new NodeRegistry(bus, announcement('a'));
    const list = a.list();
    assert.deepEqual(list.map((n) => [n.id, n.isOnline, n.isLocal]), [['a', true, true]]);
    assert.deepEqual(a.onlineUrls(), ['https://a.test:1280']);
    await bus.close();
  });

  it('learns peers from heartbeats; a newcomer is answered without waiting an interval', async () => {
    const bus = new MemoryBus();
    const a = new NodeRegistry(bus, announcement('a'), { intervalMs: 60_000 });
    const b = new NodeRegistry(bus, announcement('b'), { intervalMs: 60_000 });
    await a.start();
    await settle();
    await b.start();
    await settle();
    assert.deepEqual(a.list().map((n) => n.id), ['a', 'b']);
    assert.deepEqual(b.list().map((n) => n.id), ['b', 'a']);
    assert.deepEqual(b.onlineUrls(), ['https://b.test:1280', 'https://a.test:1280']);
    assert.equal(b.list()[1]!.ctrlAddress, 'tls:a.test:1281');
    await a.stop();
    await b.stop();
    await bus.close();
  });

  it('marks a peer offline once it is silent for longer than the window', async () => {
    const bus = new MemoryBus();
    let now = 1_000_000;
    const a = new NodeRegistry(bus, announcement('a'), { intervalMs: 60_000, onlineWindowMs: 15_000, now: () => now });
    await a.start();
    await bus.publish('weft.v1.events.nodes.heartbeat', announcement('b'));
    await settle();
    now += 15_000;
    assert.equal(a.list()[1]!.isOnline, true);
    now += 1;
    assert.equal(a.list()[1]!.isOnline, false);
    assert.equal(a.list()[0]!.isOnline, true);
    assert.deepEqual(a.onlineUrls(), ['https://a.test:1280']);
    await a.stop();
    await bus.close();
  });

  it('ignores malformed heartbeats', async () => {
    const bus = new MemoryBus();
    const a = new NodeRegistry(bus, announcement('a'));
    await a.start();
    await bus.publish('weft.v1.events.nodes.heartbeat', { id: 'x' });
    await settle();
    assert.equal(a.list().length, 1);
    await a.stop();
    await bus.close();
  });

  it('tells failing heartbeats once when they start failing and once when they go through again', async () => {
    const bus = new MemoryBus();
    let down = false;
    const publish = bus.publish.bind(bus);
    // The registry's own heartbeats fail while `down`; the newcomers' heartbeats below still arrive.
    const flaky = Object.assign(Object.create(bus) as MemoryBus, {
      publish: (subject: string, msg: unknown) => (down && (msg as NodeAnnouncement).id === 'a' ? Promise.reject(new Error('NATS is away')) : publish(subject, msg)),
    });
    const told: unknown[] = [];
    const a = new NodeRegistry(flaky, announcement('a'), { intervalMs: 60_000, onHeartbeat: (failure) => told.push(failure) });
    await a.start();
    await settle();
    down = true;
    // Every newcomer makes the registry announce itself at once: three heartbeats fail.
    for (const id of ['b', 'c', 'd']) await bus.publish('weft.v1.events.nodes.heartbeat', announcement(id));
    await settle();
    down = false;
    for (const id of ['e', 'f']) await bus.publish('weft.v1.events.nodes.heartbeat', announcement(id));
    await settle();
    assert.equal(told.length, 2);
    assert.equal((told[0] as Error).message, 'NATS is away');
    assert.equal(told[1], undefined);
    await a.stop();
    await bus.close();
  });
});
