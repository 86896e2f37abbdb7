// Data-integrity check of the access index: recomputes every policy's selection from scratch
// (no index, only records and the matching rule) and compares it with the stored links and
// the entities' policy lists, a chunk of entities at a time (memory bounded at any data size).

import type { Entity } from '../domain/commands.js';
import { splitRoles, type Roles, type Semantic } from '../domain/policy.js';
import { RESOURCES } from '../domain/registry.js';
import { roleFields } from '../domain/resource.js';
import { entityPoliciesKey, joinPolicyIds, linkParts, policyLinkKey, policyLinkRange, recordRange, splitPolicyIds } from './keys.js';
import { entryChunks, type KvStore } from './kv.js';
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
    let chunk: ChunkEntity[] = [];
    let after: string | undefined;
    for await (const [, raw] of kv.entries(recordRange(target))) {
      if (slicer.due()) await slicer.pause();
      const entity = JSON.parse(raw) as Entity;
      chunk.push({ id: entity.id, attributes: compactAttributes(entity) });
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
 * with what the chunk's entities call for. What they call for is kept as entity positions and
 * the policies' own id strings, not as keys: a key is built only for a problem. Everything a
 * chunk holds outlives many young-generation collections (its ranges are read across many
 * slices), so what it holds is what the old generation grows by: key strings for every link
 * and list made it grow by about 100 MB per check over 100,000 identities. */
async function checkChunk(
  kv: KvStore,
  target: string,
  selections: Selection[],
  chunk: ChunkEntity[],
  after: string | undefined,
  upTo: string | undefined,
  slicer: TimeSlicer,
  problems: AccessProblem[],
): Promise<void> {
  const matcher = await ChunkMatcher.build(chunk, slicer);
  // Policy kind -> for each entity (by its slot) the ids of the kind's policies that select it;
  // `listOrder` holds (kind, slot) in the order the lists were begun (the order missing ones are
  // reported in).
  const lists = new Map<string, (string[] | undefined)[]>();
  const listOrder: [string, number][] = [];
  // marks[slot] is 2k when the k-th policy wants the entity's link, 2k + 1 once it is stored.
  const marks = new Uint32Array(chunk.length);
  let policyMark = 0;
  for (const { kind, policies } of selections) {
    let byEntity = lists.get(kind);
    if (!byEntity) lists.set(kind, (byEntity = new Array<string[] | undefined>(chunk.length)));
    for (const p of policies) {
      const base = policyLinkRange(kind, p.id, target).gt;
      const wanted = (policyMark += 2);
      const wantedSlots: number[] = [];
      for (const i of matcher.selected(p.roles, p.semantic)) {
        if (slicer.due()) await slicer.pause();
        const slot = matcher.slot(i);
        if (marks[slot] === wanted) continue;
        marks[slot] = wanted;
        wantedSlots.push(slot);
        const list = byEntity[slot];
        if (list) list.push(p.id);
        else {
          byEntity[slot] = [p.id];
          listOrder.push([kind, slot]);
        }
      }
      const range = { ...(after === undefined ? { gt: base } : { gt: `${base}${after}` }), ...(upTo === undefined ? { lt: `${base}\xff` } : { lte: `${base}${upTo}` }) };
      // Read in the store's chunks: the links are most of the keys the check reads.
      for await (const chunk of entryChunks(kv, range)) {
        for (const [key] of chunk) {
          if (slicer.due()) await slicer.pause();
          const slot = matcher.slotOf(key.slice(base.length));
          if (slot !== undefined && marks[slot] === wanted) marks[slot] = wanted + 1;
          else problems.push({ kind: 'stale', key, description: `stale access link ${linkParts(key).join(' / ')}` });
        }
      }
      for (const slot of wantedSlots) {
        if (marks[slot] !== wanted) continue;
        const key = policyLinkKey(kind, p.id, target, chunk[slot].id);
        problems.push({ kind: 'missing', key, value: '', description: `missing access link ${linkParts(key).join(' / ')}` });
      }
    }
  }
  // An entity's lists are `e␀target␀id␀policyKind`: every id's keys lie between `…id␀` and `…id␀\xff`.
  const base = `e${SEP}${target}${SEP}`;
  const range = { gt: after === undefined ? base : `${base}${after}${SEP}\xff`, lt: upTo === undefined ? `${base}\xff` : `${base}${upTo}${SEP}\xff` };
  for await (const [key, value] of kv.entries(range)) {
    if (slicer.due()) await slicer.pause();
    const ids = takeList(lists, matcher, key.slice(base.length));
    const wanted = ids && joinPolicyIds(ids);
    if (wanted === undefined) {
      problems.push({ kind: 'stale', key, description: `stale access list ${describeList(key, value)}` });
    } else if (wanted !== value) {
      problems.push({ kind: 'wrong', key, value: wanted, description: `wrong access list ${describeList(key, value)}, should be [${splitPolicyIds(wanted).join(', ')}]` });
    }
  }
  for (const [kind, slot] of listOrder) {
    const ids = lists.get(kind)![slot];
    if (ids === undefined) continue;
    const key = entityPoliciesKey(target, chunk[slot].id, kind);
    problems.push({ kind: 'missing', key, value: joinPolicyIds(ids), description: `missing access list ${describeList(key, joinPolicyIds(ids))}` });
  }
}

/** The policy ids the chunk calls for at a list key (`id␀policyKind`, after `e␀target␀`),
 * taken out of `lists` (a list met is not missing); undefined when it calls for none. */
function takeList(lists: Map<string, (string[] | undefined)[]>, matcher: ChunkMatcher, rest: string): string[] | undefined {
  const cut = rest.indexOf(SEP);
  if (cut < 0) return undefined;
  const slot = matcher.slotOf(rest.slice(0, cut));
  const byEntity = lists.get(rest.slice(cut + 1));
  if (slot === undefined || byEntity === undefined) return undefined;
  const ids = byEntity[slot];
  byEntity[slot] = undefined;
  return ids;
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

  private constructor(private readonly chunk: readonly ChunkEntity[]) {}

  /** Maps the chunk's attributes, yielding at the slicer's pace (an entity may hold 1,000). */
  static async build(chunk: readonly ChunkEntity[], slicer: TimeSlicer): Promise<ChunkMatcher> {
    const matcher = new ChunkMatcher(chunk);
    for (const [i, entity] of chunk.entries()) {
      if (slicer.due()) await slicer.pause();
      matcher.byId.set(entity.id, i);
      for (const attribute of entity.attributes) {
        const list = matcher.byAttribute.get(attribute);
        // An attribute listed twice by one entity (a list, not a set) is mapped once.
        if (!list) matcher.byAttribute.set(attribute, [i]);
        else if (list[list.length - 1] !== i) list.push(i);
      }
    }
    return matcher;
  }

  /** The slot of an entity id: the one position standing for every entity of the chunk with
   * that id (undefined when none has it). */
  slotOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  /** The slot of the entity at position i (see slotOf). */
  slot(i: number): number {
    return this.byId.get(this.chunk[i].id)!;
  }

  /** Indexes (into the chunk) of the selected entities, in no particular order; an index may
   * come more than once (a list, not a set: what a chunk holds while a policy's links are read
   * is promoted, and a Set of numbers costs several times the list). */
  selected(roles: Roles, semantic: Semantic): Iterable<number> {
    if (roles.all) return this.chunk.keys();
    const out: number[] = [];
    for (const id of roles.ids) {
      const i = this.byId.get(id);
      if (i !== undefined) out.push(i);
    }
    if (roles.attributes.length === 0) return out;
    if (semantic === 'AnyOf') {
      for (const attribute of roles.attributes) for (const i of this.byAttribute.get(attribute) ?? []) out.push(i);
      return out;
    }
    // AllOf: the entities of the rarest attribute that hold every other one.
    const lists = roles.attributes.map((a) => this.byAttribute.get(a) ?? []);
    const rarest = lists.reduce((a, b) => (b.length < a.length ? b : a));
    for (const i of rarest) if (roles.attributes.every((a) => holds(this.chunk[i].attributes, a))) out.push(i);
    return out;
  }
}

/** One entity of a chunk: its id and role attributes. */
interface ChunkEntity {
  id: string;
  attributes: Attributes;
}

/** Role attributes as stored (a short list) or, past SET_FROM attributes, as a set: a chunk's
 * entities are held across many slices and so promoted to the old generation, where a Set per
 * entity cost several times the list it was made from. */
type Attributes = readonly string[] | ReadonlySet<string>;

/** Attribute count from which an entity's attributes are kept as a set (membership in O(1)). */
const SET_FROM = 16;

function compactAttributes(entity: Entity): Attributes {
  const list = Array.isArray(entity.roleAttributes) ? (entity.roleAttributes as string[]) : [];
  return list.length >= SET_FROM ? new Set(list) : list;
}

function holds(attributes: Attributes, attribute: string): boolean {
  return attributes instanceof Set ? attributes.has(attribute) : (attributes as readonly string[]).includes(attribute);
}

/** `identities / id / service-policies = [p1, p2]` */
function describeList(key: string, value: string): string {
  return `${linkParts(key).join(' / ')} = [${splitPolicyIds(value).join(', ')}]`;
}
