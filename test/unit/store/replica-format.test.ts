// The replica's data format: a store written before format 2 (one reverse `b` key per policy
// link, no format key) is upgraded when the replica opens, and a format this code does not
// know stops the open with an error that says what to do.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entity, Op } from '../../../src/domain/commands.js';
import type { Kind } from '../../../src/domain/registry.js';
import { checkAccessIndex } from '../../../src/store/access-check.js';
import { AccessReader } from '../../../src/store/access-reader.js';
import { FORMAT_KEY, REPLICA_FORMAT, splitPolicyIds } from '../../../src/store/keys.js';
import type { KvOp } from '../../../src/store/kv.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import { Replica } from '../../../src/store/replica.js';
import { memoryStore } from '../../support/memory-store.js';

const AT = '2026-01-01T00:00:00.000Z';
const base = (id: string, fields: Record<string, unknown>): Entity => ({ id, createdAt: AT, updatedAt: AT, tags: {}, ...fields });
const create = (kind: Kind, record: Entity): Op => ({ op: 'create', kind, record });
const identity = (id: string, attrs: string[]) => base(id, { name: id, typeId: 'User', isAdmin: false, roleAttributes: attrs, authPolicyId: null, externalId: null });
const policy = (id: string, identityRoles: string[]) =>
  base(id, { name: id, semantic: 'AnyOf', type: 'Dial', identityRoles, serviceRoles: ['#all'], postureCheckRoles: [] });

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of it) out.push(item);
  return out;
}

/** A replica's store, rewritten the way format 1 kept it. */
async function formatOneStore(): Promise<MemoryKv> {
  const { kv, proposer } = await memoryStore();
  await proposer.propose([
    create('identity-types', base('User', { name: 'User' })),
    ...['alice', 'bob', 'carol'].map((id, i) => create('identities', identity(id, i === 2 ? [] : ['sales']))),
    create('services', base('web', { name: 'web', encryptionRequired: true, roleAttributes: [], configs: [] })),
    create('service-policies', policy('p1', ['#sales'])),
    create('service-policies', policy('p2', ['@alice', '@carol'])),
    create('edge-router-policies', base('e1', { name: 'e1', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: [] })),
  ], AT);
  const ops: KvOp[] = [{ type: 'del', key: FORMAT_KEY }];
  for await (const [key, value] of kv.entries({ gt: 'e\x00', lt: 'e\x00\xff' })) {
    ops.push({ type: 'del', key });
    for (const policyId of splitPolicyIds(value)) ops.push({ type: 'put', key: `b${key.slice(1)}\x00${policyId}`, value: '' });
  }
  await kv.batch(ops);
  return kv;
}

describe('replica data format', () => {
  it('a new store is marked with the current format', async () => {
    const kv = new MemoryKv();
    await kv.open();
    await new Replica(kv).open();
    assert.equal(await kv.get(FORMAT_KEY), String(REPLICA_FORMAT));
  });

  it('upgrades format 1 reverse links to one policy list per entity and policy kind', async () => {
    const kv = await formatOneStore();
    assert.equal((await collect(kv.keys({ gt: 'b\x00', lt: 'b\x00\xff' }))).length, 9);
    const replica = new Replica(kv);
    await replica.open();
    assert.equal(await kv.get(FORMAT_KEY), String(REPLICA_FORMAT));
    assert.deepEqual(await collect(kv.keys({ gt: 'b\x00', lt: 'b\x00\xff' })), []);
    assert.deepEqual(await checkAccessIndex(kv), []);
    const reader = new AccessReader(replica);
    assert.deepEqual(await reader.policiesOf('identities', 'alice', 'service-policies'), ['p1', 'p2']);
    assert.deepEqual(await reader.policiesOf('identities', 'carol', 'service-policies'), ['p2']);
    assert.deepEqual(await reader.policiesOf('identities', 'bob', 'edge-router-policies'), ['e1']);
    assert.deepEqual(await reader.policiesOf('services', 'web', 'service-policies'), ['p1', 'p2']);
    // Opening again finds the current format and changes nothing.
    await new Replica(kv).open();
    assert.deepEqual(await checkAccessIndex(kv), []);
  });

  it('refuses to open a format it does not know, saying what to do', async () => {
    const kv = new MemoryKv();
    await kv.open();
    await kv.batch([{ type: 'put', key: FORMAT_KEY, value: '99' }]);
    await assert.rejects(new Replica(kv).open(), /data format 99.*reads format 2/);
  });
});
