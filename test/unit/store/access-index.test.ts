// Property-style check of the access index: random entities, attributes and policies, then
// random mutations (attribute changes, policy edits, deletes). After every step the
// incrementally maintained index must equal a from-scratch evaluation, and access lookups
// must equal a brute-force answer computed from the records alone, at every step (the reader
// keeps member lists between commits).

import assert from 'node:assert/strict';
import { memoryStore } from '../../support/memory-store.js';
import { describe, it } from 'node:test';
import type { Entity, Op } from '../../../src/domain/commands.js';
import { matchesRoles, splitRoles, type Semantic } from '../../../src/domain/policy.js';
import { checkAccessIndex } from '../../../src/store/access-check.js';
import { AccessReader } from '../../../src/store/access-reader.js';

const AT = '2026-01-01T00:00:00.000Z';
const ATTRS = ['a', 'b', 'c', 'd', 'e'];

function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function setup() {
  const { kv, replica, proposer } = await memoryStore();
  const base = (id: string, fields: Record<string, unknown>): Entity => ({ id, createdAt: AT, updatedAt: AT, tags: {}, ...fields });
  await proposer.propose([
    { op: 'create', kind: 'identity-types', record: base('Default', { name: 'Default' }) },
    { op: 'create', kind: 'auth-policies', record: base('default', { name: 'Default', primary: {}, secondary: {} }) },
  ]);
  return { kv, replica, proposer, base };
}

describe('access index (property)', () => {
  // Seeds 6-8 propose four changes at a time, so that they are applied as one run (one store
  // batch); a change a neighbour made impossible is rejected without undoing the others.
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    const group = seed > 5 ? 4 : 1;
    it(`matches a from-scratch evaluation through random changes (seed ${seed}${group > 1 ? ', applied in runs' : ''})`, async () => {
      const rand = prng(seed);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
      const attrs = () => ATTRS.filter(() => rand() < 0.35);
      const { kv, replica, proposer, base } = await setup();
      const identities = Array.from({ length: 30 }, (_, i) => `i${i}`);
      const services = Array.from({ length: 15 }, (_, i) => `s${i}`);
      const alive = { identities: new Set(identities), services: new Set(services) };
      const ops: Op[] = [];
      for (const id of identities) ops.push({ op: 'create', kind: 'identities', record: base(id, { name: id, typeId: 'Default', isAdmin: false, authPolicyId: 'default', roleAttributes: attrs() }) });
      for (const id of services) ops.push({ op: 'create', kind: 'services', record: base(id, { name: id, encryptionRequired: true, roleAttributes: attrs(), configs: [] }) });
      await proposer.propose(ops);
      const roles = (pool: string[]) => {
        const r = rand();
        if (r < 0.1) return ['#all'];
        const out = attrs().map((a) => `#${a}`);
        if (rand() < 0.4) out.push(`@${pick(pool)}`);
        return [...new Set(out)].sort();
      };
      const policy = (id: string): Entity =>
        base(id, {
          name: id,
          type: pick(['Dial', 'Bind']),
          semantic: pick(['AllOf', 'AnyOf']),
          identityRoles: roles([...alive.identities]),
          serviceRoles: roles([...alive.services]),
          postureCheckRoles: [],
        });
      const policies = Array.from({ length: 12 }, (_, i) => `p${i}`);
      await proposer.propose(policies.map((id) => ({ op: 'create', kind: 'service-policies', record: policy(id) })));
      const livePolicies = new Set(policies);
      const reader = new AccessReader(replica);
      let pending: Promise<unknown>[] = [];
      const change = async (ops: Op[]) => {
        pending.push(proposer.propose(ops));
        if (pending.length < group) return;
        const settled = await Promise.allSettled(pending);
        pending = [];
        if (group === 1 && settled[0].status === 'rejected') throw settled[0].reason;
      };

      for (let step = 0; step < 40; step++) {
        const r = rand();
        if (r < 0.35) {
          const id = pick([...alive.identities]);
          await change([{ op: 'set', kind: 'identities', id, fields: { roleAttributes: attrs() } }]);
        } else if (r < 0.55) {
          const id = pick([...alive.services]);
          await change([{ op: 'set', kind: 'services', id, fields: { roleAttributes: attrs() } }]);
        } else if (r < 0.75 && livePolicies.size > 0) {
          const id = pick([...livePolicies]);
          await change([{ op: 'update', kind: 'service-policies', record: policy(id) }]);
        } else if (r < 0.85 && alive.identities.size > 5) {
          const id = pick([...alive.identities]);
          alive.identities.delete(id);
          await change([{ op: 'delete', kind: 'identities', id }]);
        } else if (r < 0.93 && alive.services.size > 3) {
          const id = pick([...alive.services]);
          alive.services.delete(id);
          await change([{ op: 'delete', kind: 'services', id }]);
        } else if (livePolicies.size > 0) {
          const id = pick([...livePolicies]);
          livePolicies.delete(id);
          await change([{ op: 'delete', kind: 'service-policies', id }]);
        }
        if (pending.length === 0) {
          assert.deepEqual(await checkAccessIndex(kv), [], `seed ${seed} step ${step}`);
          // Compared in chunks of two entities: chunk edges neither hide nor invent problems.
          if (step % 5 === 0) assert.deepEqual(await checkAccessIndex(kv, undefined, 2), [], `seed ${seed} step ${step} in chunks`);
          // Answers the reader kept from earlier steps (its member lists) must follow the changes.
          await checkReachable([pick([...alive.identities]), pick([...alive.identities])], `step ${step}`);
        }
      }
      await checkReachable([...alive.identities], 'end');

      /** Brute force: identity → dial services from the records alone, against the reader. */
      async function checkReachable(identityIds: string[], when: string): Promise<void> {
        const allPolicies = (await replica.getMany('service-policies', [...livePolicies])).filter((p): p is Entity => Boolean(p));
        for (const identityId of identityIds) {
          const identity = (await replica.get('identities', identityId))!;
          const expected = new Set<string>();
          for (const p of allPolicies.filter((x) => x.type === 'Dial')) {
            const sem = p.semantic as Semantic;
            if (!matchesRoles(splitRoles(p.identityRoles as string[]), sem, identity)) continue;
            for (const serviceId of alive.services) {
              const service = (await replica.get('services', serviceId))!;
              if (matchesRoles(splitRoles(p.serviceRoles as string[]), sem, service)) expected.add(serviceId);
            }
          }
          const got = await reader.reachable('identities', identityId, 'service-policies', 'services', (p) => p.type === 'Dial');
          assert.deepEqual([...got].sort(), [...expected].sort(), `seed ${seed} ${when} identity ${identityId}`);
          // The records and policy lists read together (policy advice) give the same answers.
          const serviceId = [...alive.services][identityIds.indexOf(identityId) % alive.services.size];
          const service = (await replica.get('services', serviceId))!;
          const [mine, its] = await reader.withPolicies([
            { kind: 'identities', id: identityId, policyKinds: ['service-policies'] },
            { kind: 'services', id: serviceId, policyKinds: ['service-policies'] },
          ]);
          assert.deepEqual([mine.record, its.record], [identity, service]);
          const granting = allPolicies.filter((p) => {
            const sem = p.semantic as Semantic;
            return matchesRoles(splitRoles(p.identityRoles as string[]), sem, identity) && matchesRoles(splitRoles(p.serviceRoles as string[]), sem, service);
          });
          const granted = await reader.grantingOf(mine.policies[0], its.policies[0]);
          assert.deepEqual(granted.map((p) => p.id).sort(), granting.map((p) => p.id).sort(), `seed ${seed} ${when} identity ${identityId} service ${serviceId}`);
          assert.deepEqual(granted, await reader.grantingPolicies(identityId, serviceId));
        }
      }
    });
  }
});
