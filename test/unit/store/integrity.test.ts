// The data-integrity check and its repairs over a real replica: each kind of corruption written
// straight into the store is found, its repair (applied through the log) removes it, and a
// repair decided before a later write never undoes that write.

import assert from 'node:assert/strict';
import { delegatingKv } from '../../support/delegating-kv.js';
import { memoryStore } from '../../support/memory-store.js';
import { describe, it } from 'node:test';
import type { Entity, Op, Repair } from '../../../src/domain/commands.js';
import type { Kind } from '../../../src/domain/registry.js';
import { checkAccessIndex } from '../../../src/store/access-check.js';
import { checkIntegrity, type IntegrityProblem } from '../../../src/store/integrity.js';
import { TimeSlicer } from '../../../src/store/time-slicer.js';
import { countKey, entityPoliciesKey, indexKey, joinPolicyIds, policyLinkKey, recordKey, uniqueKey } from '../../../src/store/keys.js';

const AT = '2026-01-01T00:00:00.000Z';
const base = (id: string, fields: Record<string, unknown>): Entity => ({ id, createdAt: AT, updatedAt: AT, tags: {}, ...fields });
const identity = (id: string, attrs: string[] = []) =>
  base(id, { name: `name-${id}`, typeId: 'User', isAdmin: false, roleAttributes: attrs, authPolicyId: null, externalId: null });
const create = (kind: Kind, record: Entity): Op => ({ op: 'create', kind, record });

async function setup() {
  const { kv, replica, proposer } = await memoryStore();
  await proposer.propose([
    create('identity-types', base('User', { name: 'User' })),
    create('identities', identity('alice', ['sales'])),
    create('identities', identity('bob')),
    create('services', base('web', { name: 'web', encryptionRequired: true, roleAttributes: [], configs: [] })),
    create('service-policies', base('p1', { name: 'p1', semantic: 'AllOf', type: 'Dial', identityRoles: ['#sales'], serviceRoles: ['@web'], postureCheckRoles: [] })),
    create('authenticators', base('a1', { identityId: 'alice', method: 'updb', username: 'alice-login', fingerprint: null })),
  ], AT);
  const check = async () => {
    const problems: IntegrityProblem[] = [];
    await checkIntegrity(kv, { counts: (kind) => replica.count(kind), onProblem: (p) => void problems.push(p) });
    return problems;
  };
  const repair = (repairs: Repair[]) => proposer.propose(repairs.map((r): Op => ({ op: 'repair', repair: r })), AT);
  return { kv, replica, proposer, check, repair };
}

const find = (problems: IntegrityProblem[], pattern: RegExp) => {
  const found = problems.find((p) => pattern.test(p.description));
  assert.ok(found, `no problem matches ${pattern}:\n${problems.map((p) => p.description).join('\n')}`);
  return found;
};

describe('data integrity check', () => {
  it('finds nothing in a replica that only apply has written', async () => {
    const { check } = await setup();
    assert.deepEqual(await check(), []);
  });

  it('finds nothing when the derived keys kept between chunks are evicted on the way', async () => {
    const { kv, proposer, replica } = await setup();
    // Identities whose role-attribute keys interleave across values, so the index scan names
    // each record again long after it was first read, past a bound of a few records' keys.
    const many = Array.from({ length: 300 }, (_, i) => create('identities', identity(`m${String(i).padStart(3, '0')}`, [`t${i % 7}`, `t${(i * 3) % 11}`, 'all'])));
    await proposer.propose(many, AT);
    // One stale key makes the role-attribute keys be checked one by one (a clean group is not).
    await kv.batch([{ type: 'put', key: indexKey('identities', 'roleAttributes', 't0', 'nobody'), value: '' }]);
    for (const keptKeys of [10_000, 40]) {
      const problems: IntegrityProblem[] = [];
      await checkIntegrity(kv, { counts: (kind) => replica.count(kind), onProblem: (p) => void problems.push(p), keptKeys });
      assert.deepEqual(problems.map((p) => p.description), ['stale index entry identities.roleAttributes = "t0" naming nobody'], `keeping ${keptKeys} keys`);
    }
  });

  it('a clean check reads no record while it looks for stale index keys', async () => {
    const { kv, proposer, replica } = await setup();
    await proposer.propose(Array.from({ length: 50 }, (_, i) => create('identities', identity(`c${i}`, [`t${i % 5}`]))), AT);
    let scanning = false;
    const recordReads: string[] = [];
    const watched = delegatingKv(kv, {
      entries: (range) => {
        if (range.gt === 'i\x00') scanning = true;
        return kv.entries(range);
      },
      getMany: (keys) => {
        if (scanning) recordReads.push(...keys.filter((k) => k.startsWith('r\x00')));
        return kv.getMany(keys);
      },
      get: (key) => {
        if (scanning && key.startsWith('r\x00')) recordReads.push(key);
        return kv.get(key);
      },
    });
    const problems: IntegrityProblem[] = [];
    await checkIntegrity(watched, { counts: (kind) => replica.count(kind), onProblem: (p) => void problems.push(p) });
    assert.deepEqual(problems, []);
    assert.ok(scanning, 'the index keys were scanned');
    assert.deepEqual(recordReads, []);
  });

  it('finds a stale index key in a group where another key is missing (the counts agree)', async () => {
    const { kv, check } = await setup();
    await kv.batch([
      { type: 'del', key: indexKey('identities', 'name', 'name-bob', 'bob') },
      { type: 'put', key: indexKey('identities', 'name', 'ghost', 'nobody'), value: '' },
    ]);
    const problems = await check();
    find(problems, /identity bob: index entry identities\.name = "name-bob" is missing/);
    find(problems, /stale index entry identities\.name = "ghost" naming nobody/);
    assert.equal(problems.length, 2, problems.map((p) => p.description).join('\n'));
  });

  it('finds every planted corruption, and the repairs leave a clean replica', async () => {
    const { kv, replica, check, repair } = await setup();
    await kv.batch([
      { type: 'put', key: indexKey('identities', 'name', 'ghost', 'nobody'), value: '' }, // dangling index entry
      { type: 'del', key: indexKey('identities', 'name', 'name-bob', 'bob') }, // missing index entry
      { type: 'put', key: uniqueKey('identities', 'name', 'phantom'), value: 'nobody' }, // stale unique entry
      { type: 'put', key: policyLinkKey('service-policies', 'p1', 'identities', 'bob'), value: '' }, // stale access link
      { type: 'del', key: entityPoliciesKey('services', 'web', 'service-policies') }, // missing access list
      { type: 'put', key: entityPoliciesKey('identities', 'alice', 'service-policies'), value: joinPolicyIds(['p1', 'p9']) }, // wrong list
      { type: 'put', key: entityPoliciesKey('identities', 'bob', 'edge-router-policies'), value: 'p1' }, // stale list
      { type: 'put', key: policyLinkKey('service-policies', 'p404', 'identities', 'alice'), value: '' }, // link of no policy
      { type: 'put', key: entityPoliciesKey('no-such-kind', 'x1', 'service-policies'), value: 'p1' }, // list of no target kind
      // An authenticator of an identity that no longer exists, indexed as apply would have done.
      { type: 'put', key: recordKey('authenticators', 'a2'), value: JSON.stringify(base('a2', { identityId: 'gone', method: 'updb', username: 'orphan', fingerprint: null })) },
      { type: 'put', key: indexKey('authenticators', 'identityId', 'gone', 'a2'), value: '' },
      { type: 'put', key: indexKey('authenticators', 'method', 'updb', 'a2'), value: '' },
      { type: 'put', key: indexKey('authenticators', 'username', 'orphan', 'a2'), value: '' },
      { type: 'put', key: uniqueKey('authenticators', 'username', 'orphan'), value: 'a2' },
      { type: 'put', key: indexKey('authenticators', 'fingerprint', null, 'a2'), value: '' },
      { type: 'put', key: indexKey('authenticators', 'createdAt', AT, 'a2'), value: '' },
      { type: 'put', key: indexKey('authenticators', 'updatedAt', AT, 'a2'), value: '' },
      { type: 'put', key: countKey('services'), value: '7' }, // wrong count
    ]);
    const problems = await check();
    find(problems, /stale index entry identities\.name = "ghost" naming nobody/);
    find(problems, /identity bob: index entry identities\.name = "name-bob" is missing/);
    find(problems, /stale unique entry identities\.name = "phantom"/);
    find(problems, /stale access link service-policies \/ p1 \/ identities \/ bob/);
    find(problems, /missing access list services \/ web \/ service-policies = \[p1\]/);
    find(problems, /wrong access list identities \/ alice \/ service-policies = \[p1, p9\], should be \[p1\]/);
    find(problems, /stale access list identities \/ bob \/ edge-router-policies = \[p1\]/);
    find(problems, /stale access link service-policies \/ p404 \/ identities \/ alice/);
    find(problems, /stale access list no-such-kind \/ x1 \/ service-policies = \[p1\]/);
    // The access index is compared a chunk of entities at a time: one entity a chunk finds the same.
    const chunked = (await checkAccessIndex(kv, undefined, 1)).map((p) => p.description).sort();
    assert.deepEqual(chunked, (await checkAccessIndex(kv)).map((p) => p.description).sort());
    assert.equal(chunked.length, 6);
    find(problems, /authenticator a2: identityId references missing identity gone/);
    find(problems, /count of services is 7 \(1 in memory\) but 1 records exist/);
    find(problems, /count of authenticators is 1 \(1 in memory\) but 2 records exist/);
    assert.ok(problems.every((p) => p.repair), 'every planted problem can be repaired');

    await repair(problems.map((p) => p.repair!));
    assert.deepEqual(await check(), []);
    assert.equal(await kv.get(entityPoliciesKey('services', 'web', 'service-policies')), 'p1');
    assert.equal(await kv.get(entityPoliciesKey('identities', 'alice', 'service-policies')), 'p1');
    assert.equal(await replica.get('authenticators', 'a2'), undefined, 'the orphan was deleted like a cascade');
    assert.equal(replica.count('authenticators'), 1);
    assert.equal(replica.count('services'), 1);
    assert.equal(await kv.get(countKey('services')), '1');
  });

  it('strips role-list @ids of missing entities and nulls nullable references', async () => {
    const { kv, replica, check, repair } = await setup();
    const policy = (await replica.get('service-policies', 'p1'))!;
    const alice = (await replica.get('identities', 'alice'))!;
    await kv.batch([
      { type: 'put', key: recordKey('service-policies', 'p1'), value: JSON.stringify({ ...policy, identityRoles: ['#sales', '@gone'] }) },
      { type: 'del', key: indexKey('service-policies', 'identityRoles', '#sales', 'p1') },
      { type: 'put', key: indexKey('service-policies', 'identityRoles', '#sales', 'p1'), value: '' },
      { type: 'put', key: indexKey('service-policies', 'identityRoles', '@gone', 'p1'), value: '' },
      { type: 'put', key: recordKey('identities', 'alice'), value: JSON.stringify({ ...alice, authPolicyId: 'no-such-policy' }) },
      { type: 'del', key: indexKey('identities', 'authPolicyId', null, 'alice') },
      { type: 'put', key: indexKey('identities', 'authPolicyId', 'no-such-policy', 'alice'), value: '' },
    ]);
    const problems = await check();
    const roles = find(problems, /service-policy p1: identityRoles references missing identity gone/);
    const authPolicy = find(problems, /identity alice: authPolicyId references missing auth-policy no-such-policy/);
    await repair([roles.repair!, authPolicy.repair!]);
    assert.deepEqual((await replica.get('service-policies', 'p1'))!.identityRoles, ['#sales']);
    assert.equal((await replica.get('identities', 'alice'))!.authPolicyId, null);
    assert.deepEqual(await check(), []);
  });

  it('reports a required reference it cannot repair, without a repair', async () => {
    const { kv, replica, check } = await setup();
    const bob = (await replica.get('identities', 'bob'))!;
    await kv.batch([
      { type: 'put', key: recordKey('identities', 'bob'), value: JSON.stringify({ ...bob, typeId: 'Martian' }) },
      { type: 'del', key: indexKey('identities', 'typeId', 'User', 'bob') },
      { type: 'put', key: indexKey('identities', 'typeId', 'Martian', 'bob'), value: '' },
    ]);
    const problem = find(await check(), /identity bob: typeId references missing identity-type Martian/);
    assert.equal(problem.repair, undefined);
  });

  it('a repair decided before a later write does not undo that write', async () => {
    const { kv, replica, proposer, check, repair } = await setup();
    await kv.batch([
      { type: 'put', key: indexKey('identities', 'name', 'later', 'carol'), value: '' },
      { type: 'del', key: indexKey('identities', 'name', 'name-bob', 'bob') },
    ]);
    const problems = await check();
    const stale = find(problems, /stale index entry identities\.name = "later" naming carol/);
    const missing = find(problems, /identity bob: index entry identities\.name = "name-bob" is missing/);
    // Meanwhile carol is created with that very name, and bob is deleted.
    await proposer.propose([create('identities', { ...identity('carol'), name: 'later' }), { op: 'delete', kind: 'identities', id: 'bob' }], AT);
    await repair([stale.repair!, missing.repair!]);
    assert.equal(await kv.get(indexKey('identities', 'name', 'later', 'carol')), '', 'the entry carol now justifies is kept');
    assert.equal(await kv.get(indexKey('identities', 'name', 'name-bob', 'bob')), undefined, 'no entry is put back for deleted bob');
    assert.equal(replica.count('identities'), 2);
    assert.deepEqual(await check(), []);
  });

  it('a policy-list repair decided before a later write puts what the records call for then', async () => {
    const { kv, proposer, check, repair } = await setup();
    await kv.batch([{ type: 'del', key: entityPoliciesKey('identities', 'alice', 'service-policies') }]);
    const missing = find(await check(), /missing access list identities \/ alice \/ service-policies = \[p1\]/);
    // Meanwhile a second policy selects alice too.
    await proposer.propose([
      create('service-policies', base('p2', { name: 'p2', semantic: 'AllOf', type: 'Bind', identityRoles: ['@alice'], serviceRoles: ['@web'], postureCheckRoles: [] })),
    ], AT);
    await repair([missing.repair!]);
    assert.equal(await kv.get(entityPoliciesKey('identities', 'alice', 'service-policies')), joinPolicyIds(['p1', 'p2']));
    assert.deepEqual(await check(), []);
  });

  it('a stale policy-list repair removes only what the records no longer call for', async () => {
    const { kv, proposer, check, repair } = await setup();
    await kv.batch([{ type: 'put', key: entityPoliciesKey('identities', 'bob', 'service-policies'), value: 'p1' }]);
    const stale = find(await check(), /stale access list identities \/ bob \/ service-policies = \[p1\]/);
    // Meanwhile a second policy selects bob: the list now has a policy it should hold.
    await proposer.propose([
      create('service-policies', base('p2', { name: 'p2', semantic: 'AllOf', type: 'Bind', identityRoles: ['@bob'], serviceRoles: ['@web'], postureCheckRoles: [] })),
    ], AT);
    assert.equal(await kv.get(entityPoliciesKey('identities', 'bob', 'service-policies')), joinPolicyIds(['p1', 'p2']));
    await repair([stale.repair!]);
    assert.equal(await kv.get(entityPoliciesKey('identities', 'bob', 'service-policies')), 'p2');
    assert.deepEqual(await check(), []);
  });

  it('a duplicate unique value is reported without a repair', async () => {
    const { kv, replica, check } = await setup();
    const bob = (await replica.get('identities', 'bob'))!;
    await kv.batch([
      { type: 'put', key: recordKey('identities', 'bob'), value: JSON.stringify({ ...bob, name: 'name-alice' }) },
      { type: 'del', key: indexKey('identities', 'name', 'name-bob', 'bob') },
      { type: 'del', key: uniqueKey('identities', 'name', 'name-bob') },
      { type: 'put', key: indexKey('identities', 'name', 'name-alice', 'bob'), value: '' },
    ]);
    const problem = find(await check(), /identity bob: unique entry identities\.name = "name-alice" is also held by identity alice/);
    assert.equal(problem.repair, undefined);
  });

  it('checks an identity with 20,000 role attributes in linear time, yielding between slices, and finds it clean', async () => {
    const { proposer, kv, replica } = await setup();
    const attrs = Array.from({ length: 20_000 }, (_, i) => `attr-${i}`);
    await proposer.propose([create('identities', identity('wide', attrs))], AT);
    const problems: IntegrityProblem[] = [];
    const slicer = new TimeSlicer(1);
    // Quadratic work (each of the 20,000 index keys re-deriving the record's 20,000 keys: 4e8
    // key builds) would not finish within the test runner's patience; linear work does.
    await checkIntegrity(kv, { counts: (kind) => replica.count(kind), onProblem: (p) => void problems.push(p), slicer });
    assert.deepEqual(problems, []);
    assert.ok(slicer.yields > 10, `the check yielded ${slicer.yields} times`);
  });

  it('asks the store for at most 512 keys a call, however many keys a chunk of records derives', async () => {
    const { proposer, kv, replica } = await setup();
    const attrs = (n: number) => Array.from({ length: 3_000 }, (_, i) => `attr-${n}-${i}`);
    await proposer.propose(Array.from({ length: 4 }, (_, n) => create('identities', identity(`wide-${n}`, attrs(n)))), AT);
    const asked: number[] = [];
    const watched = delegatingKv(kv, { getMany: (keys) => (asked.push(keys.length), kv.getMany(keys)) });
    const problems: IntegrityProblem[] = [];
    await checkIntegrity(watched, { counts: (kind) => replica.count(kind), onProblem: (p) => void problems.push(p) });
    assert.deepEqual(problems, []);
    // The four identities' 12,000 role-attribute keys are one chunk of records: read in pieces.
    assert.ok(asked.reduce((a, b) => a + b, 0) > 12_000, `asked ${asked.length} times`);
    assert.ok(Math.max(...asked) <= 512, `one getMany asked ${Math.max(...asked)} keys`);
  });

  it('still finds a stale index entry of a wide identity among its valid ones', async () => {
    const { proposer, kv, check } = await setup();
    await proposer.propose([create('identities', identity('wide', Array.from({ length: 5000 }, (_, i) => `attr-${i}`)))], AT);
    await kv.batch([{ type: 'put', key: indexKey('identities', 'roleAttributes', 'attr-x', 'wide'), value: '' }]);
    const problems = await check();
    assert.equal(problems.length, 1, problems.map((p) => p.description).join('\n'));
    find(problems, /stale index entry identities.roleAttributes = "attr-x" naming wide/);
  });

  it('takes an API session whose authenticatorId names no authenticator (an ext-jwt signer, a login that raced a delete) as clean', async () => {
    const { proposer, check } = await setup();
    const session = base('s1', { identityId: 'alice', tokenHash: 'h1', authenticatorId: 'signer-or-gone', ipAddress: '', configTypes: [], isMfaRequired: false, isMfaComplete: false, lastActivityAt: AT });
    await proposer.propose([create('api-sessions', session)], AT);
    assert.deepEqual(await check(), []);
  });
});
