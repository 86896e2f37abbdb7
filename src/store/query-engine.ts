// Lists over the replica: plans a query (index range, index order or table scan), streams
// candidates, filters, counts and keeps only the requested page. Never loads a whole kind.

import type { Entity } from '../domain/commands.js';
import type { Page, PageRequest } from '../domain/paging.js';
import { sortableScalar } from '../domain/query-symbols.js';
import { evaluate, extractIndexHint, sortComparator, type Expr, type IndexHint, type Query } from '../domain/query/index.js';
import { compareUtf8 } from './compare-utf8.js';
import { declarationOf } from '../domain/registry.js';
import { fieldsOf, indexedFields } from '../domain/resource.js';
import { encodeValue, idFromIndexKey, idFromRecordKey, indexPrefix, indexRange, recordRange, valueFromIndexKey } from './keys.js';
import type { KvRange } from './kv.js';
import type { Replica } from './replica.js';
import { sortedRuns, TICK } from './sorted-runs.js';
import { TopK } from './top-k.js';

const FETCH_BATCH = 256;
/** Records examined between two TICKs of a stream that finds few matches. */
const TICK_EVERY = 64;

/** One match of an unordered stream while it is sorted: its id and its sort fields' values. */
interface SortKeys {
  id: string;
  values: unknown[];
}

/** A pre-narrowed candidate set: children by an indexed field (`/identities/{id}/authenticators`)
 * or an explicit id set (entities reached through policies). */
export type Scope = { field: string; value: string } | { ids: Iterable<string> };

/** What list() and stream() both start from: the kind's indexed fields, the sort (id by
 * default), the scope's ids, and the index hint the filter (or the scope) gives. */
function plan(kind: string, query: Query, scope?: Scope) {
  const decl = declarationOf(kind);
  const fields = fieldsOf(decl);
  const indexed = new Set(indexedFields(decl));
  const sort = query.sort.length > 0 ? query.sort : [{ field: 'id', direction: 'asc' as const }];
  const ids = scope && 'ids' in scope ? [...new Set(scope.ids)] : undefined;
  const hint =
    scope && 'field' in scope
      ? ({ field: scope.field, kind: 'eq', values: [scope.value] } as IndexHint)
      : extractIndexHint(query.filter, (f) => indexed.has(f) && Boolean(fields[f]));
  return { indexed, sort, ids, hint };
}

export class QueryEngine {
  constructor(private readonly replica: Replica) {}

  /** Runs a parsed query with resolved paging over one kind. */
  async list(kind: string, query: Query, page: PageRequest, scope?: Scope): Promise<Page<Entity>> {
    const { indexed, sort, ids, hint } = plan(kind, query, scope);
    const get = (record: Entity, field: string) => readPath(record, field);
    if (!scope && hint && isExactHint(query.filter, hint) && sort.length === 1) {
      const reverse = sort[0].direction === 'desc';
      if (sort[0].field === hint.field && sortableScalar(kind, hint.field)) return this.exactRange(kind, hint, reverse, page);
      // One value's index keys are in id order: the default sort needs no record either.
      const oneValue = hint.kind === 'eq' && hint.values.length === 1 && (hint.set === true || sortableScalar(kind, hint.field));
      if (sort[0].field === 'id' && oneValue) return this.exactRange(kind, hint, reverse, page, true);
    }
    const orderedBy = ids ? undefined : this.streamOrder(sort, hint, indexed, kind);
    const source = ids ? this.fetch(kind, ids) : orderedBy ? orderedBy.source : this.candidates(kind, hint);
    const matches = (record: Entity) => evaluate(query.filter, (symbol) => get(record, symbol));
    const window = page.limit === 'none' ? Infinity : page.offset + page.limit;

    if (orderedBy) {
      // Candidates arrive in final order: keep the page, count the rest.
      const items: Entity[] = [];
      let total = 0;
      const unfiltered = query.filter === null && !scope;
      for await (const record of source) {
        if (!matches(record)) continue;
        if (total >= page.offset && total < window) items.push(record);
        total++;
        if (unfiltered && total >= window) return { items, total: this.replica.count(kind), ...page };
      }
      return { items, total, ...page };
    }
    const compare = sortComparator(sort, get);
    const buffer = new TopK<Entity>(window, compare);
    let total = 0;
    for await (const record of source) {
      if (!matches(record)) continue;
      total++;
      buffer.offer(record);
    }
    return { items: buffer.sorted().slice(page.offset), total, ...page };
  }

  /**
   * Every match of a query in its final order, for an unpaged list that streams its answer:
   * records are read in batches as the consumer pulls, never the whole answer at once. TICK
   * marks where the consumer may give the event loop a turn. A sort no index gives keeps only
   * each match's id and sort values, sorts them in runs (sortedRuns) and reads the records again
   * in that order; a record changed meanwhile is checked against the filter again.
   */
  async *stream(kind: string, query: Query, scope?: Scope): AsyncGenerator<Entity | typeof TICK> {
    const { indexed, sort, ids, hint } = plan(kind, query, scope);
    const matches = (record: Entity) => evaluate(query.filter, (symbol) => readPath(record, symbol));
    // The orders list() takes for the same query, so that both give the same items in the same order.
    let ordered: AsyncIterable<Entity> | undefined;
    if (!scope && hint && isExactHint(query.filter, hint) && sort.length === 1) {
      const reverse = sort[0].direction === 'desc';
      const oneValue = hint.kind === 'eq' && hint.values.length === 1 && (hint.set === true || sortableScalar(kind, hint.field));
      if (sort[0].field === hint.field && sortableScalar(kind, hint.field)) ordered = this.fetchAll(kind, this.rangesIds(kind, hint, reverse));
      else if (sort[0].field === 'id' && oneValue) ordered = this.fetchAll(kind, this.idsInOrder(hintRanges(kind, hint)[0], reverse, Infinity));
    }
    ordered ??= ids ? undefined : this.streamOrder(sort, hint, indexed, kind)?.source;
    let examined = 0;
    if (ordered) {
      for await (const record of ordered) {
        if (matches(record)) yield record;
        if (++examined % TICK_EVERY === 0) yield TICK;
      }
      return;
    }
    const keys: SortKeys[] = [];
    for await (const record of ids ? this.fetch(kind, ids) : this.candidates(kind, hint)) {
      if (matches(record)) keys.push({ id: record.id, values: sort.map(({ field }) => readPath(record, field)) });
      if (++examined % TICK_EVERY === 0) yield TICK;
    }
    const position = new Map(sort.map(({ field }, i) => [field, i]));
    const compare = sortComparator(sort, (key: SortKeys, field) => (field === 'id' ? key.id : key.values[position.get(field)!]));
    let batch: string[] = [];
    for (const key of sortedRuns(keys, compare)) {
      if (key === TICK) {
        yield TICK;
        continue;
      }
      batch.push(key.id);
      if (batch.length < FETCH_BATCH) continue;
      yield* this.reread(kind, batch, matches);
      batch = [];
    }
    yield* this.reread(kind, batch, matches);
  }

  /** The records of ids, in that order, that still exist and still match. */
  private async *reread(kind: string, ids: string[], matches: (record: Entity) => boolean): AsyncGenerator<Entity> {
    for (const record of await this.replica.getMany(kind, ids)) if (record && matches(record)) yield record;
  }

  /** When the sort is one indexed scalar (or id), the index itself yields the final order. */
  private streamOrder(sort: Query['sort'], hint: IndexHint | undefined, indexed: Set<string>, kind: string) {
    if (sort.length !== 1) return undefined;
    const [{ field, direction }] = sort;
    const reverse = direction === 'desc';
    if (field === 'id') {
      if (hint && hint.field !== 'id') return undefined;
      return { source: this.scan(kind, reverse) };
    }
    if (!indexed.has(field) || !sortableScalar(kind, field)) return undefined;
    if (!hint) return { source: this.fetchAll(kind, this.indexIds(kind, field, indexRange(kind, field), reverse)) };
    if (hint.field !== field) return undefined;
    return { source: this.fetchAll(kind, this.rangesIds(kind, hint, reverse)) };
  }

  /**
   * The filter is exactly the index range(s) and the sort is that field: count index keys only,
   * and read just the page's records.
   */
  private async exactRange(kind: string, hint: IndexHint, reverse: boolean, page: PageRequest, byId = false): Promise<Page<Entity>> {
    const window = page.limit === 'none' ? Infinity : page.offset + page.limit;
    const kv = this.replica.kv;
    let total = 0;
    for (const range of hintRanges(kind, hint)) {
      if (kv.countKeys) total += await kv.countKeys(range);
      else for await (const _ of kv.keys(range)) total++;
    }
    const pageIds: string[] = [];
    let position = 0;
    const ids = byId ? this.idsInOrder(hintRanges(kind, hint)[0], reverse, window) : this.rangesIds(kind, hint, reverse);
    for await (const id of ids) {
      if (position >= window) break;
      if (position >= page.offset) pageIds.push(id);
      position++;
    }
    const items = (await this.replica.getMany(kind, pageIds)).filter((r): r is Entity => r !== undefined);
    return { items, total, ...page };
  }

  /** Ids in the hint's range(s), in value order (ranges of an `in` list ordered by value). */
  private async *rangesIds(kind: string, hint: IndexHint, reverse: boolean): AsyncIterable<string> {
    const ranges = hintRanges(kind, hint).sort((a, b) => compareUtf8(String(a.gt), String(b.gt)));
    if (reverse) ranges.reverse();
    const seen = new Set<string>();
    for (const range of ranges) {
      for await (const id of this.indexIds(kind, hint.field, range, reverse)) {
        if (ranges.length > 1) {
          if (seen.has(id)) continue;
          seen.add(id);
        }
        yield id;
      }
    }
  }

  /** The ids of one index value's range in id order (its keys' order), at most `window`. */
  private async *idsInOrder(range: KvRange, reverse: boolean, window: number): AsyncIterable<string> {
    const limit = Number.isFinite(window) ? window : -1;
    for await (const key of this.replica.kv.keys({ ...range, reverse, limit })) yield idFromIndexKey(key);
  }

  private async *fetchAll(kind: string, ids: AsyncIterable<string>): AsyncIterable<Entity> {
    let batch: string[] = [];
    for await (const id of ids) {
      batch.push(id);
      if (batch.length >= FETCH_BATCH) {
        yield* this.fetch(kind, batch);
        batch = [];
      }
    }
    yield* this.fetch(kind, batch);
  }

  private async *scan(kind: string, reverse: boolean): AsyncIterable<Entity> {
    for await (const [key, value] of this.replica.kv.entries({ ...recordRange(kind), reverse })) {
      if (idFromRecordKey(key)) yield JSON.parse(value) as Entity;
    }
  }

  /** Ids of an index range in value order; ties keep ascending id order even when descending. */
  private async *indexIds(kind: string, field: string, range: KvRange, reverse: boolean): AsyncIterable<string> {
    let group: string[] = [];
    let groupValue: string | undefined;
    for await (const key of this.replica.kv.keys({ ...range, reverse })) {
      const value = valueFromIndexKey(key, kind, field);
      if (group.length > 0 && value !== groupValue) {
        yield* reverse ? group.reverse() : group;
        group = [];
      }
      groupValue = value;
      if (!reverse) {
        yield idFromIndexKey(key);
        continue;
      }
      group.push(idFromIndexKey(key));
    }
    yield* group.reverse();
  }

  /** Candidate entities for a hint (unordered), or the whole kind in id order. */
  private async *candidates(kind: string, hint: IndexHint | undefined): AsyncIterable<Entity> {
    if (!hint) {
      yield* this.scan(kind, false);
      return;
    }
    const seen = new Set<string>();
    for (const range of hintRanges(kind, hint)) {
      let ids: string[] = [];
      for await (const key of this.replica.kv.keys(range)) {
        const id = idFromIndexKey(key);
        if (seen.has(id)) continue;
        seen.add(id);
        ids.push(id);
        if (ids.length >= FETCH_BATCH) {
          yield* this.fetch(kind, ids);
          ids = [];
        }
      }
      yield* this.fetch(kind, ids);
    }
  }

  private async *fetch(kind: string, ids: string[]): AsyncIterable<Entity> {
    for (let i = 0; i < ids.length; i += FETCH_BATCH) {
      for (const record of await this.replica.getMany(kind, ids.slice(i, i + FETCH_BATCH))) {
        if (record) yield record;
      }
    }
  }
}

/** The KV ranges an index hint covers (one per equality value, or one range). */
/**
 * True when the filter is exactly what the hint reads, so counting index keys counts matches.
 * A range without a lower bound is never exact (nulls sort first in the index but never match
 * a comparison).
 */
function isExactHint(filter: Expr | null, hint: IndexHint): boolean {
  if (filter === null) return false;
  const leaves = filter.kind === 'and' ? filter.args : [filter];
  const onField = (lhs: { kind: string; symbol?: string }) => lhs.kind === 'symbol' && lhs.symbol === hint.field;
  if (hint.kind === 'eq') {
    // One `=` or `in` leaf: the hint's values are exactly its values. `anyOf(set) = v` matches
    // exactly the entities with an index key for v (one key per element).
    const [leaf] = leaves;
    if (leaves.length !== 1) return false;
    const onSet = (lhs: { kind: string; symbol?: string }) => lhs.kind === 'anyOf' && lhs.symbol === hint.field;
    if (leaf.kind === 'compare') return (onField(leaf.lhs) || onSet(leaf.lhs)) && leaf.op === '=' && leaf.rhs.type !== 'null';
    return leaf.kind === 'in' && onField(leaf.lhs) && !leaf.negated;
  }
  if (hint.gt === undefined && hint.gte === undefined) return false;
  // At most a lower and an upper bound (or one `between`), all on the field.
  if (leaves.length > 2) return false;
  return leaves.every((leaf) =>
    (leaf.kind === 'compare' && onField(leaf.lhs) && ['<', '<=', '>', '>='].includes(leaf.op)) ||
    (leaf.kind === 'between' && onField(leaf.lhs) && !leaf.negated),
  );
}

function hintRanges(kind: string, hint: IndexHint): KvRange[] {
  const prefix = indexPrefix(kind, hint.field);
  const sep = '\x00';
  if (hint.kind === 'eq') {
    return hint.values.map((v) => ({ gt: `${prefix}${encodeValue(normalise(v))}${sep}`, lt: `${prefix}${encodeValue(normalise(v))}${sep}\xff` }));
  }
  const range: KvRange = { gt: prefix, lt: `${prefix}\xff` };
  if (hint.gte !== undefined) range.gt = `${prefix}${encodeValue(normalise(hint.gte))}${sep}`;
  if (hint.gt !== undefined) range.gt = `${prefix}${encodeValue(normalise(hint.gt))}${sep}\xff`;
  if (hint.lt !== undefined) range.lt = `${prefix}${encodeValue(normalise(hint.lt))}${sep}`;
  if (hint.lte !== undefined) range.lt = `${prefix}${encodeValue(normalise(hint.lte))}${sep}\xff`;
  return [range];
}

/** Literal values compare with stored ones: datetimes are stored as ISO-8601 UTC strings. */
function normalise(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object' && 'datetime' in value) {
    return new Date((value as { datetime: number | string }).datetime).toISOString();
  }
  return value;
}

/** Reads `a.b.c` from a record (tags.location and the like). */
export function readPath(record: Record<string, unknown>, path: string): unknown {
  if (!path.includes('.')) return record[path];
  let value: unknown = record;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
