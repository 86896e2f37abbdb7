// Id-list references inside apply (the declarations' `listRefs`, collected as LIST_REFERENCES in
// domain/rules.ts): a written list must name existing entities (at most one per `onePer` group),
// and a deleted entity's id is stripped from every list holding it. Reads only the transaction,
// so every replica decides the same.

import type { Entity } from '../domain/commands.js';
import { declarationOf } from '../domain/registry.js';
import { fieldsOf, type ResourceDecl } from '../domain/resource.js';
import { LIST_REFERENCES, type ListReference } from '../domain/rules.js';
import { fieldError } from '../errors.js';
import { idFromIndexKey, indexValueRange, recordKey } from './keys.js';
import type { Transaction } from './transaction.js';

/** Writes a changed record (indexes included); supplied by apply. */
export type PutRecord = (decl: ResourceDecl, record: Entity, old: Entity) => void;

async function read(tx: Transaction, kind: string, id: string): Promise<Entity | undefined> {
  return tx.getRecord(recordKey(kind, id));
}

/** Throws 400 on the list field when an id is unknown or two entities share a `onePer` group. */
export async function checkListReferences(tx: Transaction, decl: ResourceDecl, record: Entity, old: Entity | undefined): Promise<void> {
  for (const ref of LIST_REFERENCES) {
    if (ref.from !== decl.kind) continue;
    const ids = record[ref.field];
    if (!Array.isArray(ids) || ids.length === 0) continue;
    if (old && JSON.stringify(old[ref.field]) === JSON.stringify(ids)) continue;
    const seen = new Map<unknown, Entity>();
    for (const id of ids) {
      const entity = await read(tx, ref.kind, String(id));
      if (!entity) throw fieldError(ref.field, ids, `no ${declarationOf(ref.kind).entity} found with the given ids`);
      if (!ref.onePer) continue;
      const group = entity[ref.onePer];
      const earlier = seen.get(group);
      if (earlier) throw fieldError(ref.field, ids, await duplicateReason(tx, ref, earlier, entity));
      seen.set(group, entity);
    }
  }
}

/** Upstream's wording: "duplicate configs named a and b found for config type t. Only one ...". */
async function duplicateReason(tx: Transaction, ref: ListReference, a: Entity, b: Entity): Promise<string> {
  const entity = declarationOf(ref.kind).entity;
  const groupKind = fieldsOf(declarationOf(ref.kind))[ref.onePer!]?.ref;
  const group = groupKind ? await read(tx, groupKind, String(a[ref.onePer!])) : undefined;
  const groupEntity = (groupKind ? declarationOf(groupKind).entity : ref.onePer!).replace(/-/g, ' ');
  const groupName = String(group?.name ?? a[ref.onePer!]);
  return (
    `duplicate ${entity}s named ${String(a.name)} and ${String(b.name)} found for ${groupEntity} ${groupName}. ` +
    `Only one ${entity} of a given ${groupEntity} is allowed per ${declarationOf(ref.from).entity}`
  );
}

/** Removes a deleted entity's id from every list field that references its kind. */
export async function stripListReferences(tx: Transaction, kind: string, id: string, at: string, put: PutRecord): Promise<void> {
  for (const ref of LIST_REFERENCES) {
    if (ref.kind !== kind) continue;
    const from = declarationOf(ref.from);
    for (const key of await tx.keysIn(indexValueRange(ref.from, ref.field, id))) {
      const record = await read(tx, ref.from, idFromIndexKey(key));
      if (!record) continue;
      const list = ((record[ref.field] as unknown[]) ?? []).filter((value) => value !== id);
      put(from, { ...record, [ref.field]: list, updatedAt: at }, record);
    }
  }
}
