// Applies one integrity repair inside apply. The fixer decided it from an older snapshot, so
// every repair is re-checked against the state it meets: it only changes what is still wrong,
// and every node (whatever it held) ends in the state its records justify. Deterministic.

import type { Entity, Repair } from '../domain/commands.js';
import { isKind, declarationOf, resourceOf } from '../domain/registry.js';
import type { ResourceDecl } from '../domain/resource.js';
import { ApiError } from '../errors.js';
import { syncPolicy } from './access-index.js';
import type { ApplyContext } from './apply-context.js';
import { isJustified, justifiedPolicyList, readRecord, referencedIds, refRules, withoutMissing, type EntriesOf, type RefRule } from './integrity-rules.js';
import { countKey, recordKey, recordRange } from './keys.js';
import type { Transaction } from './transaction.js';

const SEP = '\x00';

/** The parts of apply a repair reuses (passed in by apply.ts, which owns them). */
export interface RepairHelpers {
  indexedEntries: EntriesOf;
  putRecord(tx: Transaction, decl: ResourceDecl, record: Entity, old: Entity | undefined): void;
  deleteEntity(ctx: ApplyContext, decl: ResourceDecl, id: string, ifExists: boolean, system: boolean): Promise<void>;
}

export async function applyRepair(ctx: ApplyContext, repair: Repair, helpers: RepairHelpers): Promise<void> {
  const { tx } = ctx;
  const read = (key: string) => tx.get(key);
  if ((repair.action === 'put' || repair.action === 'del') && isPolicyListKey(repair.key)) return repairPolicyList(tx, repair.key);
  switch (repair.action) {
    case 'put': {
      const current = await tx.get(repair.key);
      if (current === repair.value) return;
      // Never replace a key the records justify (two records sharing a unique value stay as found).
      if (current !== undefined && (await isJustified(read, repair.key, current, helpers.indexedEntries))) return;
      if (await isJustified(read, repair.key, repair.value, helpers.indexedEntries)) tx.put(repair.key, repair.value);
      return;
    }
    case 'del': {
      const current = await tx.get(repair.key);
      if (current !== undefined && !(await isJustified(read, repair.key, current, helpers.indexedEntries))) tx.del(repair.key);
      return;
    }
    case 'recount': {
      if (!isKind(repair.kind)) return;
      const actual = (await tx.keysIn(recordRange(repair.kind))).length;
      const counted = ctx.count ? await ctx.count(repair.kind) : Number((await tx.get(countKey(repair.kind))) ?? 0);
      // Bumped even by 0: the replica then rewrites the stored count from its own.
      ctx.bump(repair.kind, actual - counted);
      return;
    }
    case 'dropRef':
      return dropRef(ctx, repair, helpers);
  }
}

/** An entity's policy list (`e` key) is set to what the records call for now, whatever the
 * repair proposed: it is recomputed from the policies, so it never undoes a later write. */
async function repairPolicyList(tx: Transaction, key: string): Promise<void> {
  const parts = key.split(SEP);
  const wanted = parts.length === 4 ? await justifiedPolicyList((k) => tx.get(k), (range) => tx.keysIn(range), parts[1], parts[2], parts[3]) : '';
  const current = await tx.get(key);
  if (wanted === '' && current !== undefined) tx.del(key);
  if (wanted !== '' && current !== wanted) tx.put(key, wanted);
}

function isPolicyListKey(key: string): boolean {
  return key.startsWith(`e${SEP}`);
}

/** Drops the references to missing entities. For a role list, every role list of the policy is
 * cleaned at once, since re-linking the policy needs all of its `@id` entries to exist. */
async function dropRef(ctx: ApplyContext, repair: Extract<Repair, { action: 'dropRef' }>, helpers: RepairHelpers): Promise<void> {
  if (!isKind(repair.kind)) return;
  const decl = resourceOf(repair.kind);
  const all = refRules(decl);
  const rule = all.find((r) => r.field === repair.field);
  const record = await readRecord((key) => ctx.tx.get(key), repair.kind, repair.id);
  if (!rule || !record) return;
  const rules = rule.mode === 'roles' ? all.filter((r) => r.mode === 'roles') : [rule];
  let updated: Entity = record;
  for (const one of rules) {
    const missing = await missingIds(ctx.tx, one, record);
    if (missing.size === 0) continue;
    const fix = withoutMissing(one, record, missing);
    if (fix === 'delete') return helpers.deleteEntity(ctx, decl, record.id, true, true);
    if (!fix) {
      throw new ApiError('UNHANDLED', { code: 'UNHANDLED', message: `${decl.entity} ${record.id}: ${one.field} is required and names a missing ${declarationOf(one.target).entity}` });
    }
    updated = { ...updated, [one.field]: fix.value };
  }
  if (updated === record) return;
  updated = { ...updated, updatedAt: ctx.at };
  helpers.putRecord(ctx.tx, decl, updated, record);
  if (rule.mode === 'roles') await syncPolicy(ctx.tx, decl, updated);
}

async function missingIds(tx: Transaction, rule: RefRule, record: Entity): Promise<Set<string>> {
  const ids = referencedIds(rule, record);
  const found = await tx.getMany(ids.map((id) => recordKey(rule.target, id)));
  return new Set(ids.filter((_, i) => found[i] === undefined));
}
