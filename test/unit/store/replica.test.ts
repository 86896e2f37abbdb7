// The replica over both KV stores (MemoryKv, LevelKv): apply results, unique/ref checks, index
// upkeep, guards, cascades, FK refusals, counts across reopen, idempotent apply and waitFor.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ApplyResult, Entity, Op } from '../../../src/domain/commands.js';
import type { Kind } from '../../../src/domain/registry.js';
import { statusOf, type FieldCause } from '../../../src/errors.js';
import type { KvStore } from '../../../src/store/kv.js';
import { CachedKv } from '../../../src/store/cached-kv.js';
import { LevelKv } from '../../../src/store/level-kv.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import { Replica, type AppliedEvent } from '../../../src/store/replica.js';
import { recordKey } from '../../../src/store/keys.js';
import { delegatingKv } from '../../support/delegating-kv.js';

/** A fresh, not yet opened store; reopen() closes it and returns a store over the same data. */
type StoreFactory = () => Promise<{ kv: KvStore; reopen(): Promise<KvStore>; cleanup(): Promise<void> }>;

const AT = '2024-01-01T00:00:00.000Z';

function base(id: string, fields: Record<string, unknown>): Entity {
  return { id, createdAt: AT, updatedAt: AT, tags: {}, ...fields };
}

function identity(id: string, fields: Record<string, unknown> = {}): Entity {
  return base(id, {
    name: `name-${id}`,
    type: 'Default',
    typeId: 'Default',
    isAdmin: false,
    isDefaultAdmin: false,
    roleAttributes: [],
    authPolicyId: 'default',
    externalId: null,
    ...fields,
  });
}

function apiSession(id: string, identityId: string, fields: Record<string, unknown> = {}): Entity {
  return base(id, { identityId, tokenHash: `hash-${id}`, authenticatorId: null, lastActivityAt: AT, ...fields });
}

function authenticator(id: string, identityId: string, fields: Record<string, unknown> = {}): Entity {
  return base(id, { identityId, method: 'updb', username: `user-${id}`, fingerprint: null, passwordHash: 'h', salt: 's', ...fields });
}

function authPolicy(id: string, name: string): Entity {
  return base(id, { name, primary: { updb: { allowed: true } }, secondary: { requireTotp: false } });
}

const create = (kind: Kind, record: Entity): Op => ({ op: 'create', kind, record });

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of it) out.push(item);
  return out;
}

/** A replica over one store with a log sequence of its own. */
class Harness {
  seq = 0;
  replica: Replica;

  constructor(
    public kv: KvStore,
    private readonly reopenKv: () => Promise<KvStore>,
  ) {
    this.replica = new Replica(kv);
  }

  async open(): Promise<void> {
    await this.kv.open();
    await this.replica.open();
  }

  /** Appends one command at the next sequence and returns its apply result. */
  async run(...ops: Op[]): Promise<ApplyResult> {
    const seq = ++this.seq;
    await this.replica.apply({ seq, command: { at: AT, origin: 'test', ops } });
    return this.replica.waitFor(seq, 1000);
  }

  async seed(): Promise<void> {
    const result = await this.run(
      create('identity-types', base('Default', { name: 'Default' })),
      create('identity-types', base('Router', { name: 'Router' })),
      create('auth-policies', authPolicy('default', 'Default')),
    );
    assert.deepEqual(result, { ok: true });
  }

  /** Closes the store and opens a new Replica over the same data. */
  async reopen(): Promise<void> {
    this.kv = await this.reopenKv();
    await this.kv.open();
    this.replica = new Replica(this.kv);
    await this.replica.open();
  }
}

function expectError(result: ApplyResult, code: string, field?: string): void {
  assert.equal(result.ok, false, `expected ${code}, got ok`);
  if (result.ok) return;
  assert.equal(result.error.code, code, JSON.stringify(result.error));
  if (field !== undefined) assert.equal((result.error.cause as FieldCause | undefined)?.field, field);
}

/** Registers the replica tests against one store, each named `${name} replica - ...`. */
function runReplicaSuite(name: string, factory: StoreFactory): void {
  const it = (title: string, body: (h: Harness) => Promise<void>): void => {
    test(`${name} replica - ${title}`, async () => {
      const { kv, reopen, cleanup } = await factory();
      const h = new Harness(kv, reopen);
      await h.open();
      try {
        await h.seed();
        await body(h);
      } finally {
        await h.kv.close();
        await cleanup();
      }
    });
  };

  it('creates an entity and reads it back by id, by many ids and by unique field', async (h) => {
    const record = identity('id1', { name: 'Alice', roleAttributes: ['a'] });
    assert.deepEqual(await h.run(create('identities', record)), { ok: true });
    assert.deepEqual(await h.replica.get('identities', 'id1'), record);
    assert.equal(await h.replica.get('identities', 'missing'), undefined);
    assert.deepEqual(await h.replica.getMany('identities', ['missing', 'id1']), [undefined, record]);
    assert.deepEqual(await h.replica.findUnique('identities', 'name', 'Alice'), record);
    assert.equal(await h.replica.findUnique('identities', 'name', 'Bob'), undefined);
    assert.equal(h.replica.count('identities'), 1);
  });

  it('idsWhereList answers from its kept range until a commit writes that index', async (h) => {
    await h.run(create('identities', identity('u1', { name: 'U1' })));
    await h.run(create('authenticators', authenticator('a2', 'u1')), create('authenticators', authenticator('a1', 'u1')));
    assert.deepEqual(await h.replica.idsWhereList('authenticators', 'identityId', 'u1'), ['a1', 'a2']);
    assert.deepEqual(await h.replica.idsWhereList('authenticators', 'identityId', 'u1'), ['a1', 'a2']);
    assert.deepEqual(await h.replica.idsWhereList('authenticators', 'identityId', 'nobody'), []);
    await h.run({ op: 'delete', kind: 'authenticators', id: 'a1' });
    assert.deepEqual(await h.replica.idsWhereList('authenticators', 'identityId', 'u1'), ['a2']);
    await h.run(create('authenticators', authenticator('a3', 'u1')));
    assert.deepEqual(await h.replica.idsWhereList('authenticators', 'identityId', 'u1'), ['a2', 'a3']);
    assert.deepEqual(await h.replica.idsWhereList('authenticators', 'identityId', 'u1'), await collect(h.replica.idsWhere('authenticators', 'identityId', 'u1')));
  });

  it('reads records and ranges without keeping them when asked to (a streamed list)', async (h) => {
    await h.run(create('identities', identity('u1', { name: 'U1' })));
    await h.run(create('authenticators', authenticator('a1', 'u1')));
    const [once] = await h.replica.getMany('authenticators', ['a1'], false);
    const [again] = await h.replica.getMany('authenticators', ['a1'], false);
    assert.deepEqual(again, once);
    assert.notEqual(again, once, 'a record read without keeping is decoded again');
    const kept = await h.replica.get('authenticators', 'a1');
    assert.equal(await h.replica.get('authenticators', 'a1'), kept, 'a record read as usual is kept');
    const kv = h.replica.kv;
    const keys = kv.keys.bind(kv);
    let rangeReads = 0;
    kv.keys = (range) => {
      rangeReads++;
      return keys(range);
    };
    for (let i = 0; i < 2; i++) assert.deepEqual(await h.replica.idsWhereList('authenticators', 'identityId', 'u1', false), ['a1']);
    assert.equal(rangeReads, 2, 'a range read without keeping is read from the store each time');
    for (let i = 0; i < 2; i++) assert.deepEqual(await h.replica.idsWhereList('authenticators', 'identityId', 'u1'), ['a1']);
    assert.equal(rangeReads, 3, 'a range read as usual is kept');
  });

  it('reads records and other keys together: one store read for what is not kept', async (h) => {
    const u1 = identity('u1', { name: 'U1' });
    const u2 = identity('u2', { name: 'U2' });
    await h.run(create('identities', u1), create('identities', u2));
    h.replica.dropKeptReads();
    const kv = h.replica.kv;
    const getMany = kv.getMany.bind(kv);
    const get = kv.get.bind(kv);
    const reads: string[][] = [];
    kv.getMany = (keys) => {
      reads.push(keys);
      return getMany(keys);
    };
    kv.get = (key) => {
      reads.push([key]);
      return get(key);
    };
    const refs = [{ kind: 'identities', id: 'u1' }, { kind: 'identities', id: 'missing' }];
    const other = [recordKey('identities', 'u2'), 'z\u0000absent'];
    const first = await h.replica.getWithValues(refs, other);
    assert.deepEqual(first.records, [u1, undefined]);
    assert.deepEqual(JSON.parse(first.values[0]!), u2);
    assert.equal(first.values[1], undefined);
    assert.deepEqual(reads, [[recordKey('identities', 'u1'), recordKey('identities', 'missing'), ...other]], 'records and values in one store read');
    reads.length = 0;
    const kept = await h.replica.get('identities', 'u1');
    assert.equal(kept, first.records[0], 'the record read with the values is kept');
    const second = await h.replica.getWithValues([{ kind: 'identities', id: 'u1' }], other);
    assert.equal(second.records[0], kept);
    assert.deepEqual(second.values, first.values);
    assert.deepEqual(reads, [other], 'a kept record is not read again; the values still are');
  });

  it('rejects a create with an id that exists (COULD_NOT_VALIDATE, field id)', async (h) => {
    await h.run(create('identities', identity('id1', { name: 'first' })));
    const result = await h.run(create('identities', identity('id1', { name: 'second' })));
    expectError(result, 'COULD_NOT_VALIDATE', 'id');
    assert.equal((await h.replica.get('identities', 'id1'))?.name, 'first');
    assert.equal(await h.replica.findUnique('identities', 'name', 'second'), undefined);
    assert.equal(h.replica.count('identities'), 1);
  });

  it('rejects a duplicate unique name with COULD_NOT_VALIDATE and cause.field name', async (h) => {
    await h.run(create('identities', identity('id1', { name: 'same' })));
    const result = await h.run(create('identities', identity('id2', { name: 'same' })));
    expectError(result, 'COULD_NOT_VALIDATE', 'name');
    assert.ok(!result.ok);
    assert.equal((result.error.cause as FieldCause).reason, 'name must be unique');
    assert.equal(statusOf(result.error.code), 400);
    assert.equal(await h.replica.get('identities', 'id2'), undefined);
  });

  it('rejects two creates of one name within the same command', async (h) => {
    const result = await h.run(
      create('identities', identity('id1', { name: 'twin' })),
      create('identities', identity('id2', { name: 'twin' })),
    );
    expectError(result, 'COULD_NOT_VALIDATE', 'name');
    assert.equal(h.replica.count('identities'), 0);
  });

  it('applies nothing of a command when a later op fails (atomic)', async (h) => {
    await h.run(create('identities', identity('taken', { name: 'taken' })));
    const result = await h.run(
      create('identities', identity('good', { name: 'good', roleAttributes: ['fresh'], isAdmin: true })),
      create('api-sessions', apiSession('s1', 'good')),
      create('identities', identity('bad', { name: 'taken' })),
    );
    expectError(result, 'COULD_NOT_VALIDATE', 'name');
    assert.equal(await h.replica.get('identities', 'good'), undefined);
    assert.equal(await h.replica.get('api-sessions', 's1'), undefined);
    assert.equal(await h.replica.findUnique('identities', 'name', 'good'), undefined);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'roleAttributes', 'fresh')), []);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'isAdmin', true)), []);
    assert.deepEqual(await collect(h.replica.idsWhere('api-sessions', 'identityId', 'good')), []);
    assert.equal(h.replica.count('identities'), 1);
    assert.equal(h.replica.count('api-sessions'), 0);
    // The names the failed command wanted are still free.
    assert.deepEqual(await h.run(create('identities', identity('good', { name: 'good' }))), { ok: true });
  });

  it('update replaces the record and moves its index entries', async (h) => {
    await h.run(create('identities', identity('id1', { name: 'old', isAdmin: false, roleAttributes: ['x', 'y'] })));
    const updated = identity('id1', { name: 'new', isAdmin: true, roleAttributes: ['y', 'z'] });
    assert.deepEqual(await h.run({ op: 'update', kind: 'identities', record: updated }), { ok: true });
    assert.deepEqual(await h.replica.get('identities', 'id1'), updated);
    assert.equal(await h.replica.findUnique('identities', 'name', 'old'), undefined);
    assert.equal((await h.replica.findUnique('identities', 'name', 'new'))?.id, 'id1');
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'name', 'old')), []);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'name', 'new')), ['id1']);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'isAdmin', false)), []);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'isAdmin', true)), ['id1']);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'roleAttributes', 'x')), []);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'roleAttributes', 'y')), ['id1']);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'roleAttributes', 'z')), ['id1']);
    assert.equal(h.replica.count('identities'), 1);
    // The released name can be taken by someone else.
    assert.deepEqual(await h.run(create('identities', identity('id2', { name: 'old' }))), { ok: true });
  });

  it('update keeping its own unique name is accepted', async (h) => {
    await h.run(create('identities', identity('id1', { name: 'mine' })));
    const result = await h.run({ op: 'update', kind: 'identities', record: identity('id1', { name: 'mine', isAdmin: true }) });
    assert.deepEqual(result, { ok: true });
  });

  it('update to a name held by another entity is rejected with field name', async (h) => {
    await h.run(create('identities', identity('id1', { name: 'one' })), create('identities', identity('id2', { name: 'two' })));
    const result = await h.run({ op: 'update', kind: 'identities', record: identity('id2', { name: 'one' }) });
    expectError(result, 'COULD_NOT_VALIDATE', 'name');
    assert.equal((await h.replica.get('identities', 'id2'))?.name, 'two');
    assert.equal((await h.replica.findUnique('identities', 'name', 'one'))?.id, 'id1');
  });

  it('update of a missing entity is NOT_FOUND', async (h) => {
    expectError(await h.run({ op: 'update', kind: 'identities', record: identity('ghost') }), 'NOT_FOUND');
    assert.equal(h.replica.count('identities'), 0);
  });

  it('set merges fields and maintains indexes', async (h) => {
    await h.run(create('identities', identity('id1', { name: 'before', roleAttributes: ['r1'], isAdmin: false })));
    const result = await h.run({ op: 'set', kind: 'identities', id: 'id1', fields: { name: 'after', roleAttributes: ['r2'], id: 'hijack' } });
    assert.deepEqual(result, { ok: true });
    const stored = await h.replica.get('identities', 'id1');
    assert.equal(stored?.name, 'after');
    assert.equal(stored?.id, 'id1');
    assert.equal(stored?.isAdmin, false);
    assert.equal(await h.replica.get('identities', 'hijack'), undefined);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'name', 'before')), []);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'name', 'after')), ['id1']);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'roleAttributes', 'r1')), []);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'roleAttributes', 'r2')), ['id1']);
    assert.equal(await h.replica.findUnique('identities', 'name', 'before'), undefined);
  });

  it('set on a missing entity is NOT_FOUND unless ifExists', async (h) => {
    expectError(await h.run({ op: 'set', kind: 'identities', id: 'ghost', fields: { isAdmin: true } }), 'NOT_FOUND');
    assert.deepEqual(await h.run({ op: 'set', kind: 'identities', id: 'ghost', fields: { isAdmin: true }, ifExists: true }), { ok: true });
    assert.equal(await h.replica.get('identities', 'ghost'), undefined);
  });

  it('set that collides on a unique field is rejected', async (h) => {
    await h.run(create('identities', identity('id1', { name: 'one' })), create('identities', identity('id2', { name: 'two' })));
    expectError(await h.run({ op: 'set', kind: 'identities', id: 'id2', fields: { name: 'one' } }), 'COULD_NOT_VALIDATE', 'name');
  });

  it('rejects a reference to a missing auth policy (field authPolicyId)', async (h) => {
    const result = await h.run(create('identities', identity('id1', { authPolicyId: 'nope' })));
    expectError(result, 'COULD_NOT_VALIDATE', 'authPolicyId');
    assert.ok(!result.ok);
    assert.equal((result.error.cause as FieldCause).value, 'nope');
    assert.equal(await h.replica.get('identities', 'id1'), undefined);
  });

  it('rejects a reference to a missing identity type (field typeId)', async (h) => {
    expectError(await h.run(create('identities', identity('id1', { typeId: 'Robot' }))), 'COULD_NOT_VALIDATE', 'typeId');
  });

  it('rejects an update to a dangling reference', async (h) => {
    await h.run(create('identities', identity('id1')));
    const result = await h.run({ op: 'set', kind: 'identities', id: 'id1', fields: { authPolicyId: 'nope' } });
    expectError(result, 'COULD_NOT_VALIDATE', 'authPolicyId');
    assert.equal((await h.replica.get('identities', 'id1'))?.authPolicyId, 'default');
  });

  it('accepts a reference to an entity created earlier in the same command', async (h) => {
    const result = await h.run(
      create('auth-policies', authPolicy('p1', 'Policy 1')),
      create('identities', identity('id1', { authPolicyId: 'p1' })),
      create('api-sessions', apiSession('s1', 'id1')),
    );
    assert.deepEqual(result, { ok: true });
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'authPolicyId', 'p1')), ['id1']);
  });

  it('accepts null for a nullable reference and for unique fields, many times', async (h) => {
    const result = await h.run(
      create('identities', identity('id1', { authPolicyId: null, externalId: null })),
      create('identities', identity('id2', { authPolicyId: null, externalId: null })),
    );
    assert.deepEqual(result, { ok: true });
    assert.equal(await h.replica.findUnique('identities', 'externalId', null), undefined);
  });

  it('rejects a duplicate externalId (field externalId)', async (h) => {
    await h.run(create('identities', identity('id1', { externalId: 'ext' })));
    expectError(await h.run(create('identities', identity('id2', { externalId: 'ext' }))), 'COULD_NOT_VALIDATE', 'externalId');
  });

  it('deleting an identity cascades to its api sessions and authenticators', async (h) => {
    await h.run(
      create('identities', identity('id1')),
      create('identities', identity('id2')),
      create('api-sessions', apiSession('s1', 'id1')),
      create('api-sessions', apiSession('s2', 'id1')),
      create('api-sessions', apiSession('s3', 'id2')),
      create('authenticators', authenticator('a1', 'id1')),
      create('authenticators', authenticator('a2', 'id2')),
    );
    assert.deepEqual(await h.run({ op: 'delete', kind: 'identities', id: 'id1' }), { ok: true });
    assert.equal(await h.replica.get('identities', 'id1'), undefined);
    assert.deepEqual(await h.replica.getMany('api-sessions', ['s1', 's2']), [undefined, undefined]);
    assert.equal(await h.replica.get('authenticators', 'a1'), undefined);
    assert.equal((await h.replica.get('api-sessions', 's3'))?.identityId, 'id2');
    assert.equal((await h.replica.get('authenticators', 'a2'))?.identityId, 'id2');
    assert.deepEqual(await collect(h.replica.idsWhere('api-sessions', 'identityId', 'id1')), []);
    assert.deepEqual(await collect(h.replica.idsWhere('authenticators', 'identityId', 'id1')), []);
    assert.equal(await h.replica.findUnique('api-sessions', 'tokenHash', 'hash-s1'), undefined);
    assert.equal(await h.replica.findUnique('authenticators', 'username', 'user-a1'), undefined);
    assert.equal(await h.replica.findUnique('identities', 'name', 'name-id1'), undefined);
    assert.equal(h.replica.count('identities'), 1);
    assert.equal(h.replica.count('api-sessions'), 1);
    assert.equal(h.replica.count('authenticators'), 1);
  });

  it('refuses to delete the default admin with ENTITY_CAN_NOT_BE_DELETED (400)', async (h) => {
    await h.run(create('identities', identity('admin', { isAdmin: true, isDefaultAdmin: true })), create('api-sessions', apiSession('s1', 'admin')));
    const result = await h.run({ op: 'delete', kind: 'identities', id: 'admin' });
    expectError(result, 'ENTITY_CAN_NOT_BE_DELETED');
    assert.equal(statusOf('ENTITY_CAN_NOT_BE_DELETED'), 400);
    assert.ok(await h.replica.get('identities', 'admin'));
    assert.ok(await h.replica.get('api-sessions', 's1'));
    assert.equal(h.replica.count('identities'), 1);
  });

  it('refuses to delete an identity type', async (h) => {
    expectError(await h.run({ op: 'delete', kind: 'identity-types', id: 'Router' }), 'ENTITY_CAN_NOT_BE_DELETED');
    assert.ok(await h.replica.get('identity-types', 'Router'));
  });

  it('refuses to delete a referenced auth policy with CAN_NOT_DELETE_REFERENCED_ENTITY (409)', async (h) => {
    await h.run(create('auth-policies', authPolicy('p1', 'P1')), create('identities', identity('id1', { authPolicyId: 'p1' })));
    const result = await h.run({ op: 'delete', kind: 'auth-policies', id: 'p1' });
    expectError(result, 'CAN_NOT_DELETE_REFERENCED_ENTITY', 'id');
    assert.equal(statusOf('CAN_NOT_DELETE_REFERENCED_ENTITY'), 409);
    assert.ok(!result.ok);
    assert.match((result.error.cause as FieldCause).reason, /referenced by identity: \[id1\]/);
    assert.ok(await h.replica.get('auth-policies', 'p1'));
    assert.equal(h.replica.count('auth-policies'), 2);
  });

  it('never deletes the default auth policy', async (h) => {
    const result = await h.run({ op: 'delete', kind: 'auth-policies', id: 'default' });
    assert.ok(!result.ok);
    assert.ok(await h.replica.get('auth-policies', 'default'));
  });

  it('deletes an auth policy once nothing references it', async (h) => {
    await h.run(create('auth-policies', authPolicy('p1', 'P1')), create('identities', identity('id1', { authPolicyId: 'p1' })));
    expectError(await h.run({ op: 'delete', kind: 'auth-policies', id: 'p1' }), 'CAN_NOT_DELETE_REFERENCED_ENTITY');
    assert.deepEqual(
      await h.run({ op: 'delete', kind: 'identities', id: 'id1' }, { op: 'delete', kind: 'auth-policies', id: 'p1' }),
      { ok: true },
    );
    assert.equal(await h.replica.get('auth-policies', 'p1'), undefined);
    assert.equal(await h.replica.findUnique('auth-policies', 'name', 'P1'), undefined);
  });

  it('refuses a referenced delete even when the first referrers were deleted in the same command', async (h) => {
    const ids = Array.from({ length: 12 }, (_, i) => `id${String(i).padStart(2, '0')}`);
    await h.run(create('auth-policies', authPolicy('p1', 'P1')), ...ids.map((id) => create('identities', identity(id, { authPolicyId: 'p1' }))));
    // Deletes the 10 lowest ids (in index order), then the policy: id10 and id11 still reference it.
    const result = await h.run(
      ...ids.slice(0, 10).map((id): Op => ({ op: 'delete', kind: 'identities', id })),
      { op: 'delete', kind: 'auth-policies', id: 'p1' },
    );
    expectError(result, 'CAN_NOT_DELETE_REFERENCED_ENTITY', 'id');
    assert.ok(await h.replica.get('auth-policies', 'p1'));
    assert.equal(h.replica.count('identities'), 12);
  });

  it('delete of a missing entity is NOT_FOUND unless ifExists', async (h) => {
    expectError(await h.run({ op: 'delete', kind: 'identities', id: 'ghost' }), 'NOT_FOUND');
    assert.deepEqual(await h.run({ op: 'delete', kind: 'identities', id: 'ghost', ifExists: true }), { ok: true });
  });

  it('deleteWhere removes every entity whose indexed field equals the value', async (h) => {
    await h.run(
      create('identities', identity('id1')),
      create('identities', identity('id2')),
      ...['s1', 's2', 's3'].map((id) => create('api-sessions', apiSession(id, 'id1'))),
      create('api-sessions', apiSession('s4', 'id2')),
    );
    const result = await h.run({ op: 'deleteWhere', kind: 'api-sessions', field: 'identityId', value: 'id1' });
    assert.deepEqual(result, { ok: true });
    assert.deepEqual(await h.replica.getMany('api-sessions', ['s1', 's2', 's3', 's4']).then((r) => r.map((e) => e?.id)), [
      undefined,
      undefined,
      undefined,
      's4',
    ]);
    assert.equal(h.replica.count('api-sessions'), 1);
    assert.ok(await h.replica.get('identities', 'id1'));
    // Nothing matching is not an error.
    assert.deepEqual(await h.run({ op: 'deleteWhere', kind: 'api-sessions', field: 'identityId', value: 'none' }), { ok: true });
  });

  it('deleteWhere runs the cascades of each deleted entity', async (h) => {
    await h.run(
      create('identities', identity('id1', { roleAttributes: ['doomed'] })),
      create('identities', identity('id2', { roleAttributes: ['doomed', 'x'] })),
      create('identities', identity('id3', { roleAttributes: ['x'] })),
      create('api-sessions', apiSession('s1', 'id1')),
      create('authenticators', authenticator('a2', 'id2')),
    );
    assert.deepEqual(await h.run({ op: 'deleteWhere', kind: 'identities', field: 'roleAttributes', value: 'doomed' }), { ok: true });
    assert.equal(h.replica.count('identities'), 1);
    assert.equal(h.replica.count('api-sessions'), 0);
    assert.equal(h.replica.count('authenticators'), 0);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'roleAttributes', 'x')), ['id3']);
  });

  it('keeps counts through creates, deletes and rejections, and after reopening', async (h) => {
    await h.run(...['a', 'b', 'c'].map((id) => create('identities', identity(id))), create('api-sessions', apiSession('s1', 'a')));
    await h.run({ op: 'delete', kind: 'identities', id: 'b' });
    await h.run(create('identities', identity('d', { name: 'name-a' }))); // rejected
    await h.run(create('identities', identity('e')), { op: 'delete', kind: 'identities', id: 'e' }); // net zero
    const expected = { identities: 3 - 1, 'api-sessions': 1, 'identity-types': 2, 'auth-policies': 1, authenticators: 0 };
    const counts = () => Object.fromEntries(Object.keys(expected).map((k) => [k, h.replica.count(k)]));
    assert.deepEqual(counts(), expected);
    const seq = h.replica.appliedSeq;
    assert.equal(seq, h.seq);
    await h.reopen();
    assert.deepEqual(counts(), expected);
    assert.equal(h.replica.appliedSeq, seq);
    assert.equal((await h.replica.get('identities', 'a'))?.name, 'name-a');
    // Applying continues after the reopened sequence.
    assert.deepEqual(await h.run(create('identities', identity('f'))), { ok: true });
    assert.equal(h.replica.count('identities'), 3);
  });

  it('ignores an entry whose seq was already applied', async (h) => {
    await h.run(create('identities', identity('id1')));
    const seq = h.replica.appliedSeq;
    const events: AppliedEvent[] = [];
    h.replica.events.on('applied', (e: AppliedEvent) => events.push(e));
    await h.replica.apply({ seq, command: { at: AT, origin: 'test', ops: [create('identities', identity('id2'))] } });
    await h.replica.apply({ seq: seq - 1, command: { at: AT, origin: 'test', ops: [{ op: 'delete', kind: 'identities', id: 'id1' }] } });
    assert.equal(await h.replica.get('identities', 'id2'), undefined);
    assert.ok(await h.replica.get('identities', 'id1'));
    assert.equal(h.replica.appliedSeq, seq);
    assert.equal(h.replica.count('identities'), 1);
    assert.deepEqual(events, []);
  });

  it('emits applied events with the command and its result, rejections included', async (h) => {
    const events: AppliedEvent[] = [];
    h.replica.events.on('applied', (e: AppliedEvent) => events.push(e));
    await h.run(create('identities', identity('id1')));
    await h.run(create('identities', identity('id1')));
    assert.deepEqual(events.map((e) => [e.seq, e.result.ok]), [
      [h.seq - 1, true],
      [h.seq, false],
    ]);
    assert.equal(events[0].command.ops[0].op, 'create');
  });

  it('waitFor resolves for past and future seqs and with the rejection result', async (h) => {
    const past = h.replica.appliedSeq;
    assert.deepEqual(await h.replica.waitFor(past), { ok: true });
    assert.deepEqual(await h.replica.waitFor(0), { ok: true });
    const future = h.replica.waitFor(past + 2, 2000);
    const next = h.replica.waitFor(past + 1, 2000);
    await h.replica.apply({ seq: past + 1, command: { at: AT, origin: 'test', ops: [create('identities', identity('id1'))] } });
    await h.replica.apply({ seq: past + 2, command: { at: AT, origin: 'test', ops: [create('identities', identity('id2', { name: 'name-id1' }))] } });
    h.seq = past + 2;
    assert.deepEqual(await next, { ok: true });
    const rejected = await future;
    expectError(rejected, 'COULD_NOT_VALIDATE', 'name');
    // A result applied before anyone waited is kept for the proposer.
    const late = await h.run(create('identities', identity('id3', { authPolicyId: 'nope' })));
    expectError(late, 'COULD_NOT_VALIDATE', 'authPolicyId');
  });

  it('waitFor rejects with TIMEOUT when the seq is never applied', async (h) => {
    await assert.rejects(h.replica.waitFor(h.replica.appliedSeq + 5, 20), (err: unknown) => {
      assert.equal((err as { code?: string }).code, 'TIMEOUT');
      return true;
    });
  });

  it('eachDistinctValue lists role attributes once each, in byte order, and reversed', async (h) => {
    await h.run(
      create('identities', identity('id1', { roleAttributes: ['b', 'a', '😀', 'b'] })),
      create('identities', identity('id2', { roleAttributes: ['a', 'Z', 'é', '日本', '\uffff'] })),
      create('identities', identity('id3', { roleAttributes: [] })),
      create('identities', identity('id4', { roleAttributes: ['a\u0000b', 'a\u0001'] })),
    );
    assert.deepEqual(await collect(h.replica.eachDistinctValue('identities', 'roleAttributes')), ['Z', 'a', 'a\u0000b', 'a\u0001', 'b', 'é', '日本', '\uffff', '😀']);
    await h.run({ op: 'delete', kind: 'identities', id: 'id1' });
    assert.deepEqual(await collect(h.replica.eachDistinctValue('identities', 'roleAttributes')), ['Z', 'a', 'a\u0000b', 'a\u0001', 'é', '日本', '\uffff']);
    assert.deepEqual(await collect(h.replica.eachDistinctValue('identities', 'roleAttributes', true)), ['\uffff', '日本', 'é', 'a\u0001', 'a\u0000b', 'a', 'Z']);
    assert.deepEqual(await collect(h.replica.idsWhere('identities', 'roleAttributes', 'a\u0000b')), ['id4']);
  });

  it('idsBelow yields ids whose value is below the bound, nulls first, in value order', async (h) => {
    await h.run(
      create('identities', identity('id1')),
      create('api-sessions', apiSession('late', 'id1', { lastActivityAt: '2024-03-01T00:00:00.000Z' })),
      create('api-sessions', apiSession('mid', 'id1', { lastActivityAt: '2024-02-01T00:00:00.000Z' })),
      create('api-sessions', apiSession('early', 'id1', { lastActivityAt: '2024-01-01T00:00:00.000Z' })),
      create('api-sessions', apiSession('never', 'id1', { lastActivityAt: null })),
      create('api-sessions', apiSession('edge', 'id1', { lastActivityAt: '2024-02-15T00:00:00.000Z' })),
    );
    const bound = '2024-02-15T00:00:00.000Z';
    assert.deepEqual(await collect(h.replica.idsBelow('api-sessions', 'lastActivityAt', bound)), ['never', 'early', 'mid']);
    assert.deepEqual(await collect(h.replica.idsBelow('api-sessions', 'lastActivityAt', new Date(bound))), ['never', 'early', 'mid']);
    // Moving a session's activity forward moves it out of the range.
    await h.run({ op: 'set', kind: 'api-sessions', id: 'early', fields: { lastActivityAt: '2024-04-01T00:00:00.000Z' } });
    assert.deepEqual(await collect(h.replica.idsBelow('api-sessions', 'lastActivityAt', bound)), ['never', 'mid']);
  });

  it('applies a run of entries as one batch; a rejected entry keeps its neighbours and its own error', async (h) => {
    const events: AppliedEvent[] = [];
    h.replica.events.on('applied', (e: AppliedEvent) => events.push(e));
    const entries = [
      [create('identities', identity('id1', { name: 'one' }))],
      // Rejected as a whole: later entries must not see its first op.
      [create('identities', identity('id2', { name: 'two' })), create('identities', identity('id3', { name: 'one' }))],
      // Sees entry 1, applied in the same run.
      [create('authenticators', authenticator('a1', 'id1'))],
      [create('authenticators', authenticator('a2', 'id2'))],
      [create('identities', identity('id4', { name: 'two' }))],
    ].map((ops) => ({ seq: ++h.seq, command: { at: AT, origin: 'test', ops } }));
    await h.replica.applyBatch(entries);
    const results = await Promise.all(entries.map((e) => h.replica.waitFor(e.seq, 1000)));
    assert.deepEqual(results.map((r) => r.ok), [true, false, true, false, true]);
    expectError(results[1], 'COULD_NOT_VALIDATE', 'name');
    expectError(results[3], 'COULD_NOT_VALIDATE', 'identityId');
    assert.deepEqual(events.map((e) => [e.seq, e.result.ok]), entries.map((e, i) => [e.seq, results[i].ok]));
    assert.equal(h.replica.appliedSeq, h.seq);
    const check = async () => {
      assert.equal(h.replica.count('identities'), 2);
      assert.equal(h.replica.count('authenticators'), 1);
      assert.deepEqual(await h.replica.getMany('identities', ['id1', 'id2', 'id3', 'id4']).then((rs) => rs.map((r) => r?.name)), ['one', undefined, undefined, 'two']);
      assert.equal((await h.replica.findUnique('identities', 'name', 'two'))?.id, 'id4');
      assert.deepEqual(await collect(h.replica.idsWhere('authenticators', 'identityId', 'id1')), ['a1']);
    };
    await check();
    await h.reopen();
    await check();
    assert.equal(h.replica.appliedSeq, h.seq);
  });

  it('a run the store refuses is applied entry by entry: only the refused entry is rejected', async (h) => {
    const entries = [
      [create('identities', identity('id1'))],
      [create('identities', identity('id2', { name: 'bad\ud800name' }))],
      [create('identities', identity('id3'))],
    ].map((ops) => ({ seq: ++h.seq, command: { at: AT, origin: 'test', ops } }));
    await h.replica.applyBatch(entries);
    const results = await Promise.all(entries.map((e) => h.replica.waitFor(e.seq, 1000)));
    assert.deepEqual(results.map((r) => r.ok), [true, false, true]);
    assert.equal(h.replica.count('identities'), 2);
    assert.equal(await h.replica.get('identities', 'id2'), undefined);
    assert.equal(h.replica.appliedSeq, h.seq);
  });

  it('records come back deep-frozen, and a write replaces what readers get', async (h) => {
    await h.run(create('identities', identity('id1', { name: 'before', roleAttributes: ['a'], tags: { k: 'v' } })));
    const first = (await h.replica.get('identities', 'id1'))!;
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.roleAttributes) && Object.isFrozen(first.tags));
    assert.throws(() => {
      (first as Record<string, unknown>).name = 'changed';
    }, TypeError);
    assert.throws(() => (first.roleAttributes as string[]).push('b'), TypeError);
    assert.equal((await h.replica.get('identities', 'id1'))?.name, 'before');
    await h.run({ op: 'set', kind: 'identities', id: 'id1', fields: { name: 'after' } });
    assert.equal((await h.replica.get('identities', 'id1'))?.name, 'after');
    assert.equal((await h.replica.getMany('identities', ['id1']))[0]?.name, 'after');
    assert.equal((await h.replica.findUnique('identities', 'name', 'after'))?.id, 'id1');
    await h.run({ op: 'delete', kind: 'identities', id: 'id1' });
    assert.equal(await h.replica.get('identities', 'id1'), undefined);
    assert.deepEqual(await h.replica.getMany('identities', ['id1']), [undefined]);
  });

  it('rejects a value the store cannot encode instead of wedging the apply loop', async (h) => {
    const lone = 'bad\ud800name';
    await h.replica.apply({ seq: ++h.seq, command: { at: AT, origin: 'test', ops: [create('identities', identity('id1', { name: lone }))] } });
    const result = await h.replica.waitFor(h.seq, 1000);
    assert.equal(result.ok, false);
    assert.equal(h.replica.appliedSeq, h.seq);
    assert.equal(h.replica.count('identities'), 0);
    assert.equal(await h.replica.get('identities', 'id1'), undefined);
    assert.deepEqual(await h.run(create('identities', identity('id2'))), { ok: true });
    assert.equal(h.replica.count('identities'), 1);
  });
}

runReplicaSuite('memory-kv', async () => {
  const kv = new MemoryKv();
  return {
    kv,
    reopen: async () => {
      await kv.close();
      return kv;
    },
    cleanup: async () => undefined,
  };
});

for (const [name, Store] of [['cached-kv', CachedKv], ['level-kv', LevelKv]] as const) {
  runReplicaSuite(name, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-replica-'));
    const path = join(dir, 'db');
    const kv = new Store({ path });
    return {
      kv,
      reopen: async () => {
        await kv.close();
        return new Store({ path });
      },
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  });
}

test('replica - a record read while applies write other records is kept; one whose record is written meanwhile is not', async () => {
  const inner = new MemoryKv();
  const watched = recordKey('identities', 'u1');
  let storeReads = 0;
  let gate: Promise<void> | undefined;
  const kv = delegatingKv(inner, {
    get: async (key) => {
      if (key !== watched) return inner.get(key);
      storeReads++;
      await gate;
      return inner.get(key);
    },
  });
  const h = new Harness(kv, async () => kv);
  await h.open();
  try {
    await h.seed();
    assert.deepEqual(await h.run(create('identities', identity('u1')), create('identities', identity('u2'))), { ok: true });
    storeReads = 0; // the create's own check that the id is free

    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const reading = h.replica.get('identities', 'u1');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(storeReads, 1);
    assert.deepEqual(await h.run({ op: 'set', kind: 'identities', id: 'u2', fields: { name: 'other' } }), { ok: true });
    open();
    assert.equal((await reading)?.name, 'name-u1');
    assert.equal((await h.replica.get('identities', 'u1'))?.name, 'name-u1');
    assert.equal(storeReads, 1, 'kept: the commit meanwhile wrote another record');

    assert.deepEqual(await h.run({ op: 'set', kind: 'identities', id: 'u1', fields: { name: 'second' } }), { ok: true });
    gate = new Promise((resolve) => (open = resolve));
    const racing = h.replica.get('identities', 'u1');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(storeReads, 2, 'the commit dropped the kept record');
    assert.deepEqual(await h.run({ op: 'set', kind: 'identities', id: 'u1', fields: { name: 'third' } }), { ok: true });
    open();
    await racing;
    assert.equal((await h.replica.get('identities', 'u1'))?.name, 'third');
    assert.equal(storeReads, 3, 'not kept: a commit wrote the record while it was read');
  } finally {
    await h.kv.close();
  }
});
