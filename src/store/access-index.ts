// The denormalised access index, maintained inside apply: for every policy, the entities each
// of its role lists selects, in both directions (policy → entity and entity → policy). Access
// questions (which services may this identity dial?) then walk links instead of policies.

import { fieldError } from '../errors.js';
import type { Entity } from '../domain/commands.js';
import { matchesRoles, splitRoles, type Roles, type Semantic } from '../domain/policy.js';
import { RESOURCES, resourceOf } from '../domain/registry.js';
import { roleFields, type ResourceDecl } from '../domain/resource.js';
import { entityLinkKey, entityLinkRange, idFromIndexKey, idFromRecordKey, indexValueRange, lastPart, linkParts, policyLinkKey, policyLinkRange, recordKey, recordRange } from './keys.js';
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
  for (const [field, target] of roleFields(decl)) {
    const roles = splitRoles((policy[field] as string[] | undefined) ?? []);
    await requireExisting(tx, field, target, roles.ids);
    const wanted = await selectMembers(tx, target, roles, semantic);
    const current = new Set((await tx.keysIn(policyLinkRange(decl.kind, policy.id, target))).map(lastPart));
    for (const id of wanted) if (!current.has(id)) link(tx, decl.kind, policy.id, target, id);
    for (const id of current) if (!wanted.has(id)) unlink(tx, decl.kind, policy.id, target, id);
  }
}

/** Removes every link of a deleted policy. */
export async function unlinkPolicy(tx: Transaction, decl: ResourceDecl, policyId: string): Promise<void> {
  for (const [, target] of roleFields(decl)) {
    for (const key of await tx.keysIn(policyLinkRange(decl.kind, policyId, target))) {
      unlink(tx, decl.kind, policyId, target, lastPart(key));
    }
  }
}

/**
 * Re-evaluates the policies that could select a created or re-attributed entity: those naming
 * one of its attributes, `#all` or its `@id` (found through the role-list indexes), plus those
 * that selected it before. Never a scan of all policies.
 */
export async function syncEntity(tx: Transaction, kind: string, entity: Entity, created = false): Promise<void> {
  const attributes = Array.isArray(entity.roleAttributes) ? (entity.roleAttributes as string[]) : [];
  const values = ['#all', `@${entity.id}`, ...attributes.map((a) => `#${a}`)];
  for (const { policy, field } of policiesSelecting(kind)) {
    const ranges = values.map((value) => tx.keysIn(indexValueRange(policy.kind, field, value)));
    if (!created) ranges.push(tx.keysIn(entityLinkRange(kind, entity.id, policy.kind)));
    const candidates = [...new Set((await Promise.all(ranges)).flat().map(lastPart))];
    if (candidates.length === 0) continue;
    const records = await tx.getMany(candidates.map((id) => recordKey(policy.kind, id)));
    const links = created ? [] : await tx.getMany(candidates.map((id) => entityLinkKey(kind, entity.id, policy.kind, id)));
    candidates.forEach((policyId, i) => {
      const raw = records[i];
      if (raw === undefined) return;
      const record = JSON.parse(raw) as Entity;
      const matches = matchesRoles(splitRoles((record[field] as string[]) ?? []), (record.semantic ?? 'AllOf') as Semantic, entity);
      const linked = !created && links[i] !== undefined;
      if (matches && !linked) link(tx, policy.kind, policyId, kind, entity.id);
      if (!matches && linked) unlink(tx, policy.kind, policyId, kind, entity.id);
    });
  }
}

/** Removes every link of a deleted entity (its `@id` entries are stripped separately). */
export async function unlinkEntity(tx: Transaction, kind: string, entityId: string): Promise<void> {
  for (const key of await tx.keysIn(entityLinkRange(kind, entityId))) {
    const [, , policyKind, policyId] = linkParts(key);
    unlink(tx, policyKind, policyId, kind, entityId);
  }
}

function link(tx: Transaction, policyKind: string, policyId: string, kind: string, id: string): void {
  tx.put(policyLinkKey(policyKind, policyId, kind, id), '');
  tx.put(entityLinkKey(kind, id, policyKind, policyId), '');
}

function unlink(tx: Transaction, policyKind: string, policyId: string, kind: string, id: string): void {
  tx.del(policyLinkKey(policyKind, policyId, kind, id));
  tx.del(entityLinkKey(kind, id, policyKind, policyId));
}

/** `@id` entries must name existing entities: 400 with the unknown ids as the value. */
async function requireExisting(tx: Transaction, field: string, kind: string, ids: string[]): Promise<void> {
  const missing: string[] = [];
  for (const id of ids) if ((await tx.get(recordKey(kind, id))) === undefined) missing.push(id);
  if (missing.length > 0) throw fieldError(field, missing, `no ${resourceOf(kind).entity} found with the given ids`);
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
