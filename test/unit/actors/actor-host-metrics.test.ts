// The ActorHost's metrics hooks: every 429 is reported to onReject with where it was refused
// (a full mailbox or the in-flight bound), and familyDepths() counts actors and queued messages.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActorHost, type Actor } from '../../../src/actors/actor-host.js';
import { MemoryBus } from '../../../src/bus/memory-bus.js';
import { entitySubject } from '../../../src/bus/subjects.js';

describe('ActorHost metrics hooks', () => {
  it('reports mailbox and in-flight refusals and per-family depths', async () => {
    const bus = new MemoryBus();
    const rejected: string[] = [];
    const host = new ActorHost(bus, { mailboxSize: 1, maxInFlight: 2, onReject: (source) => rejected.push(source) });
    let release!: () => void;
    const blocked = new Promise<void>((r) => (release = r));
    const actor = (): Actor => ({ handle: () => blocked.then(() => 'done'), isIdle: () => true });
    await host.register('widget', actor);
    const send = (key: string) => bus.request(entitySubject('widget', key), { key, op: 'poke' }).then(() => 'ok', (err) => err.code as string);

    const first = send('a');
    await new Promise((r) => setImmediate(r));
    const mailboxFull = await send('a');
    const second = send('b');
    await new Promise((r) => setImmediate(r));
    const tooMany = await send('c');
    assert.equal(mailboxFull, 'SERVER_TOO_MANY_REQUESTS');
    assert.equal(tooMany, 'SERVER_TOO_MANY_REQUESTS');
    assert.deepEqual(rejected, ['mailbox', 'inFlight']);
    assert.deepEqual(host.familyDepths(), { widget: { actors: 2, queued: 2, deepest: 1 } });

    release();
    assert.deepEqual(await Promise.all([first, second]), ['ok', 'ok']);
    assert.deepEqual(host.familyDepths(), { widget: { actors: 2, queued: 0, deepest: 0 } });
    await host.close();
    await bus.close();
  });
});
