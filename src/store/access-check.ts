// Data-integrity check of the access index: recomputes every policy's selection from scratch
// (no index, only records and the matching rule) and compares it with the stored links and
// the entities' policy lists, a chunk of entities at a time (memory bounded at any data size).

import type { Entity } from '../domain/commands.js';
import { attributeSet, splitRoles, type Roles, type Semantic } from '../domain/policy.js';
import { RESOURCES } from '../domain/registry.js';
import { roleFields } from '../domain/resource.js';
import { entityPoliciesKey, joinPolicyIds, linkParts, policyLinkKey, policyLinkRange, recordRange, splitPolicyIds } from './keys.js';
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

/** The policies of one kind whose role list (one field) selects entities of a target kind. */
interface Selection {
  kind: string;
  policies: { id: string; roles: Roles; semantic: Semantic }[];
}

/** Entities of a target kind compared at once: memory is bounded by this, not by the data. */
const CHUNK = 4_096;

/** Every problem found (empty when the index is exact). The target kinds' records are read in
 * chunks of consecutive ids; for each chunk the links and lists its entities call for are
 * computed and compared with the stored keys of exactly that id interval (one range per policy
 * and one of lists), so the check holds one chunk's worth of keys, whatever the data size. Keys
 * outside every selection (an unknown policy, target kind or policy kind) are found by seeking
 * from one key prefix to the next. */
export async function checkAccessIndex(kv: KvStore, slicer = new TimeSlicer(), chunkSize = CHUNK): Promise<AccessProblem[]> {
  const problems: AccessProblem[] = [];
  const byTarget = new Map<string, Selection[]>();
  const selected = new Set<string>();
  for (const policy of RESOURCES) {
    for (const [field, target] of roleFields(policy)) {
      const policies: Selection['policies'] = [];
      for await (const [, raw] of kv.entries(recordRange(policy.kind))) {
        if (slicer.due()) await slicer.pause();
        const p = JSON.parse(raw) as Entity;
        policies.push({ id: p.id, roles: splitRoles((p[field] as string[]) ?? []), semantic: (p.semantic ?? 'AllOf') as Semantic });
        selected.add(policyLinkRange(policy.kind, p.id, target).gt);
      }
      const list = byTarget.get(target) ?? [];
      list.push({ kind: policy.kind, policies });
      byTarget.set(target, list);
    }
  }
  // Links of no selection: each prefix `l␀policyKind␀policyId␀target␀` is sought once.
  await eachPrefix(kv, 'l\x00', (key) => (key.split(SEP).length === 5 ? key.slice(0, key.lastIndexOf(SEP) + 1) : undefined), (prefix) => selected.has(prefix), slicer, (key) =>
    problems.push({ kind: 'stale', key, description: `stale access link ${linkParts(key).join(' / ')}` }),
  );
  // Lists of a target kind no policy selects: each prefix `e␀target␀` is sought once.
  await eachPrefix(kv, 'e\x00', (key) => (key.split(SEP).length === 4 ? key.slice(0, key.indexOf(SEP, 2) + 1) : undefined), (prefix) => byTarget.has(prefix.slice(2, -1)), slicer, (key, value) =>
    problems.push({ kind: 'stale', key, description: `stale access list ${describeList(key, value)}` }),
  );
  for (const [target, selections] of byTarget) {
    let chunk: { id: string; attributes: ReadonlySet<string> }[] = [];
    let after: string | undefined;
    for await (const [, raw] of kv.entries(recordRange(target))) {
      if (slicer.due()) await slicer.pause();
      const entity = JSON.parse(raw) as Entity;
      chunk.push({ id: entity.id, attributes: attributeSet(entity as { roleAttributes?: unknown }) });
      if (chunk.length < chunkSize) continue;
      await checkChunk(kv, target, selections, chunk, after, chunk[chunk.length - 1].id, slicer, problems);
      after = chunk[chunk.length - 1].id;
      chunk = [];
    }
    await checkChunk(kv, target, selections, chunk, after, undefined, slicer, problems);
  }
  return problems;
}

const SEP = '\x00';

/** Walks the distinct prefixes of a key family (one seek each); every key under a prefix that
 * `known` refuses is reported, and so is a key of the wrong shape (no prefix). */
async function eachPrefix(
  kv: KvStore,
  family: string,
  prefixOf: (key: string) => string | undefined,
  known: (prefix: string) => boolean,
  slicer: TimeSlicer,
  report: (key: string, value: string) => void,
): Promise<void> {
  let from = family;
  for (;;) {
    let first: [string, string] | undefined;
    for await (const entry of kv.entries({ gt: from, lt: `${family}\xff`, limit: 1 })) first = entry;
    if (first === undefined) return;
    if (slicer.due()) await slicer.pause();
    const prefix = prefixOf(first[0]);
    if (prefix === undefined) {
      report(first[0], first[1]);
      from = first[0];
      continue;
    }
    if (!known(prefix)) {
      for await (const [key, value] of kv.entries({ gte: prefix, lt: `${prefix}\xff` })) {
        if (slicer.due()) await slicer.pause();
        report(key, value);
      }
    }
    from = `${prefix}\xff`;
  }
}

/** Compares the links and lists of the target's ids in (after, upTo] (open ends: undefined)
 * with what the chunk's entities call for. */
async function checkChunk(
  kv: KvStore,
  target: string,
  selections: Selection[],
  chunk: { id: string; attributes: ReadonlySet<string> }[],
  after: string | undefined,
  upTo: string | undefined,
  slicer: TimeSlicer,
  problems: AccessProblem[],
): Promise<void> {
  const lists = new Map<string, string[]>();
  const matcher = await ChunkMatcher.build(chunk, slicer);
  for (const { kind, policies } of selections) {
    for (const p of policies) {
      const base = policyLinkRange(kind, p.id, target).gt;
      const wanted = new Set<string>();
      for (const i of matcher.selected(p.roles, p.semantic)) {
        if (slicer.due()) await slicer.pause();
        const entity = chunk[i];
        wanted.add(policyLinkKey(kind, p.id, target, entity.id));
        const key = entityPoliciesKey(target, entity.id, kind);
        const list = lists.get(key);
        if (list) list.push(p.id);
        else lists.set(key, [p.id]);
      }
      const range = { ...(after === undefined ? { gt: base } : { gt: `${base}${after}` }), ...(upTo === undefined ? { lt: `${base}\xff` } : { lte: `${base}${upTo}` }) };
      for await (const key of kv.keys(range)) {
        if (slicer.due()) await slicer.pause();
        if (!wanted.delete(key)) problems.push({ kind: 'stale', key, description: `stale access link ${linkParts(key).join(' / ')}` });
      }
      for (const key of wanted) problems.push({ kind: 'missing', key, value: '', description: `missing access link ${linkParts(key).join(' / ')}` });
    }
  }
  // An entity's lists are `e␀target␀id␀policyKind`: every id's keys lie between `…id␀` and `…id␀\xff`.
  const base = `e${SEP}${target}${SEP}`;
  const range = { gt: after === undefined ? base : `${base}${after}${SEP}\xff`, lt: upTo === undefined ? `${base}\xff` : `${base}${upTo}${SEP}\xff` };
  for await (const [key, value] of kv.entries(range)) {
    if (slicer.due()) await slicer.pause();
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
}

/**
 * The entities of a chunk a role list selects (as matchesRoleSet decides), found through the
 * chunk's own attribute → entities map instead of matching every entity against every policy:
 * a policy costs its roles plus the entities it selects, not the chunk's size, and a policy
 * with many `@id`s no longer costs ids × entities.
 */
class ChunkMatcher {
  private readonly byAttribute = new Map<string, number[]>();
  private readonly byId = new Map<string, number>();

  private constructor(private readonly chunk: readonly { id: string; attributes: ReadonlySet<string> }[]) {}

  /** Maps the chunk's attributes, yielding at the slicer's pace (an entity may hold 1,000). */
  static async build(chunk: readonly { id: string; attributes: ReadonlySet<string> }[], slicer: TimeSlicer): Promise<ChunkMatcher> {
    const matcher = new ChunkMatcher(chunk);
    for (const [i, entity] of chunk.entries()) {
      if (slicer.due()) await slicer.pause();
      matcher.byId.set(entity.id, i);
      for (const attribute of entity.attributes) {
        const list = matcher.byAttribute.get(attribute);
        if (list) list.push(i);
        else matcher.byAttribute.set(attribute, [i]);
      }
    }
    return matcher;
  }

  /** Indexes (into the chunk) of the selected entities, each once, in no particular order. */
  selected(roles: Roles, semantic: Semantic): Iterable<number> {
    if (roles.all) return this.chunk.keys();
    const out = new Set<number>();
    for (const id of roles.ids) {
      const i = this.byId.get(id);
      if (i !== undefined) out.add(i);
    }
    if (roles.attributes.length === 0) return out;
    if (semantic === 'AnyOf') {
      for (const attribute of roles.attributes) for (const i of this.byAttribute.get(attribute) ?? []) out.add(i);
      return out;
    }
    // AllOf: the entities of the rarest attribute that hold every other one.
    const lists = roles.attributes.map((a) => this.byAttribute.get(a) ?? []);
    const rarest = lists.reduce((a, b) => (b.length < a.length ? b : a));
    for (const i of rarest) if (roles.attributes.every((a) => this.chunk[i].attributes.has(a))) out.add(i);
    return out;
  }
}

/** `identities / id / service-policies = [p1, p2]` */
function describeList(key: string, value: string): string {
  return `${linkParts(key).join(' / ')} = [${splitPolicyIds(value).join(', ')}]`;
}
