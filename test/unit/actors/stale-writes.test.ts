// Two nodes that both believe they own one identity: each has its own bus, ActorHost, identity
// actor, EntityWriter and proposer; both share ONE log and ONE replica. Their first proposals
// are held until both were built from the same read, so the second to apply is stale. No
// update is lost (apply refuses the stale one, the host handles the message again), a unique
// name still holds, a recovery code is spent once, and a write that stays stale ends in 409.

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ActorHost, STALE_WRITE_ATTEMPTS } from '../../../src/actors/actor-host.js';
import { EntityWriter } from '../../../src/actors/entity-writer.js';
import { IdentityActor, type IdentityActorDeps } from '../../../src/actors/identity-actor.js';
import { Proposer } from '../../../src/actors/proposer.js';
import { MemoryBus } from '../../../src/bus/memory-bus.js';
import { entitySubject } from '../../../src/bus/subjects.js';
import type { Op } from '../../../src/domain/commands.js';
import { ApiError } from '../../../src/errors.js';
import { Replica } from '../../../src/store/replica.js';
import { memoryStore, record } from '../../support/memory-store.js';

/** Resolves once `count` callers have arrived. */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const all = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived >= count) open();
    return all;
  };
}

/** A node's proposer: counts its proposals; the first waits at `hold` (when given), and
 * `before` runs ahead of every one (another writer getting in first). */
class NodeProposer extends Proposer {
  proposals = 0;
  hold?: () => Promise<void>;
  before?: () => Promise<void>;

  override async propose(ops: Op[], at?: string): Promise<number> {
    this.proposals++;
    const hold = this.hold;
    this.hold = undefined;
    if (hold) await hold();
    await this.before?.();
    return super.propose(ops, at);
  }
}

interface Node {
  bus: MemoryBus;
  host: ActorHost;
  proposer: NodeProposer;
  send(id: string, op: string, fields?: Record<string, unknown>): Promise<unknown>;
}

const open: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

/** One log and one replica (with the kinds an identity refers to), and two nodes on it. */
async function cluster(): Promise<{ replica: Replica; a: Node; b: Node }> {
  const { replica, log, proposer: setup, close } = await memoryStore({ nodeId: 'setup' });
  open.push(close);
  await setup.propose([
    { op: 'create', kind: 'identity-types', record: record('Default', { name: 'Default' }) },
    { op: 'create', kind: 'auth-policies', record: record('default', { name: 'Default', primary: {}, secondary: {} }) },
    { op: 'create', kind: 'identities', record: record('i1', { name: 'one', typeId: 'Default', isAdmin: false, authPolicyId: 'default', roleAttributes: [] }) },
  ]);
  const node = async (nodeId: string): Promise<Node> => {
    const bus = new MemoryBus();
    const proposer = new NodeProposer(log, replica, nodeId);
    // The identity actor's CRUD and MFA paths use the replica, the proposer and the writer only.
    const deps = { replica, proposer, writer: new EntityWriter(replica, proposer) } as unknown as IdentityActorDeps;
    const host = new ActorHost(bus, { mailboxSize: 16 });
    await host.register('identity', (key) => new IdentityActor(key, deps));
    open.push(async () => {
      await host.close();
      await bus.close();
    });
    const send = (id: string, op: string, fields: Record<string, unknown> = {}) =>
      bus.request(entitySubject('identity', id), { key: id, id, op, ...fields }, { timeoutMs: 5000 });
    return { bus, host, proposer, send };
  };
  return { replica, a: await node('node-a'), b: await node('node-b') };
}

/** Holds the first proposal of each node until both have built theirs. */
function holdFirstProposals(a: Node, b: Node): void {
  const both = barrier(2);
  a.proposer.hold = both;
  b.proposer.hold = both;
}

function failure(code: string) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, code);
    return true;
  };
}

describe('concurrent writers of one entity', () => {
  it('keeps both patches of different fields made from the same read', async () => {
    const { replica, a, b } = await cluster();
    holdFirstProposals(a, b);
    await Promise.all([
      a.send('i1', 'patch', { body: { roleAttributes: ['from-a'] } }),
      b.send('i1', 'patch', { body: { name: 'from-b' } }),
    ]);
    const final = (await replica.get('identities', 'i1'))!;
    assert.deepEqual(final.roleAttributes, ['from-a']);
    assert.equal(final.name, 'from-b');
    // Whichever applied second was refused once and handled again.
    assert.equal(a.proposer.proposals + b.proposer.proposals, 3);
  });

  it('creates one of two identities given the same name at once', async () => {
    const { replica, a, b } = await cluster();
    holdFirstProposals(a, b);
    const body = { name: 'same-name', type: 'User', isAdmin: false };
    const results = await Promise.allSettled([a.send('i-a', 'create', { body }), b.send('i-b', 'create', { body })]);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.equal(refused.length, 1);
    assert.ok(refused[0].reason instanceof ApiError);
    assert.equal(refused[0].reason.code, 'COULD_NOT_VALIDATE');
    assert.equal((refused[0].reason.apiCause as { field?: string }).field, 'name');
    const holders = [await replica.get('identities', 'i-a'), await replica.get('identities', 'i-b')].filter(Boolean);
    assert.equal(holders.length, 1);
    assert.equal(holders[0]!.name, 'same-name');
  });

  it('spends two recovery codes used at once on two nodes, and one code only once', async () => {
    const { replica, a, b } = await cluster();
    const mfa = record('m1', { identityId: 'i1', isVerified: true, secret: 'JBSWY3DPEHPK3PXP', recoveryCodes: ['CODE1', 'CODE2', 'CODE3'] });
    await a.proposer.propose([{ op: 'create', kind: 'mfas', record: mfa }]);

    holdFirstProposals(a, b);
    await Promise.all([a.send('i1', 'mfaAuthenticate', { code: 'CODE1' }), b.send('i1', 'mfaAuthenticate', { code: 'CODE2' })]);
    assert.deepEqual((await replica.get('mfas', 'm1'))!.recoveryCodes, ['CODE3']);

    holdFirstProposals(a, b);
    const results = await Promise.allSettled([a.send('i1', 'mfaAuthenticate', { code: 'CODE3' }), b.send('i1', 'mfaAuthenticate', { code: 'CODE3' })]);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(refused.length, 1);
    assert.ok(failure('MFA_INVALID_TOKEN')(refused[0].reason));
    assert.deepEqual((await replica.get('mfas', 'm1'))!.recoveryCodes, []);
  });

  it(`answers 409 STALE_WRITE after ${STALE_WRITE_ATTEMPTS} refusals`, async () => {
    const { replica, a, b } = await cluster();
    let changes = 0;
    // Before each of b's proposals, a changes the identity b has just read.
    b.proposer.before = async () => {
      await a.proposer.propose([{ op: 'set', kind: 'identities', id: 'i1', fields: { roleAttributes: [`change-${++changes}`] } }]);
    };
    await assert.rejects(b.send('i1', 'patch', { body: { name: 'never' } }), (err: unknown) => {
      assert.ok(failure('STALE_WRITE')(err));
      assert.equal((err as ApiError).status, 409);
      return true;
    });
    assert.equal(b.proposer.proposals, STALE_WRITE_ATTEMPTS);
    const final = (await replica.get('identities', 'i1'))!;
    assert.equal(final.name, 'one');
    assert.deepEqual(final.roleAttributes, [`change-${STALE_WRITE_ATTEMPTS}`]);
  });
});
