// Data-integrity check of the access index: recomputes every policy's selection from scratch
// (no index, only records and the matching rule) and compares it with the stored links and
// the entities' policy lists.

import type { Entity } from '../domain/commands.js';
import { attributeSet, matchesRoleSet, splitRoles, type Roles, type Semantic } from '../domain/policy.js';
import { RESOURCES } from '../domain/registry.js';
import { roleFields } from '../domain/resource.js';
import { entityPoliciesKey, joinPolicyIds, linkParts, policyLinkKey, recordRange, splitPolicyIds } from './keys.js';
import type { KvStore } from './kv.js';
import { TimeSlicer } from './time-slicer.js';

/** One difference between the stored access index and a from-scratch evaluation. `missing`
 * and `wrong` are repaired by putting `value`; `stale` by deleting the key. */
export interface AccessProblem {
  kind: 'missing' | 'stale' | 'wrong';
  key: string;
  /** What the key should hold (missing and wrong only). */
  value?: string;
  description: string;
}

/** Every problem found (empty when the index is exact). Streams the kinds it reads. */
export async function checkAccessIndex(kv: KvStore, slicer = new TimeSlicer()): Promise<AccessProblem[]> {
  const { links, lists } = await expectedIndex(kv, slicer);
  const problems: AccessProblem[] = [];
  for await (const key of kv.keys({ gt: 'l\x00', lt: 'l\x00\xff' })) {
    await slicer.pause();
    if (!links.delete(key)) problems.push({ kind: 'stale', key, description: `stale access link ${linkParts(key).join(' / ')}` });
  }
  for (const key of links) problems.push({ kind: 'missing', key, value: '', description: `missing access link ${linkParts(key).join(' / ')}` });
  for await (const [key, value] of kv.entries({ gt: 'e\x00', lt: 'e\x00\xff' })) {
    await slicer.pause();
    const ids = lists.get(key);
    lists.delete(key);
    const wanted = ids && joinPolicyIds(ids);
    if (wanted === undefined) {
      problems.push({ kind: 'stale', key, description: `stale access list ${describeList(key, value)}` });
    } else if (wanted !== value) {
      problems.push({ kind: 'wrong', key, value: wanted, description: `wrong access list ${describeList(key, value)}, should be [${splitPolicyIds(wanted).join(', ')}]` });
    }
  }
  for (const [key, ids] of lists) {
    problems.push({ kind: 'missing', key, value: joinPolicyIds(ids), description: `missing access list ${describeList(key, joinPolicyIds(ids))}` });
  }
  return problems;
}

/** The links and policy lists the records call for: every policy's roles split once, every
 * entity's attributes put in a set once (O(policies × entities + attributes)). */
async function expectedIndex(kv: KvStore, slicer: TimeSlicer): Promise<{ links: Set<string>; lists: Map<string, string[]> }> {
  const links = new Set<string>();
  const lists = new Map<string, string[]>();
  for (const policy of RESOURCES) {
    for (const [field, target] of roleFields(policy)) {
      const policies: { id: string; roles: Roles; semantic: Semantic }[] = [];
      for await (const [, raw] of kv.entries(recordRange(policy.kind))) {
        await slicer.pause();
        const p = JSON.parse(raw) as Entity;
        policies.push({ id: p.id, roles: splitRoles((p[field] as string[]) ?? []), semantic: (p.semantic ?? 'AllOf') as Semantic });
      }
      if (policies.length === 0) continue;
      for await (const [, raw] of kv.entries(recordRange(target))) {
        await slicer.pause();
        const entity = JSON.parse(raw) as Entity;
        const attributes = attributeSet(entity as { roleAttributes?: unknown });
        for (const p of policies) {
          if (!matchesRoleSet(p.roles, p.semantic, entity.id, attributes)) continue;
          links.add(policyLinkKey(policy.kind, p.id, target, entity.id));
          const key = entityPoliciesKey(target, entity.id, policy.kind);
          const list = lists.get(key);
          if (list) list.push(p.id);
          else lists.set(key, [p.id]);
        }
      }
    }
  }
  return { links, lists };
}

/** `identities / id / service-policies = [p1, p2]` */
function describeList(key: string, value: string): string {
  return `${linkParts(key).join(' / ')} = [${splitPolicyIds(value).join(', ')}]`;
}
