// ActorHost over a MemoryBus: one actor per key, created on demand; same key strictly in order,
// different keys concurrently; full mailbox and maxInFlight refusals (429); malformed messages;
// errors crossing the bus by code; idle actors swept; close stops serving.

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { ActorHost, type Actor, type ActorMessage } from '../../../src/actors/actor-host.js';
import { MemoryBus } from '../../../src/bus/memory-bus.js';
import { entitySubject } from '../../../src/bus/subjects.js';
import { ApiError } from '../../../src/errors.js';

const FAMILY = 'widget';

function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Waits until cond holds (a few event-loop turns at most). */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    await tick();
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** A test actor: records what it handles; a message with `wait` blocks on the named gate. */
class Recorder implements Actor {
  static created: string[] = [];
  static gates = new Map<string, { promise: Promise<void>; open(): void }>();
  static running = new Map<string, number>();
  static log: string[] = [];
  static concurrentKeys = 0;
  static maxConcurrentKeys = 0;
  idle = true;

  constructor(readonly key: string) {
    Recorder.created.push(key);
  }

  static reset(): void {
    Recorder.created = [];
    Recorder.gates = new Map();
    Recorder.running = new Map();
    Recorder.log = [];
    Recorder.concurrentKeys = 0;
    Recorder.maxConcurrentKeys = 0;
  }

  static gateFor(name: string) {
    let g = Recorder.gates.get(name);
    if (!g) {
      g = gate();
      Recorder.gates.set(name, g);
    }
    return g;
  }

  async handle(msg: ActorMessage): Promise<unknown> {
    const now = (Recorder.running.get(this.key) ?? 0) + 1;
    Recorder.running.set(this.key, now);
    assert.equal(now, 1, `two messages of ${this.key} ran at once`);
    Recorder.concurrentKeys++;
    Recorder.maxConcurrentKeys = Math.max(Recorder.maxConcurrentKeys, Recorder.concurrentKeys);
    Recorder.log.push(`start ${this.key}:${String(msg.n)}`);
    try {
      if (typeof msg.wait === 'string') await Recorder.gateFor(msg.wait).promise;
      if (msg.op === 'fail') throw new ApiError('NOT_FOUND');
      if (msg.op === 'stay') this.idle = false;
      return { key: this.key, n: msg.n, actor: Recorder.created.indexOf(this.key) };
    } finally {
      Recorder.log.push(`end ${this.key}:${String(msg.n)}`);
      Recorder.running.set(this.key, 0);
      Recorder.concurrentKeys--;
    }
  }

  isIdle(): boolean {
    return this.idle;
  }
}

function send(bus: MemoryBus, key: string, fields: Record<string, unknown> = {}): Promise<unknown> {
  return bus.request(entitySubject(FAMILY, key), { key, op: 'do', ...fields }, { timeoutMs: 2000 });
}

function rejectsWith(code: string, status?: number) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (status !== undefined) assert.equal(err.status, status);
    return true;
  };
}

describe('ActorHost', () => {
  let bus: MemoryBus;
  let host: ActorHost | undefined;

  beforeEach(() => {
    Recorder.reset();
    bus = new MemoryBus();
  });

  afterEach(async () => {
    for (const g of Recorder.gates.values()) g.open();
    await host?.close();
    host = undefined;
    await bus.close();
  });

  async function start(opts: { mailboxSize: number; maxInFlight?: number }): Promise<ActorHost> {
    host = new ActorHost(bus, opts);
    await host.register(FAMILY, (key) => new Recorder(key));
    return host;
  }

  it('routes a message to the actor of its key and returns its answer', async () => {
    await start({ mailboxSize: 8 });
    assert.deepEqual(await send(bus, 'k1', { n: 1 }), { key: 'k1', n: 1, actor: 0 });
    assert.deepEqual(await send(bus, 'k2', { n: 2 }), { key: 'k2', n: 2, actor: 1 });
    assert.deepEqual(await send(bus, 'k1', { n: 3 }), { key: 'k1', n: 3, actor: 0 });
    assert.deepEqual(Recorder.created, ['k1', 'k2']);
  });

  it('runs messages of one key one after another, in order, on one actor', async () => {
    const h = await start({ mailboxSize: 8 });
    const replies = [1, 2, 3, 4].map((n) => send(bus, 'same', { n, wait: n === 1 ? 'first' : undefined }));
    await until(() => Recorder.log.length === 1, 'the first message to start');
    await tick();
    assert.deepEqual(Recorder.log, ['start same:1']);
    assert.equal(h.depth().deepest, 4);
    Recorder.gateFor('first').open();
    await Promise.all(replies);
    assert.deepEqual(Recorder.log, ['start same:1', 'end same:1', 'start same:2', 'end same:2', 'start same:3', 'end same:3', 'start same:4', 'end same:4']);
    assert.deepEqual(Recorder.created, ['same']);
  });

  it('runs messages of different keys concurrently', async () => {
    const h = await start({ mailboxSize: 8 });
    const a = send(bus, 'a', { n: 1, wait: 'a' });
    const b = send(bus, 'b', { n: 1, wait: 'b' });
    await until(() => Recorder.maxConcurrentKeys === 2, 'both keys to be running');
    assert.deepEqual(h.depth(), { inFlight: 2, deepest: 1, actors: 2 });
    // Releasing b first: it finishes while a is still blocked.
    Recorder.gateFor('b').open();
    assert.deepEqual(await b, { key: 'b', n: 1, actor: 1 });
    assert.deepEqual(Recorder.log, ['start a:1', 'start b:1', 'end b:1']);
    Recorder.gateFor('a').open();
    await a;
    assert.equal(h.depth().inFlight, 0);
  });

  it('refuses a message to a full mailbox with 429 SERVER_TOO_MANY_REQUESTS and accepts again after', async () => {
    await start({ mailboxSize: 2 });
    const first = send(bus, 'k', { n: 1, wait: 'hold' });
    const second = send(bus, 'k', { n: 2 });
    await until(() => Recorder.log.length === 1, 'the first message to start');
    await assert.rejects(send(bus, 'k', { n: 3 }), rejectsWith('SERVER_TOO_MANY_REQUESTS', 429));
    // Another key has its own mailbox.
    assert.deepEqual(await send(bus, 'other', { n: 9 }), { key: 'other', n: 9, actor: 1 });
    Recorder.gateFor('hold').open();
    await Promise.all([first, second]);
    assert.deepEqual(await send(bus, 'k', { n: 4 }), { key: 'k', n: 4, actor: 0 });
    assert.ok(!Recorder.log.includes('start k:3'));
  });

  it('refuses with 429 once maxInFlight messages are under way across all actors', async () => {
    const h = await start({ mailboxSize: 8, maxInFlight: 2 });
    const a = send(bus, 'a', { n: 1, wait: 'a' });
    const b = send(bus, 'b', { n: 1, wait: 'b' });
    await until(() => h.depth().inFlight === 2, 'two messages in flight');
    await assert.rejects(send(bus, 'c', { n: 1 }), rejectsWith('SERVER_TOO_MANY_REQUESTS', 429));
    await assert.rejects(send(bus, 'a', { n: 2 }), rejectsWith('SERVER_TOO_MANY_REQUESTS', 429));
    assert.equal(h.depth().inFlight, 2);
    Recorder.gateFor('a').open();
    await a;
    assert.deepEqual(await send(bus, 'c', { n: 1 }), { key: 'c', n: 1, actor: 2 });
    Recorder.gateFor('b').open();
    await b;
    assert.equal(h.depth().inFlight, 0);
  });

  it('answers a message without a string key or op with 400 INVALID_MESSAGE naming the field', async () => {
    await start({ mailboxSize: 8 });
    const subject = entitySubject(FAMILY, 'x');
    const cases: [unknown, string][] = [[{ op: 'do' }, 'key'], [{ key: 5, op: 'do' }, 'key'], [{ key: 'x' }, 'op'], [{ key: 'x', op: 7 }, 'op'], [null, 'key'], ['text', 'key']];
    for (const [msg, field] of cases) {
      await assert.rejects(bus.request(subject, msg, { timeoutMs: 2000 }), (err: unknown) => {
        rejectsWith('INVALID_MESSAGE', 400)(err);
        assert.equal(((err as ApiError).apiCause as { field?: unknown }).field, field);
        return true;
      }, JSON.stringify(msg));
    }
    assert.deepEqual(Recorder.created, []);
  });

  it("carries an actor's ApiError back to the caller by code", async () => {
    const h = await start({ mailboxSize: 8 });
    await assert.rejects(send(bus, 'k', { op: 'fail' }), rejectsWith('NOT_FOUND', 404));
    assert.deepEqual(await send(bus, 'k', { n: 2 }), { key: 'k', n: 2, actor: 0 });
    assert.equal(h.depth().inFlight, 0);
  });

  it('sweeps idle actors every minute and keeps busy or stateful ones', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const h = await start({ mailboxSize: 8 });
      await send(bus, 'idle', { n: 1 });
      await send(bus, 'stateful', { op: 'stay' });
      const busy = send(bus, 'busy', { n: 1, wait: 'busy' });
      await until(() => h.depth().inFlight === 1, 'the busy message to start');
      assert.equal(h.depth().actors, 3);
      mock.timers.tick(60_000);
      assert.equal(h.depth().actors, 2);
      Recorder.gateFor('busy').open();
      await busy;
      // The swept key gets a fresh actor on its next message.
      await send(bus, 'idle', { n: 2 });
      assert.deepEqual(Recorder.created, ['idle', 'stateful', 'busy', 'idle']);
    } finally {
      mock.timers.reset();
    }
  });

  it('stops serving after close', async () => {
    const h = await start({ mailboxSize: 8 });
    await send(bus, 'k');
    await h.close();
    host = undefined;
    await assert.rejects(send(bus, 'k'), rejectsWith('SERVICE_UNAVAILABLE', 503));
  });
});
