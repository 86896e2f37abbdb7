// Expected records at apply: an op's `expect` is the fingerprint of the stored record it was
// built from; a command meeting another record is refused whole with 409 STALE_WRITE, the same
// way on every replica. Also the fingerprint itself: deterministic, over the stored JSON text.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { Proposer } from '../../../src/actors/proposer.js';
import { recordFingerprint, type Command, type Entity, type Op } from '../../../src/domain/commands.js';
import { ApiError } from '../../../src/errors.js';
import { MemoryLog } from '../../../src/log/memory-log.js';
import { recordKey } from '../../../src/store/keys.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import { Replica } from '../../../src/store/replica.js';
import { record } from '../../support/memory-store.js';

const BASE: Op[] = [
  { op: 'create', kind: 'identity-types', record: record('Default', { name: 'Default' }) },
  { op: 'create', kind: 'auth-policies', record: record('default', { name: 'Default', primary: {}, secondary: {} }) },
];

function identity(id: string, fields: Record<string, unknown> = {}): Entity {
  return record(id, { name: `name-${id}`, typeId: 'Default', isAdmin: false, authPolicyId: 'default', roleAttributes: [], ...fields });
}

async function replicaOn(log: MemoryLog<Command>): Promise<{ kv: MemoryKv; replica: Replica }> {
  const kv = new MemoryKv();
  await kv.open();
  const replica = new Replica(kv);
  await replica.open();
  log.followBatches(0, (entries) => replica.applyBatch(entries));
  return { kv, replica };
}

/** Two replicas following one log (two nodes), the first with a proposer; i1 and i2 exist. */
async function setup() {
  const log = new MemoryLog<Command>();
  await log.open();
  const a = await replicaOn(log);
  const b = await replicaOn(log);
  const proposer = new Proposer(log, a.replica, 'node-a');
  await proposer.propose([...BASE, { op: 'create', kind: 'identities', record: identity('i1') }, { op: 'create', kind: 'identities', record: identity('i2') }]);
  const stored = async (id: string) => (await a.replica.get('identities', id))!;
  return { log, a, b, proposer, stored };
}

async function staleError(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(() => assert.fail('expected STALE_WRITE'), (e: unknown) => e);
  assert.ok(err instanceof ApiError);
  assert.equal(err.code, 'STALE_WRITE');
  return err;
}

describe('apply - expected records', () => {
  it('applies an update whose expect is the stored record', async () => {
    const { proposer, stored } = await setup();
    const old = await stored('i1');
    await proposer.propose([{ op: 'update', kind: 'identities', record: { ...old, name: 'renamed' }, expect: recordFingerprint(old) }]);
    assert.equal((await stored('i1')).name, 'renamed');
  });

  it('refuses a stale update with 409 STALE_WRITE and applies nothing of its command', async () => {
    const { a, proposer, stored } = await setup();
    const read = await stored('i1');
    await proposer.propose([{ op: 'set', kind: 'identities', id: 'i1', fields: { isAdmin: true } }]);
    const err = await staleError(proposer.propose([
      { op: 'set', kind: 'identities', id: 'i2', fields: { name: 'i2-renamed' } },
      { op: 'update', kind: 'identities', record: { ...read, name: 'lost' }, expect: recordFingerprint(read) },
      { op: 'create', kind: 'identities', record: identity('i3') },
    ]));
    assert.equal(err.status, 409);
    assert.equal(err.message, 'the entity changed while this write was prepared; retry');
    assert.deepEqual([(await stored('i1')).name, (await stored('i1')).isAdmin], ['name-i1', true]);
    assert.equal((await stored('i2')).name, 'name-i2');
    assert.equal(await a.replica.get('identities', 'i3'), undefined);
  });

  it('checks set and delete expectations too', async () => {
    const { a, proposer, stored } = await setup();
    const read = await stored('i1');
    await proposer.propose([{ op: 'set', kind: 'identities', id: 'i1', fields: { isAdmin: true } }]);
    await staleError(proposer.propose([{ op: 'set', kind: 'identities', id: 'i1', fields: { name: 'x' }, expect: recordFingerprint(read) }]));
    await staleError(proposer.propose([{ op: 'delete', kind: 'identities', id: 'i1', expect: recordFingerprint(read) }]));
    assert.equal((await stored('i1')).name, 'name-i1');
    const fresh = await stored('i1');
    await proposer.propose([{ op: 'delete', kind: 'identities', id: 'i1', expect: recordFingerprint(fresh) }]);
    assert.equal(await a.replica.get('identities', 'i1'), undefined);
  });

  it('checks every expectation against the state before the command, not after its earlier ops', async () => {
    const { proposer, stored } = await setup();
    const read = await stored('i1');
    const expect = recordFingerprint(read);
    await proposer.propose([
      { op: 'set', kind: 'identities', id: 'i1', fields: { name: 'first' }, expect },
      { op: 'set', kind: 'identities', id: 'i1', fields: { isAdmin: true }, expect },
    ]);
    assert.deepEqual([(await stored('i1')).name, (await stored('i1')).isAdmin], ['first', true]);
  });

  it('leaves a missing record to the op: NOT_FOUND, or nothing with ifExists', async () => {
    const { proposer, stored } = await setup();
    const read = await stored('i2');
    await proposer.propose([{ op: 'delete', kind: 'identities', id: 'i2' }]);
    await assert.rejects(proposer.propose([{ op: 'update', kind: 'identities', record: read, expect: recordFingerprint(read) }]), { code: 'NOT_FOUND' });
    await proposer.propose([{ op: 'set', kind: 'identities', id: 'i2', fields: { name: 'z' }, ifExists: true, expect: recordFingerprint(read) }]);
  });

  it('refuses the same command the same way on every replica', async () => {
    const { log, a, b, proposer, stored } = await setup();
    const read = await stored('i1');
    await proposer.propose([{ op: 'set', kind: 'identities', id: 'i1', fields: { isAdmin: true } }]);
    const seq = await log.append({ at: read.updatedAt, origin: 'node-b', ops: [{ op: 'update', kind: 'identities', record: { ...read, name: 'lost' }, expect: recordFingerprint(read) }] });
    const [onA, onB] = await Promise.all([a.replica.waitFor(seq), b.replica.waitFor(seq)]);
    assert.equal(onA.ok, false);
    assert.deepEqual(onB, onA);
    assert.equal((await b.replica.get('identities', 'i1'))!.name, 'name-i1');
    assert.equal(await a.kv.get(recordKey('identities', 'i1')), await b.kv.get(recordKey('identities', 'i1')));
  });
});

describe('recordFingerprint', () => {
  it('is base64url of the first 12 bytes of SHA-256 over the stored JSON text', async () => {
    const { a, stored } = await setup();
    const text = (await a.kv.get(recordKey('identities', 'i1')))!;
    const expected = createHash('sha256').update(text).digest().subarray(0, 12).toString('base64url');
    assert.equal(recordFingerprint(await stored('i1')), expected);
    assert.match(expected, /^[A-Za-z0-9_-]{16}$/);
  });

  it('is the same for a record read on another replica, and for the record it was written from', async () => {
    const { b, proposer, stored } = await setup();
    // Integer-like keys, nesting, fractions and nulls: the JSON text round-trips unchanged.
    const written = identity('i4', { tags: { b: 'x', '2': 'two', a: { b: [1, 2.5, null] } } });
    await proposer.propose([{ op: 'create', kind: 'identities', record: written }]);
    const onA = await stored('i4');
    const onB = (await b.replica.get('identities', 'i4'))!;
    assert.equal(recordFingerprint(onA), recordFingerprint(written));
    assert.equal(recordFingerprint(onB), recordFingerprint(written));
  });

  it('changes when any field changes', async () => {
    const one = identity('i1');
    assert.notEqual(recordFingerprint({ ...one, updatedAt: '2026-01-01T00:00:00.001Z' }), recordFingerprint(one));
    assert.notEqual(recordFingerprint({ ...one, roleAttributes: ['x'] }), recordFingerprint(one));
  });
});
