// A cluster command's round trip between a requester (NodeClient) and a shard owner (a sharded
// ActorHost) on one MemoryBus, with a real proposer, log and replica: the owner first applies
// the log as far as the requester had (`seen`), and answers with the last sequence its handling
// appended; the requester waits for that sequence (not for the stream's last one) and gets the
// handler's answer back. A command that appends nothing is not waited for, and a reply that is
// not a command reply is refused.

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ActorHost, type Actor, type ActorMessage } from '../../../src/actors/actor-host.js';
import { Proposer } from '../../../src/actors/proposer.js';
import { MemoryBus } from '../../../src/bus/memory-bus.js';
import { DEFAULT_CLUSTER_SCOPE, DEFAULT_SHARD_COUNT, entitySubject } from '../../../src/bus/subjects.js';
import { resourceOf } from '../../../src/domain/registry.js';
import { ApiError } from '../../../src/errors.js';
import { NodeClient } from '../../../src/gateway/node-client.js';
import { Replica } from '../../../src/store/replica.js';
import { memoryStore, record } from '../../support/memory-store.js';

const open: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/** Creates an identity-type record per `write` message; answers `{ handled }` either way. */
class Writer implements Actor {
  constructor(private readonly proposer: Proposer, readonly handled: string[]) {}

  async handle(msg: ActorMessage): Promise<unknown> {
    this.handled.push(String(msg.op));
    if (msg.op === 'write') await this.proposer.propose([{ op: 'create', kind: 'identity-types', record: record(String(msg.name), { name: String(msg.name) }) }]);
    return { handled: msg.op };
  }

  isIdle(): boolean {
    return true;
  }
}

interface Setup {
  bus: MemoryBus;
  replica: Replica;
  handled: string[];
  /** Sequences the owner was asked to have applied before handling. */
  ownerWaits: number[];
  /** Sequences the requester waited for after an answer. */
  requesterWaits: number[];
  client: NodeClient;
  /** Held when set: the owner's wait for `seen` does not end before it opens. */
  hold?: Promise<void>;
  /** Fences asked for (rid, attempt), and what the next one does. */
  fences: Array<[string, number]>;
  fenceFails?: ApiError;
}

async function setup(): Promise<Setup> {
  const { replica, proposer, close } = await memoryStore({ nodeId: 'owner', commandTtlMs: 8_000 });
  const bus = new MemoryBus();
  const s = { bus, replica, handled: [] as string[], ownerWaits: [] as number[], requesterWaits: [] as number[], fences: [] } as unknown as Setup;
  const host = new ActorHost(bus, {
    mailboxSize: 8,
    sharded: {
      waitApplied: async (seq) => {
        s.ownerWaits.push(seq);
        await s.hold;
      },
      fence: async (rid, attempt) => {
        s.fences.push([rid, attempt]);
        if (s.fenceFails) throw s.fenceFails;
      },
    },
  });
  await host.register('identity', () => new Writer(proposer, s.handled));
  await host.serveShards(new Set(Array.from({ length: DEFAULT_SHARD_COUNT }, (_, i) => i)));
  s.client = new NodeClient(bus, 'requester', DEFAULT_CLUSTER_SCOPE, {
    appliedSeq: () => replica.appliedSeq,
    waitApplied: async (seq) => {
      s.requesterWaits.push(seq);
      await replica.waitFor(seq);
    },
    recover: async () => 'none',
  });
  open.push(close, () => host.close(), () => bus.close());
  return s;
}

describe('cluster command replies', () => {
  it('answers with the sequence the handling appended, which the requester waits for', async () => {
    const s = await setup();
    const before = s.replica.appliedSeq;
    const answer = await s.client.command(resourceOf('identities'), 'write', 'i1', { name: 'first' });
    assert.deepEqual(answer, { handled: 'write' });
    assert.deepEqual(s.requesterWaits, [before + 1]);
    assert.equal(s.replica.appliedSeq, before + 1);
    assert.ok(await s.replica.get('identity-types', 'first'), 'the write is readable when the answer arrives');
  });

  it('does not wait after a command that appended nothing', async () => {
    const s = await setup();
    assert.deepEqual(await s.client.command(resourceOf('identities'), 'look', 'i1'), { handled: 'look' });
    assert.deepEqual(s.requesterWaits, []);
  });

  it('has the owner apply the log as far as the requester had before handling', async () => {
    const s = await setup();
    await s.client.command(resourceOf('identities'), 'write', 'i1', { name: 'first' });
    const seen = s.replica.appliedSeq;
    let release!: () => void;
    s.hold = new Promise<void>((resolve) => (release = resolve));
    const reply = s.client.command(resourceOf('identities'), 'look', 'i2');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(s.ownerWaits.at(-1), seen);
    assert.deepEqual(s.handled, ['write'], 'not handled while the owner waits');
    release();
    await reply;
    assert.deepEqual(s.handled, ['write', 'look']);
  });

  it('refuses a command whose request id is not a string, before handling it (INVALID_MESSAGE)', async () => {
    const s = await setup();
    const subject = entitySubject('identity', 'i1', DEFAULT_SHARD_COUNT, DEFAULT_CLUSTER_SCOPE);
    await assert.rejects(s.bus.request(subject, { op: 'write', key: 'i1', name: 'x', rid: 7 }), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 'INVALID_MESSAGE');
      assert.equal((err.apiCause as { field?: string }).field, 'rid');
      return true;
    });
    assert.deepEqual(s.handled, []);
    assert.deepEqual(s.ownerWaits, []);
  });

  it('fences the earlier deliveries of a command sent again before handling it, and carries its refusal in the reply', async () => {
    const s = await setup();
    const subject = entitySubject('identity', 'i1');
    const ok = await s.bus.request(subject, { key: 'i1', op: 'write', name: 'again', rid: 'r1', attempt: 1, seen: 0 });
    assert.deepEqual(s.fences, [['r1', 1]]);
    assert.deepEqual((ok as { answer: unknown }).answer, { handled: 'write' });
    const refused = await s.bus.request(subject, { key: 'i1', op: 'write', name: 'again', rid: 'r2', attempt: 1, seen: 0 }) as { error?: { code: string } };
    assert.equal(refused.error?.code, 'COULD_NOT_VALIDATE', 'the duplicate name is refused in the reply, not as a bus error');
  });

  it('does not handle a command sent again whose fence found an earlier delivery\'s entry', async () => {
    const s = await setup();
    s.fenceFails = new ApiError('TIMEOUT', { code: 'EARLIER_DELIVERY_STORED', message: 'stored before' });
    await assert.rejects(s.bus.request(entitySubject('identity', 'i1'), { key: 'i1', op: 'write', name: 'x', rid: 'r3', attempt: 1, seen: 0 }), (err: unknown) =>
      err instanceof ApiError && (err.apiCause as { code?: string }).code === 'EARLIER_DELIVERY_STORED');
    assert.deepEqual(s.handled, []);
  });

  it('refuses a reply that is not a command reply', async () => {
    const bus = new MemoryBus();
    open.push(() => bus.close());
    const subject = entitySubject('identity', 'i1');
    const sub = await bus.serve(subject, async () => ({ id: 'i1' }));
    open.push(() => sub.unsubscribe());
    const client = new NodeClient(bus, 'requester', DEFAULT_CLUSTER_SCOPE, { recover: async () => 'none' });
    await assert.rejects(client.command(resourceOf('identities'), 'create', 'i1'), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal((err.apiCause as { code?: string }).code, 'MALFORMED_REPLY');
      return true;
    });
  });
});
