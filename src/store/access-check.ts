// Data-integrity check of the access index: recomputes every policy's selection from scratch
// (no index, only records and the matching rule) and compares it with the stored links.

import type { Entity } from '../domain/commands.js';
import { matchesRoles, splitRoles, type Semantic } from '../domain/policy.js';
import { RESOURCES } from '../domain/registry.js';
import { roleFields } from '../domain/resource.js';
import { entityLinkKey, linkParts, policyLinkKey, recordRange } from './keys.js';
import type { KvStore } from './kv.js';

/** One difference between the stored access index and a from-scratch evaluation. */
export interface AccessProblem {
  kind: 'missing' | 'stale';
  key: string;
  description: string;
}

/** Every problem found (empty when the index is exact). Streams the kinds it reads. */
export async function checkAccessIndex(kv: KvStore): Promise<AccessProblem[]> {
  const expected = new Set<string>();
  for (const policy of RESOURCES) {
    for (const [field, target] of roleFields(policy)) {
      const policies: Entity[] = [];
      for await (const [, raw] of kv.entries(recordRange(policy.kind))) policies.push(JSON.parse(raw) as Entity);
      if (policies.length === 0) continue;
      for await (const [, raw] of kv.entries(recordRange(target))) {
        const entity = JSON.parse(raw) as Entity;
        for (const p of policies) {
          if (!matchesRoles(splitRoles((p[field] as string[]) ?? []), (p.semantic ?? 'AllOf') as Semantic, entity)) continue;
          expected.add(policyLinkKey(policy.kind, p.id, target, entity.id));
          expected.add(entityLinkKey(target, entity.id, policy.kind, p.id));
        }
      }
    }
  }
  const problems: AccessProblem[] = [];
  const seen = new Set<string>();
  for (const prefix of ['l\x00', 'b\x00']) {
    for await (const key of kv.keys({ gt: prefix, lt: `${prefix}\xff` })) {
      seen.add(key);
      if (!expected.has(key)) problems.push({ kind: 'stale', key, description: `stale access link ${linkParts(key).join(' / ')}` });
    }
  }
  for (const key of expected) {
    if (!seen.has(key)) problems.push({ kind: 'missing', key, description: `missing access link ${linkParts(key).join(' / ')}` });
  }
  return problems;
}
