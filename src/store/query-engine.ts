// Lists over the replica: plans a query (index range, index order or table scan), streams
// candidates, filters, counts and keeps only the requested page. Never loads a whole kind.

import type { Entity } from '../domain/commands.js';
import type { Page, PageRequest } from '../domain/paging.js';
import { sortableScalar } from '../domain/query-symbols.js';
import { evaluate, extractIndexHint, sortComparator, type IndexHint, type Query } from '../domain/query/index.js';
import { resourceOf } from '../domain/registry.js';
import { fieldsOf, indexedFields } from '../domain/resource.js';
import { encodeValue, idFromIndexKey, idFromRecordKey, indexPrefix, indexRange, recordRange, valueFromIndexKey } from './keys.js';
import type { KvRange } from './kv.js';
import type { Replica } from './replica.js';

const FETCH_BATCH = 256;

/** A pre-narrowed candidate set: children by an indexed field (`/identities/{id}/authenticators`)
 * or an explicit id set (entities reached through policies). */
export type Scope = { field: string; value: string } | { ids: Iterable<string> };

export class QueryEngine {
  constructor(private readonly replica: Replica) {}

  /** Runs a parsed query with resolved paging over one kind. */
  async list(kind: string, query: Query, page: PageRequest, scope?: Scope): Promise<Page<Entity>> {
    const decl = resourceOf(kind);
    const fields = fieldsOf(decl);
    const indexed = new Set(indexedFields(decl));
    const get = (record: Entity, field: string) => readPath(record, field);
    const sort = query.sort.length > 0 ? query.sort : [{ field: 'id', direction: 'asc' as const }];
    const ids = scope && 'ids' in scope ? [...new Set(scope.ids)] : undefined;
    const hint =
      scope && 'field' in scope
        ? ({ field: scope.field, kind: 'eq', values: [scope.value] } as IndexHint)
        : extractIndexHint(query.filter, (f) => indexed.has(f) && Boolean(fields[f]));
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

  /** When the sort is one indexed scalar (or id), the index itself yields the final order. */
  private streamOrder(sort: Query['sort'], hint: IndexHint | undefined, indexed: Set<string>, kind: string) {
    if (sort.length !== 1) return undefined;
    const [{ field, direction }] = sort;
    const reverse = direction === 'desc';
    if (field === 'id') {
      if (hint && hint.field !== 'id') return undefined;
      return { source: this.scan(kind, reverse) };
    }
    if (hint || !indexed.has(field) || !sortableScalar(kind, field)) return undefined;
    return { source: this.indexOrder(kind, field, reverse) };
  }

  private async *scan(kind: string, reverse: boolean): AsyncIterable<Entity> {
    for await (const [key, value] of this.replica.kv.entries({ ...recordRange(kind), reverse })) {
      if (idFromRecordKey(key)) yield JSON.parse(value) as Entity;
    }
  }

  /** Walks an index in value order; ties keep ascending id order even when descending. */
  private async *indexOrder(kind: string, field: string, reverse: boolean): AsyncIterable<Entity> {
    let group: string[] = [];
    let groupValue: string | undefined;
    for await (const key of this.replica.kv.keys({ ...indexRange(kind, field), reverse })) {
      const value = valueFromIndexKey(key, kind, field);
      if (group.length > 0 && (value !== groupValue || (!reverse && group.length >= FETCH_BATCH))) {
        yield* this.fetch(kind, reverse ? group.reverse() : group);
        group = [];
      }
      groupValue = value;
      group.push(idFromIndexKey(key));
    }
    yield* this.fetch(kind, reverse ? group.reverse() : group);
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

/** Keeps the best `limit` items under a comparator without holding every match. */
class TopK<T> {
  private readonly items: T[] = [];

  constructor(
    private readonly limit: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    if (this.limit === 0) return;
    if (this.items.length >= this.limit && this.compare(item, this.items[this.items.length - 1]) >= 0) return;
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(this.items[mid], item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, item);
    if (this.items.length > this.limit) this.items.pop();
  }

  sorted(): T[] {
    return this.items;
  }
}

