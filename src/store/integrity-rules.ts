// What the records justify, shared by the integrity check (integrity.ts) and the repairs apply
// runs (integrity-repair.ts): whether a derived key (index, unique, access link or list) should
// exist, and which fields reference other entities. Reads through `read`; never writes.

import type { Entity } from '../domain/commands.js';
import { matchesRoles, splitRoles, type Semantic } from '../domain/policy.js';
import { RESOURCES, isKind, resourceOf } from '../domain/registry.js';
import { fieldsOf, roleFields, type ResourceDecl } from '../domain/resource.js';
import { LIST_REFERENCES } from '../domain/rules.js';
import { idFromRecordKey, joinPolicyIds, recordKey, recordRange, splitPolicyIds } from './keys.js';

/** Reads one key of the store (or of a transaction, or of a snapshot). */
export type Read = (key: string) => Promise<string | undefined>;

/** The index and unique keys apply derives from a record (apply.ts `indexedEntries`). */
export type EntriesOf = (decl: ResourceDecl, record: Entity) => { key: string; unique?: string }[];

const SEP = '\x00';

/**
 * Whether `key` holding `value` is what the records say it should be. Only derived keys are
 * judged: index (`i`), unique (`u`), access-link (`l`) and policy-list (`e`) keys. Every other
 * key (records, counts, the applied sequence and format, families this code does not know)
 * counts as justified, so the integrity code never touches it. A policy list is judged by the
 * ids it holds (a policy it lacks needs a scan: see justifiedPolicyList).
 */
export async function isJustified(read: Read, key: string, value: string, entriesOf: EntriesOf): Promise<boolean> {
  const parts = key.split(SEP);
  switch (parts[0]) {
    case 'i':
      return parts.length === 5 && derivedFrom(read, parts[1], parts[4], key, undefined, entriesOf);
    case 'u':
      return parts.length === 4 && derivedFrom(read, parts[1], value, key, value, entriesOf);
    case 'l':
      return parts.length === 5 && linkJustified(read, parts[1], parts[2], parts[3], parts[4]);
    case 'e':
      return parts.length === 4 && policyListPlausible(read, parts[1], parts[2], parts[3], value);
    default:
      return true;
  }
}

export async function readRecord(read: Read, kind: string, id: string): Promise<Entity | undefined> {
  const raw = await read(recordKey(kind, id));
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as Entity;
  } catch {
    return undefined;
  }
}

/** The record `kind/id` exists and derives `key` (with `unique` as its value for unique keys). */
async function derivedFrom(read: Read, kind: string, id: string, key: string, unique: string | undefined, entriesOf: EntriesOf): Promise<boolean> {
  if (!isKind(kind)) return false;
  const record = await readRecord(read, kind, id);
  if (!record) return false;
  return entriesOf(resourceOf(kind), record).some((entry) => entry.key === key && entry.unique === unique);
}

/** A policy → entity link (either direction) exists iff both exist and a role list selects it. */
async function linkJustified(read: Read, policyKind: string, policyId: string, targetKind: string, entityId: string): Promise<boolean> {
  if (!isKind(policyKind) || !isKind(targetKind)) return false;
  const fields = roleFields(resourceOf(policyKind)).filter(([, target]) => target === targetKind);
  if (fields.length === 0) return false;
  const policy = await readRecord(read, policyKind, policyId);
  const entity = policy && (await readRecord(read, targetKind, entityId));
  if (!policy || !entity) return false;
  const semantic = (policy.semantic ?? 'AllOf') as Semantic;
  return fields.some(([field]) => matchesRoles(splitRoles((policy[field] as string[] | undefined) ?? []), semantic, entity));
}

/** A policy list names only policies that select the entity, at least one, in canonical form. */
async function policyListPlausible(read: Read, targetKind: string, entityId: string, policyKind: string, value: string): Promise<boolean> {
  const ids = splitPolicyIds(value);
  if (ids.length === 0 || joinPolicyIds(ids) !== value) return false;
  for (const id of ids) if (!(await linkJustified(read, policyKind, id, targetKind, entityId))) return false;
  return true;
}

/** Lists the keys of a range as the reader sees it (a transaction's keysIn). */
export type ListKeys = (range: { gt: string; lt: string }) => Promise<string[]>;

/** The value the records call for at the policy-list key of an entity and policy kind: every
 * policy of that kind whose role lists select the entity ('' when none: no key). */
export async function justifiedPolicyList(read: Read, listKeys: ListKeys, targetKind: string, entityId: string, policyKind: string): Promise<string> {
  if (!isKind(policyKind) || !isKind(targetKind)) return '';
  const fields = roleFields(resourceOf(policyKind)).filter(([, target]) => target === targetKind);
  const entity = fields.length > 0 ? await readRecord(read, targetKind, entityId) : undefined;
  if (!entity) return '';
  const ids: string[] = [];
  for (const key of await listKeys(recordRange(policyKind))) {
    const policy = await readRecord(read, policyKind, idFromRecordKey(key));
    if (!policy) continue;
    const semantic = (policy.semantic ?? 'AllOf') as Semantic;
    if (fields.some(([field]) => matchesRoles(splitRoles((policy[field] as string[] | undefined) ?? []), semantic, entity))) ids.push(policy.id);
  }
  return joinPolicyIds(ids);
}

/**
 * How a reference field is kept whole, and so how a reference to a missing entity is dropped:
 * `cascade` deletes the record (as deleting the target would have), `list` strips the id,
 * `roles` strips the `@id` entry, `nullable` sets null; `required` cannot be repaired.
 */
export type RefMode = 'cascade' | 'list' | 'roles' | 'nullable' | 'required';

export interface RefRule {
  field: string;
  /** The kind the field's ids name. */
  target: string;
  mode: RefMode;
}

/** Every reference field of a kind: declared refs, cascade parents, id lists and role lists. */
export function refRules(decl: ResourceDecl): RefRule[] {
  const rules = new Map<string, RefRule>();
  for (const parent of RESOURCES) {
    for (const cascade of parent.cascades ?? []) {
      if (cascade.target === decl.kind && !cascade.loose) rules.set(cascade.field, { field: cascade.field, target: parent.kind, mode: 'cascade' });
    }
  }
  for (const [field, spec] of Object.entries(fieldsOf(decl))) {
    if (!spec.ref || rules.has(field) || !isKind(spec.ref)) continue;
    const mode: RefMode = spec.type === 'stringList' ? 'list' : spec.nullable ? 'nullable' : 'required';
    rules.set(field, { field, target: spec.ref, mode });
  }
  for (const ref of LIST_REFERENCES) {
    if (ref.from === decl.kind && !rules.has(ref.field) && isKind(ref.kind)) rules.set(ref.field, { field: ref.field, target: ref.kind, mode: 'list' });
  }
  for (const [field, target] of roleFields(decl)) {
    if (isKind(target)) rules.set(field, { field, target, mode: 'roles' });
  }
  return [...rules.values()];
}

/** The ids a record's field names under a rule (role lists: only their `@id` entries). */
export function referencedIds(rule: RefRule, record: Entity): string[] {
  const value = record[rule.field];
  if (value === null || value === undefined || value === '') return [];
  const list = Array.isArray(value) ? value.map(String) : [String(value)];
  return rule.mode === 'roles' ? splitRoles(list).ids : [...new Set(list)];
}

/** The repaired value of a field once the `missing` ids are dropped; 'delete' for a cascade;
 * undefined when the field cannot be repaired (a required single reference). */
export function withoutMissing(rule: RefRule, record: Entity, missing: Set<string>): { value: unknown } | 'delete' | undefined {
  const value = record[rule.field];
  switch (rule.mode) {
    case 'cascade':
      return 'delete';
    case 'nullable':
      return { value: null };
    case 'list':
      return { value: (Array.isArray(value) ? value : []).filter((id) => !missing.has(String(id))) };
    case 'roles':
      return { value: (Array.isArray(value) ? (value as string[]) : []).filter((r) => !(r.startsWith('@') && missing.has(r.slice(1)))) };
    case 'required':
      return undefined;
  }
}
