// Deterministic application of one command to the replica: uniqueness, references, guards,
// cascades and index maintenance. Reads only the transaction; never the clock or randomness.

import { ApiError, fieldError } from '../errors.js';
import { recordFingerprint, type Command, type Entity, type Op } from '../domain/commands.js';
import { RESOURCES, declarationOf } from '../domain/registry.js';
import { fieldsOf, perDeclaration, roleFields, type ResourceDecl } from '../domain/resource.js';
import { syncEntity, syncPolicy, unlinkEntity, unlinkPolicy } from './access-index.js';
import { guardDelete } from '../domain/rules.js';
import { countKey, idFromIndexKey, indexKey, indexValueRange, recordKey, uniqueKey } from './keys.js';
import { checkListReferences, stripListReferences } from './list-references.js';
import { applyRepair, type RepairHelpers } from './integrity-repair.js';
import type { ApplyContext } from './apply-context.js';
import type { Transaction } from './transaction.js';

/** Applies every op of the command to tx; throws an ApiError to reject the whole command.
 * Returns the per-kind change in entity counts. */
export async function applyCommand(tx: Transaction, command: Command, countOf?: (kind: string) => number): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const bump = (kind: string, delta: number) => counts.set(kind, (counts.get(kind) ?? 0) + delta);
  const count = async (kind: string) => (countOf ? countOf(kind) : Number((await tx.get(countKey(kind))) ?? 0)) + (counts.get(kind) ?? 0);
  const ctx: ApplyContext = { tx, at: command.at, bump, count };
  await checkExpectations(tx, command.ops);
  for (const op of command.ops) await applyOp(ctx, op);
  return counts;
}

/** 409 STALE_WRITE when an op's `expect` is not the fingerprint of the record the command meets.
 * Checked for every op before any runs: the actor read all of them before this command, so an
 * earlier op of the same command changing the entity does not make a later one stale. A record
 * that is gone is left to the op itself (NOT_FOUND, or nothing with ifExists). */
async function checkExpectations(tx: Transaction, ops: Op[]): Promise<void> {
  for (const op of ops) {
    if ((op.op !== 'update' && op.op !== 'set' && op.op !== 'delete') || op.expect === undefined) continue;
    const stored = await readEntity(tx, op.kind, op.op === 'update' ? op.record.id : op.id);
    if (stored && recordFingerprint(stored) !== op.expect) {
      throw new ApiError('STALE_WRITE', { field: 'id', value: stored.id, reason: `the ${op.kind} entity changed while this write was prepared` });
    }
  }
}

async function applyOp(ctx: ApplyContext, op: Op): Promise<void> {
  const { tx } = ctx;
  switch (op.op) {
    case 'create':
      return createEntity(ctx, declarationOf(op.kind), op.record);
    case 'update': {
      const old = await readEntity(tx, op.kind, op.record.id);
      if (!old) throw new ApiError('NOT_FOUND');
      return writeEntity(ctx, declarationOf(op.kind), op.record, old);
    }
    case 'set': {
      const old = await readEntity(tx, op.kind, op.id);
      if (!old) {
        if (op.ifExists) return;
        throw new ApiError('NOT_FOUND');
      }
      return writeEntity(ctx, declarationOf(op.kind), { ...old, ...op.fields, id: old.id }, old);
    }
    case 'delete':
      return deleteEntity(ctx, declarationOf(op.kind), op.id, op.ifExists ?? false, op.system ?? false);
    case 'deleteWhere':
      for (const key of await tx.keysIn(indexValueRange(op.kind, op.field, op.value))) {
        await deleteEntity(ctx, declarationOf(op.kind), idFromIndexKey(key), true, op.system ?? false);
      }
      return;
    case 'repair':
      return applyRepair(ctx, op.repair, REPAIR_HELPERS);
  }
}

/** The record as the transaction sees it; possibly a shared frozen object: never change it. */
export async function readEntity(tx: Transaction, kind: string, id: string): Promise<Entity | undefined> {
  return tx.getRecord(recordKey(kind, id));
}

async function createEntity(ctx: ApplyContext, decl: ResourceDecl, record: Entity): Promise<void> {
  // A new id is almost never stored: LevelDB's Bloom filters answer on this thread.
  if (await ctx.tx.getAbsent(recordKey(decl.kind, record.id))) throw fieldError('id', record.id, 'id must be unique');
  await writeEntity(ctx, decl, record, undefined);
  ctx.bump(decl.kind, 1);
}

async function writeEntity(ctx: ApplyContext, decl: ResourceDecl, record: Entity, old: Entity | undefined): Promise<void> {
  const { tx } = ctx;
  for (const [name, spec] of checkedFields(decl)) {
    const value = record[name];
    const before = old?.[name];
    if (spec.unique && value !== null && value !== undefined && value !== before) {
      const holder = await tx.get(uniqueKey(decl.kind, name, value));
      if (holder !== undefined && holder !== record.id) throw fieldError(name, value, `${name} must be unique`);
    }
    if (spec.ref && value !== null && value !== undefined && value !== before) {
      // A list field with a ref holds ids: each must exist.
      for (const one of Array.isArray(value) ? value : [value]) {
        // Through the replica's decoded records: a referenced record is usually kept there.
        if (!(await tx.getRecord(recordKey(spec.ref, String(one))))) {
          throw fieldError(name, value, `no ${declarationOf(spec.ref).entity} found with the given id`);
        }
      }
    }
  }
  await checkListReferences(tx, decl, record, old);
  putRecord(tx, decl, record, old);
  if (roleFields(decl).length > 0) await syncPolicy(tx, decl, record);
  if (decl.selectable && !sameAttributes(old, record)) await syncEntity(tx, decl.kind, record, old === undefined);
}

function putRecord(tx: Transaction, decl: ResourceDecl, record: Entity, old: Entity | undefined): void {
  if (old) removeIndexes(tx, decl, old);
  addIndexes(tx, decl, record);
  tx.put(recordKey(decl.kind, record.id), JSON.stringify(record));
}

function sameAttributes(old: Entity | undefined, record: Entity): boolean {
  return old !== undefined && JSON.stringify(old.roleAttributes ?? []) === JSON.stringify(record.roleAttributes ?? []);
}

/** Removes `@id` of a deleted entity from every policy role list that names it. */
async function stripRoleReferences(ctx: ApplyContext, kind: string, id: string): Promise<void> {
  for (const policy of RESOURCES) {
    for (const [field, target] of roleFields(policy)) {
      if (target !== kind) continue;
      for (const key of await ctx.tx.keysIn(indexValueRange(policy.kind, field, `@${id}`))) {
        const record = await readEntity(ctx.tx, policy.kind, idFromIndexKey(key));
        if (!record) continue;
        const roles = (record[field] as string[]).filter((r) => r !== `@${id}`);
        putRecord(ctx.tx, policy, { ...record, [field]: roles, updatedAt: ctx.at }, record);
      }
    }
  }
}

async function deleteEntity(ctx: ApplyContext, decl: ResourceDecl, id: string, ifExists: boolean, system: boolean) {
  const { tx } = ctx;
  const old = await readEntity(tx, decl.kind, id);
  if (!old) {
    if (ifExists) return;
    throw new ApiError('NOT_FOUND');
  }
  guardDelete(decl.kind, old, system);
  for (const { target, field } of decl.cascades ?? []) {
    for (const key of await tx.keysIn(indexValueRange(target, field, id))) {
      await deleteEntity(ctx, declarationOf(target), idFromIndexKey(key), true, system);
    }
  }
  await stripListReferences(tx, decl.kind, id, ctx.at, (d, r, o) => putRecord(tx, d, r, o));
  await refuseIfReferenced(tx, decl.kind, id);
  if (roleFields(decl).length > 0) await unlinkPolicy(tx, decl, id);
  if (decl.selectable) {
    await unlinkEntity(tx, decl.kind, id);
    await stripRoleReferences(ctx, decl.kind, id);
  }
  removeIndexes(tx, decl, old);
  tx.del(recordKey(decl.kind, id));
  ctx.bump(decl.kind, -1);
}

/** Foreign keys without a cascade forbid the delete: 409 CAN_NOT_DELETE_REFERENCED_ENTITY. */
async function refuseIfReferenced(tx: Transaction, kind: string, id: string): Promise<void> {
  for (const other of RESOURCES) {
    for (const [field, spec] of Object.entries(other.fields)) {
      if (spec.ref !== kind) continue;
      if (!(await tx.anyIn(indexValueRange(other.kind, field, id)))) continue;
      const referrers = (await tx.keysIn(indexValueRange(other.kind, field, id))).map(idFromIndexKey);
      throw new ApiError(spec.refConflictCode ?? 'CAN_NOT_DELETE_REFERENCED_ENTITY', {
        field: 'id',
        value: id,
        reason: `entity type ${declarationOf(kind).entity} referenced by ${other.entity}: [${referrers.slice(0, 20).join(', ')}]`,
      });
    }
  }
}

/** The index (and unique) keys a record has, as apply maintains them; the integrity check
 * compares the store against this. With `field`, only that field's keys. */
export function indexedEntries(decl: ResourceDecl, record: Entity, field?: string): { key: string; unique?: string }[] {
  const out: { key: string; unique?: string }[] = [];
  for (const [name, spec] of indexedSpecs(decl)) {
    if (field !== undefined && name !== field) continue;
    const value = record[name];
    if (spec.unique && value !== null && value !== undefined) {
      out.push({ key: uniqueKey(decl.kind, name, value), unique: record.id });
    }
    const values = Array.isArray(value) ? [...new Set(value)] : [value ?? null];
    for (const v of values) out.push({ key: indexKey(decl.kind, name, v, record.id) });
  }
  return out;
}

/** Fields (base fields included) that apply checks on write: unique or references. */
const checkedFields = perDeclaration((decl) => Object.entries(fieldsOf(decl)).filter(([, spec]) => spec.unique || spec.ref));
/** Fields kept in indexes: indexed, unique or references. */
const indexedSpecs = perDeclaration((decl) => Object.entries(fieldsOf(decl)).filter(([, spec]) => spec.indexed || spec.unique || spec.ref));

function addIndexes(tx: Transaction, decl: ResourceDecl, record: Entity): void {
  for (const entry of indexedEntries(decl, record)) tx.put(entry.key, entry.unique ?? '');
}

function removeIndexes(tx: Transaction, decl: ResourceDecl, record: Entity): void {
  for (const entry of indexedEntries(decl, record)) tx.del(entry.key);
}

/** What integrity repairs reuse of apply (store/integrity-repair.ts). */
const REPAIR_HELPERS: RepairHelpers = { indexedEntries, putRecord, deleteEntity };
