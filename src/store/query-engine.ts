// Lists over the replica: reads a query as planned (query-plan.ts: index range, index order or
// table scan), streams candidates, filters, counts and keeps only the requested page. Never
// loads a whole kind.

import type { Entity } from '../domain/commands.js';
import type { Page, PageRequest } from '../domain/paging.js';
import { sortableScalar } from '../domain/query-symbols.js';
import { declarationOf } from '../domain/registry.js';
import { fieldsOf } from '../domain/resource.js';
import { evaluate, sortComparator, type IndexHint, type Query } from '../domain/query/index.js';
import { compareUtf8 } from './compare-utf8.js';
import { idFromIndexKey, idFromRecordKey, indexRange, recordRange, valueFromIndexKey } from './keys.js';
import type { KvRange } from './kv.js';
import { hintRanges, plan, readPath, type ExactPlan, type Scope } from './query-plan.js';
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

export type { Scope };

export class QueryEngine {
  constructor(private readonly replica: Replica) {}

  /** Runs a parsed query with resolved paging over one kind. */
  async list(kind: string, query: Query, page: PageRequest, scope?: Scope): Promise<Page<Entity>> {
    const { indexed, sort, ids, stored, hint, exact } = plan(kind, query, scope);
    const get = (record: Entity, field: string) => readPath(record, field);
    if (exact) return this.exactRange(kind, exact, page);
    if (ids && stored && query.filter === null && sort.length === 1 && sort[0].field === 'id') {
      const byId = await this.idsPage(kind, ids, sort, page);
      if (byId) return byId;
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
    const { indexed, sort, ids, hint, exact } = plan(kind, query, scope);
    const matches = (record: Entity) => evaluate(query.filter, (symbol) => readPath(record, symbol));
    // The orders list() takes for the same query, so that both give the same items in the same order.
    const ordered = exact
      ? this.fetchAll(kind, this.exactIds(kind, exact, Infinity))
      : ids ? undefined : this.streamOrder(sort, hint, indexed, kind)?.source;
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
   * The filter is exactly the index range(s) and the sort is that field (or id within one
   * value): count index keys only, and read just the page's records.
   */
  private async exactRange(kind: string, exact: ExactPlan, page: PageRequest): Promise<Page<Entity>> {
    const window = page.limit === 'none' ? Infinity : page.offset + page.limit;
    const kv = this.replica.kv;
    let total = 0;
    for (const range of hintRanges(kind, exact.hint)) {
      if (kv.countKeys) total += await kv.countKeys(range);
      else for await (const _ of kv.keys(range)) total++;
    }
    const pageIds: string[] = [];
    let position = 0;
    for await (const id of this.exactIds(kind, exact, window)) {
      if (position >= window) break;
      if (position >= page.offset) pageIds.push(id);
      position++;
    }
    const items = (await this.replica.getMany(kind, pageIds)).filter((r): r is Entity => r !== undefined);
    return { items, total, ...page };
  }

  /**
   * An unfiltered id set sorted by id (an identity's accessible services, a policy's members):
   * the ids alone give the order and the count, so only the page's records are read, whatever
   * the set's size. Only for ids read from links (`stored`), each of which names a record; if
   * a page id has none all the same, undefined: the caller reads the set's records instead.
   */
  private async idsPage(kind: string, ids: string[], sort: Query['sort'], page: PageRequest): Promise<Page<Entity> | undefined> {
    // Byte-wise, as sortComparator orders ids; ids are distinct (plan()).
    const compare = sort[0].direction === 'desc' ? (a: string, b: string) => compareUtf8(b, a) : compareUtf8;
    let ordered: string[];
    if (page.limit === 'none') ordered = [...ids].sort(compare);
    else {
      const best = new TopK<string>(page.offset + page.limit, compare);
      for (const id of ids) best.offer(id);
      ordered = best.sorted();
    }
    const records = await this.replica.getMany(kind, ordered.slice(page.offset));
    if (records.some((r) => r === undefined)) return undefined;
    return { items: records as Entity[], total: ids.length, ...page };
  }

  /** The ids an exact plan reads, in its order (at most `window` when by id or by a unique
   * field, whose index holds one key per value: no tie of ids to complete past the window). */
  private exactIds(kind: string, exact: ExactPlan, window: number): AsyncIterable<string> {
    if (exact.byId) return this.idsInOrder(hintRanges(kind, exact.hint)[0], exact.reverse, window);
    const unique = fieldsOf(declarationOf(kind))[exact.hint.field]?.unique === true;
    return this.rangesIds(kind, exact.hint, exact.reverse, unique ? window : Infinity);
  }

  /** Ids in the hint's range(s), in value order (ranges of an `in` list ordered by value); at
   * most `window` keys read of each range. */
  private async *rangesIds(kind: string, hint: IndexHint, reverse: boolean, window = Infinity): AsyncIterable<string> {
    const ranges = hintRanges(kind, hint).sort((a, b) => compareUtf8(String(a.gt), String(b.gt)));
    if (reverse) ranges.reverse();
    const seen = new Set<string>();
    for (const range of ranges) {
      const limited = Number.isFinite(window) ? { ...range, limit: window } : range;
      for await (const id of this.indexIds(kind, hint.field, limited, reverse)) {
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
