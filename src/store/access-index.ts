// The denormalised access index, maintained inside apply: for every policy, the entities each
// of its role lists selects, in both directions (policy → entity: one key per link, so a large
// policy's members are paged; entity → policies: one list per entity and policy kind). Access
// questions (which services may this identity dial?) then walk links instead of policies.

import { fieldError } from '../errors.js';
import type { Entity } from '../domain/commands.js';
import { matchesRoles, splitRoles, type Roles, type Semantic } from '../domain/policy.js';
import { RESOURCES, declarationOf } from '../domain/registry.js';
import { roleFields, type ResourceDecl } from '../domain/resource.js';
import {
  entityPoliciesKey,
  entityPoliciesRange,
  idFromIndexKey,
  idFromRecordKey,
  indexValueRange,
  joinPolicyIds,
  lastPart,
  policyLinkKey,
  policyLinkRange,
  recordKey,
  recordRange,
  splitPolicyIds,
} from './keys.js';
import type { Transaction } from './transaction.js';

/** The policy kinds whose role lists select entities of `kind`, with the selecting field. */
export function policiesSelecting(kind: string): { policy: ResourceDecl; field: string }[] {
  const out: { policy: ResourceDecl; field: string }[] = [];
  for (const policy of RESOURCES) {
    for (const [field, target] of roleFields(policy)) if (target === kind) out.push({ policy, field });
  }
  return out;
}

/** Recomputes which entities a written policy selects and updates the links to match. */
export async function syncPolicy(tx: Transaction, decl: ResourceDecl, policy: Entity): Promise<void> {
  const semantic = (policy.semantic ?? 'AllOf') as Semantic;
  const links = new LinkWriter(tx);
  for (const [field, target] of roleFields(decl)) {
    const roles = splitRoles((policy[field] as string[] | undefined) ?? []);
    await requireExisting(tx, field, target, roles.ids);
    const wanted = await selectMembers(tx, target, roles, semantic);
    const current = new Set((await tx.keysIn(policyLinkRange(decl.kind, policy.id, target))).map(lastPart));
    for (const id of wanted) if (!current.has(id)) links.link(decl.kind, policy.id, target, id);
    for (const id of current) if (!wanted.has(id)) links.unlink(decl.kind, policy.id, target, id);
  }
  await links.write();
}

/** Removes every link of a deleted policy. */
export async function unlinkPolicy(tx: Transaction, decl: ResourceDecl, policyId: string): Promise<void> {
  const links = new LinkWriter(tx);
  for (const [, target] of roleFields(decl)) {
    for (const key of await tx.keysIn(policyLinkRange(decl.kind, policyId, target))) {
      links.unlink(decl.kind, policyId, target, lastPart(key));
    }
  }
  await links.write();
}

/**
 * Re-evaluates the policies that could select a created or re-attributed entity: those naming
 * one of its attributes, `#all` or (once it exists) its `@id`, found through the role-list
 * indexes, plus those that selected it before (its policy list). Never a scan of all policies.
 */
export async function syncEntity(tx: Transaction, kind: string, entity: Entity, created = false): Promise<void> {
  const attributes = Array.isArray(entity.roleAttributes) ? (entity.roleAttributes as string[]) : [];
  // A new entity cannot be named by `@id` yet: a role list may only name existing entities.
  const values = [...(created ? [] : [`@${entity.id}`]), '#all', ...attributes.map((a) => `#${a}`)];
  // A created entity has no policy lists in the store yet: they are not read.
  const links = new LinkWriter(tx, created);
  for (const { policy, fields } of policyKindsSelecting(kind)) {
    const ranges = fields.flatMap((field) => values.map((value) => tx.keysIn(indexValueRange(policy.kind, field, value))));
    const before = new Set(created ? [] : splitPolicyIds(await tx.get(entityPoliciesKey(kind, entity.id, policy.kind))));
    const candidates = [...new Set([...(await Promise.all(ranges)).flat().map(lastPart), ...before])];
    if (candidates.length === 0) continue;
    const records = await tx.getRecords(candidates.map((id) => recordKey(policy.kind, id)));
    candidates.forEach((policyId, i) => {
      const record = records[i];
      if (record === undefined) return;
      const semantic = (record.semantic ?? 'AllOf') as Semantic;
      const matches = fields.some((field) => matchesRoles(rolesOf(record, field), semantic, entity));
      const linked = before.has(policyId);
      if (matches && !linked) links.link(policy.kind, policyId, kind, entity.id);
      if (!matches && linked) links.unlink(policy.kind, policyId, kind, entity.id);
    });
  }
  await links.write();
}

/** Removes every link of a deleted entity (its `@id` entries are stripped separately). */
export async function unlinkEntity(tx: Transaction, kind: string, entityId: string): Promise<void> {
  const keys = await tx.keysIn(entityPoliciesRange(kind, entityId));
  const lists = await tx.getMany(keys);
  keys.forEach((key, i) => {
    const policyKind = lastPart(key);
    for (const policyId of splitPolicyIds(lists[i])) tx.del(policyLinkKey(policyKind, policyId, kind, entityId));
    tx.del(key);
  });
}

/** Split role lists of shared (cached, frozen) policy records, so that each is split once. */
const SPLIT = new WeakMap<Entity, Map<string, Roles>>();

function rolesOf(policy: Entity, field: string): Roles {
  if (!Object.isFrozen(policy)) return splitRoles((policy[field] as string[] | undefined) ?? []);
  let fields = SPLIT.get(policy);
  if (!fields) SPLIT.set(policy, (fields = new Map()));
  let roles = fields.get(field);
  if (!roles) fields.set(field, (roles = splitRoles((policy[field] as string[] | undefined) ?? [])));
  return roles;
}

const SELECTING = new Map<string, { policy: ResourceDecl; fields: string[] }[]>();

/** The policy kinds whose role lists select entities of `kind`, with those fields (computed
 * once per kind). */
function policyKindsSelecting(kind: string): { policy: ResourceDecl; fields: string[] }[] {
  const known = SELECTING.get(kind);
  if (known) return known;
  const out = new Map<string, { policy: ResourceDecl; fields: string[] }>();
  for (const { policy, field } of policiesSelecting(kind)) {
    const entry = out.get(policy.kind) ?? { policy, fields: [] };
    entry.fields.push(field);
    out.set(policy.kind, entry);
  }
  SELECTING.set(kind, [...out.values()]);
  return SELECTING.get(kind)!;
}

/**
 * Writes links in both directions: the policy's `l` key at once, and the entity's policy list
 * (one key per entity and policy kind) once per entity in write(), however many of its links
 * changed. Call write() before the transaction is used further.
 */
class LinkWriter {
  /** Policy-list key → policy id → linked (true) or unlinked (false). */
  private readonly changes = new Map<string, Map<string, boolean>>();

  /** `fresh`: every list written is new (a created entity's), so the store is not asked for it. */
  constructor(private readonly tx: Transaction, private readonly fresh = false) {}

  link(policyKind: string, policyId: string, kind: string, id: string): void {
    this.tx.put(policyLinkKey(policyKind, policyId, kind, id), '');
    this.note(entityPoliciesKey(kind, id, policyKind), policyId, true);
  }

  unlink(policyKind: string, policyId: string, kind: string, id: string): void {
    this.tx.del(policyLinkKey(policyKind, policyId, kind, id));
    this.note(entityPoliciesKey(kind, id, policyKind), policyId, false);
  }

  async write(): Promise<void> {
    if (this.changes.size === 0) return;
    const keys = [...this.changes.keys()];
    const stored = this.fresh ? this.tx.writtenValues(keys) : await this.tx.getMany(keys);
    keys.forEach((key, i) => {
      const ids = new Set(splitPolicyIds(stored[i]));
      for (const [policyId, linked] of this.changes.get(key)!) {
        if (linked) ids.add(policyId);
        else ids.delete(policyId);
      }
      if (ids.size === 0) this.tx.del(key);
      else this.tx.put(key, joinPolicyIds(ids));
    });
    this.changes.clear();
  }

  private note(key: string, policyId: string, linked: boolean): void {
    let entry = this.changes.get(key);
    if (!entry) this.changes.set(key, (entry = new Map()));
    entry.set(policyId, linked);
  }
}

/** `@id` entries must name existing entities: 400 with the unknown ids as the value. */
async function requireExisting(tx: Transaction, field: string, kind: string, ids: string[]): Promise<void> {
  const missing: string[] = [];
  for (const id of ids) if ((await tx.get(recordKey(kind, id))) === undefined) missing.push(id);
  if (missing.length > 0) throw fieldError(field, missing, `no ${declarationOf(kind).entity} found with the given ids`);
}

/** The ids a role list selects, from the role-attribute index (never a scan, except `#all`). */
export async function selectMembers(tx: Transaction, kind: string, roles: Roles, semantic: Semantic): Promise<Set<string>> {
  const members = new Set(roles.ids);
  if (roles.all) {
    for (const key of await tx.keysIn(recordRange(kind))) members.add(idFromRecordKey(key));
    return members;
  }
  if (roles.attributes.length === 0) return members;
  const sets: Set<string>[] = [];
  for (const attr of roles.attributes) {
    sets.push(new Set((await tx.keysIn(indexValueRange(kind, 'roleAttributes', attr))).map(idFromIndexKey)));
  }
  const combined = semantic === 'AnyOf' ? union(sets) : intersection(sets);
  for (const id of combined) members.add(id);
  return members;
}

function union(sets: Set<string>[]): Set<string> {
  const out = new Set<string>();
  for (const set of sets) for (const id of set) out.add(id);
  return out;
}

function intersection(sets: Set<string>[]): Set<string> {
  const [smallest, ...rest] = [...sets].sort((a, b) => a.size - b.size);
  return new Set([...smallest].filter((id) => rest.every((s) => s.has(id))));
}
