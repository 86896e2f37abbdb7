// QueryEngine.list against a brute-force reference (evaluate + sortComparator + slice) over
// random identities and random ZitiQL queries from a grammar; plus specific paging and order
// cases, and what a paged list reads (a page, not the table). Seeded PRNG: set WEFT_QUERY_SEED
// to replay a failing run (the seed is in every message).

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Entity, Op } from '../../../src/domain/commands.js';
import { resolvePaging, type PageRequest } from '../../../src/domain/paging.js';
import { evaluate, parseQuery, readPath, sortComparator, type Query } from '../../../src/domain/query/index.js';
import { resolveSymbol } from '../../../src/domain/query-symbols.js';
import type { KvStore } from '../../../src/store/kv.js';
import { LevelKv } from '../../../src/store/level-kv.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import { QueryEngine } from '../../../src/store/query-engine.js';
import { Replica } from '../../../src/store/replica.js';
import { delegatingKv } from '../../support/delegating-kv.js';

const SEED = Number(process.env.WEFT_QUERY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const KIND = 'identities';
const YEAR_START = Date.UTC(2024, 0, 1);
const YEAR_MS = 366 * 24 * 3600 * 1000;

/** mulberry32: small, fast, good enough to drive a property test reproducibly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rand {
  constructor(readonly next: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const ID_CHARS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-';
const NAME_CHARS = ['a', 'b', 'c', 'x', 'A', 'B', 'X', '0', '7', ' ', '"', '\\', "'", 'é', 'É', 'ß', 'ﬀ', '日', '本', '😀', '\t', '-', '.', '\uffff'];
const ROLES = ['sales', 'eng', 'ops', 'Ops', 'a"b', '日本', 'x y', 'zz'];
const REGIONS = ['eu-west', 'us-east', 'ap-south', 'EU-West', 'ünï'];
const FIXED_TIMES = [0, 1, 2, 3].map((i) => new Date(YEAR_START + (i + 1) * 30 * 24 * 3600 * 1000).toISOString());

function randomName(r: Rand): string {
  const n = r.int(1, 8);
  let s = '';
  for (let i = 0; i < n; i++) s += r.pick(NAME_CHARS);
  return s;
}

/** Random identities with unique names and ids; some share createdAt to exercise id tiebreaks. */
function makeIdentities(r: Rand, count: number): Entity[] {
  const names = new Set<string>();
  const ids = new Set<string>();
  const out: Entity[] = [];
  while (out.length < count) {
    let name = randomName(r);
    while (names.has(name)) name += r.pick(NAME_CHARS);
    names.add(name);
    let id = '';
    while (id === '' || ids.has(id)) id = Array.from({ length: r.int(6, 10) }, () => r.pick([...ID_CHARS])).join('');
    ids.add(id);
    const createdAt = r.chance(0.1) ? r.pick(FIXED_TIMES) : new Date(YEAR_START + Math.floor(r.next() * YEAR_MS)).toISOString();
    const roleAttributes = Array.from({ length: r.int(0, 3) }, () => r.pick(ROLES));
    let tags: Entity['tags'];
    const t = r.next();
    if (t < 0.1) tags = null;
    else if (t < 0.25) tags = {};
    else if (t < 0.3) tags = { region: 5 };
    else tags = { region: r.pick(REGIONS), other: 'x' };
    out.push({
      id,
      createdAt,
      updatedAt: createdAt,
      tags,
      name,
      type: 'Default',
      typeId: 'Default',
      isAdmin: r.chance(0.3),
      isDefaultAdmin: false,
      roleAttributes,
      authPolicyId: 'default',
      externalId: null,
    });
  }
  return out;
}

// ---- query text generation ----

function quote(s: string): string {
  const body = s
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(/\f/g, '\\f');
  return `"${body}"`;
}

/** An RFC 3339 literal for ms, in a random offset, with or without fraction. */
function datetime(r: Rand, ms: number): string {
  const offset = r.pick([0, 0, 120, -300, 330]);
  let text = new Date(ms + offset * 60_000).toISOString();
  if (text.endsWith('.000Z') && r.chance(0.5)) text = text.replace('.000Z', 'Z');
  if (offset !== 0) {
    const sign = offset > 0 ? '+' : '-';
    const abs = Math.abs(offset);
    text = `${text.slice(0, -1)}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  } else if (r.chance(0.3)) {
    text = `${text.slice(0, -1)}+00:00`;
  }
  return `datetime(${text})`;
}

class QueryGen {
  constructor(
    private readonly r: Rand,
    private readonly records: Entity[],
  ) {}

  private record(): Entity {
    return this.r.pick(this.records);
  }

  private nameLiteral(): string {
    const { r } = this;
    const roll = r.next();
    const name = this.record().name as string;
    if (roll < 0.5) return quote(name);
    if (roll < 0.75) {
      const chars = [...name];
      const start = r.int(0, chars.length - 1);
      return quote(chars.slice(start, r.int(start + 1, chars.length)).join(''));
    }
    return quote(randomName(r));
  }

  private timeLiteral(): string {
    const { r } = this;
    const ms = r.chance(0.5) ? Date.parse(this.record().createdAt) : YEAR_START + Math.floor(r.next() * YEAR_MS);
    return datetime(r, ms);
  }

  private list(item: () => string): string {
    return `[${Array.from({ length: this.r.int(1, 4) }, item).join(', ')}]`;
  }

  private namePredicate(): string {
    const op = this.r.pick(['=', '!=', '<', '<=', '>', '>=', 'contains', 'not contains', 'icontains', 'not icontains', 'in', 'not in']);
    if (op === 'in' || op === 'not in') return `name ${op} ${this.list(() => this.nameLiteral())}`;
    const space = op.includes('contains') || this.r.chance(0.5) ? ' ' : '';
    return `name${space}${op}${space}${this.nameLiteral()}`;
  }

  private timePredicate(): string {
    const { r } = this;
    const op = r.pick(['<', '<=', '>', '>=', '=', '!=', 'between', 'not between', 'in']);
    if (op === 'in') return `createdAt in ${this.list(() => this.timeLiteral())}`;
    if (op.endsWith('between')) {
      const a = r.chance(0.5) ? Date.parse(this.record().createdAt) : YEAR_START + Math.floor(r.next() * YEAR_MS);
      const b = a + Math.floor(r.next() * YEAR_MS * (r.chance(0.2) ? -0.1 : 0.4));
      return `createdAt ${op} ${datetime(r, a)} and ${datetime(r, b)}`;
    }
    return `createdAt ${op} ${this.timeLiteral()}`;
  }

  private rolePredicate(): string {
    const { r } = this;
    const role = () => quote(r.pick([...ROLES, 'none-such']));
    switch (r.int(0, 9)) {
      case 0:
        return `anyOf(roleAttributes) = ${role()}`;
      case 1:
        return `anyOf(roleAttributes) != ${role()}`;
      case 2:
        return `anyOf(roleAttributes) in ${this.list(role)}`;
      case 3:
        return `allOf(roleAttributes) = ${role()}`;
      case 4:
        return `allOf(roleAttributes) != ${role()}`;
      case 5:
        return 'isEmpty(roleAttributes)';
      case 6:
        return 'not isEmpty(roleAttributes)';
      case 7:
        return `count(roleAttributes) ${r.pick(['=', '>=', '<'])} ${r.int(0, 3)}`;
      case 8:
        return `anyOf(roleAttributes) contains ${quote(r.pick(['s', 'O', '"', '本']))}`;
      default:
        return `anyOf(roleAttributes) < ${role()}`;
    }
  }

  private regionPredicate(): string {
    const { r } = this;
    const region = () => quote(r.pick(REGIONS));
    switch (r.int(0, 6)) {
      case 0:
        return `tags.region = ${region()}`;
      case 1:
        return `tags.region != ${region()}`;
      case 2:
        return `tags.region ${r.pick(['=', '!='])} null`;
      case 3:
        return `tags.region icontains ${quote(r.pick(['eu', 'EAST', 'ü']))}`;
      case 4:
        return `tags.region in ${this.list(region)}`;
      case 5:
        return `tags.region = ${r.pick(['5', '6'])}`;
      default:
        return `tags.region not contains "-"`;
    }
  }

  private leaf(): string {
    const { r } = this;
    switch (r.int(0, 11)) {
      case 0:
      case 1:
      case 2:
        return this.namePredicate();
      case 3:
        return r.pick(['isAdmin', 'not isAdmin', 'isAdmin = true', 'isAdmin = false', 'isAdmin != true', 'isAdmin!=false']);
      case 4:
      case 5:
        return this.timePredicate();
      case 6:
      case 7:
        return this.rolePredicate();
      case 8:
        return this.regionPredicate();
      case 9: {
        const op = r.pick(['=', '<', '>=', 'in']);
        const id = () => quote(this.record().id);
        return op === 'in' ? `id in ${this.list(id)}` : `id ${op} ${id()}`;
      }
      case 10:
        return r.pick(['true', 'false']);
      default:
        return `${this.namePredicate()} and ${this.timePredicate()}`;
    }
  }

  expr(depth = 0): string {
    const { r } = this;
    if (depth >= 3 || r.chance(0.35)) return this.leaf();
    const roll = r.next();
    const sub = () => (r.chance(0.6) ? `(${this.expr(depth + 1)})` : this.leaf());
    if (roll < 0.45) return Array.from({ length: r.int(2, 3) }, sub).join(' and ');
    if (roll < 0.8) return Array.from({ length: r.int(2, 3) }, sub).join(' or ');
    return `not (${this.expr(depth + 1)})`;
  }

  sort(): string | undefined {
    const { r } = this;
    if (r.chance(0.3)) return undefined;
    const fields = ['name', 'createdAt', 'isAdmin', 'id', 'tags.region'];
    const n = r.chance(0.6) ? 1 : r.int(2, 3);
    const keys = Array.from({ length: n }, () => `${r.pick(fields)}${r.pick(['', ' asc', ' desc', ' desc'])}`);
    return `sort by ${keys.join(', ')}`;
  }

  /** A whole filter text plus the limit/offset query parameters. */
  query(): { text: string; params: { limit?: number; offset?: number } } {
    const { r } = this;
    const parts: string[] = [];
    if (r.chance(0.85)) parts.push(this.expr());
    const sort = this.sort();
    if (sort) parts.push(sort);
    if (r.chance(0.2)) parts.push(`skip ${r.pick([0, 1, 7, 50, 1999, 5000])}`);
    if (r.chance(0.25)) parts.push(`limit ${r.pick(['none', '-1', '0', '1', '3', '25', '600'])}`);
    const params: { limit?: number; offset?: number } = {};
    if (r.chance(0.5)) params.limit = r.pick([0, 1, 5, 10, 50, 500, 1000, -1, -3]);
    if (r.chance(0.4)) params.offset = r.pick([0, 3, 11, 280, 1990, 5000, -2]);
    return { text: parts.join(' '), params };
  }
}

// ---- fixtures ----

interface Fixture {
  replica: Replica;
  engine: QueryEngine;
  records: Entity[];
  close(): Promise<void>;
}

async function buildFixture(kv: KvStore, records: Entity[], cleanup: () => Promise<void>): Promise<Fixture> {
  await kv.open();
  const replica = new Replica(kv);
  await replica.open();
  const at = '2024-01-01T00:00:00.000Z';
  const base = { createdAt: at, updatedAt: at, tags: {} };
  let seq = 0;
  const run = async (ops: Op[]) => {
    await replica.apply({ seq: ++seq, command: { at, origin: 'test', ops } });
    assert.deepEqual(await replica.waitFor(seq, 1000), { ok: true });
  };
  await run([
    { op: 'create', kind: 'identity-types', record: { id: 'Default', name: 'Default', ...base } },
    { op: 'create', kind: 'auth-policies', record: { id: 'default', name: 'Default', primary: {}, secondary: {}, ...base } },
  ]);
  for (let i = 0; i < records.length; i += 250) {
    await run(records.slice(i, i + 250).map((record): Op => ({ op: 'create', kind: KIND, record })));
  }
  assert.equal(replica.count(KIND), records.length);
  return {
    replica,
    engine: new QueryEngine(replica),
    records: records.map((r) => JSON.parse(JSON.stringify(r)) as Entity),
    close: async () => {
      await kv.close();
      await cleanup();
    },
  };
}

const resolve = (name: string) => resolveSymbol(KIND, name);

/** The expected page: every record filtered, fully sorted, then sliced. */
function reference(records: Entity[], query: Query, page: PageRequest): { ids: string[]; total: number } {
  const matched = records.filter((record) => evaluate(query.filter, (symbol) => readPath(record, symbol)));
  matched.sort(sortComparator(query.sort, readPath));
  const end = page.limit === 'none' ? undefined : page.offset + page.limit;
  return { ids: matched.slice(page.offset, end).map((r) => r.id), total: matched.length };
}

async function checkRandomQueries(fixture: Fixture, seed: number, count: number): Promise<void> {
  const gen = new QueryGen(new Rand(prng(seed)), fixture.records);
  for (let i = 0; i < count; i++) {
    const { text, params } = gen.query();
    const context = `seed=${SEED} case=${i} filter=${JSON.stringify(text)} params=${JSON.stringify(params)}`;
    let query: Query;
    try {
      query = parseQuery(text, resolve);
    } catch (err) {
      assert.fail(`${context}: generated query did not parse: ${(err as Error).message}`);
    }
    const page = resolvePaging(query, params);
    const expected = reference(fixture.records, query, page);
    const actual = await fixture.engine.list(KIND, query, page);
    assert.equal(actual.total, expected.total, `${context}: total`);
    assert.deepEqual(actual.items.map((e) => e.id), expected.ids, `${context}: ids in order`);
    assert.equal(actual.offset, page.offset, context);
    assert.equal(actual.limit, page.limit, context);
  }
}

async function list(fixture: Fixture, text: string, params: { limit?: number; offset?: number } = {}) {
  const query = parseQuery(text, resolve);
  const page = resolvePaging(query, params);
  return { query, page, result: await fixture.engine.list(KIND, query, page) };
}

function byId(a: Entity, b: Entity): number {
  return Buffer.compare(Buffer.from(a.id), Buffer.from(b.id));
}

// ---- memory-kv: 2,000 identities ----

describe('memory-kv query engine', () => {
  let fixture: Fixture;

  before(async () => {
    const records = makeIdentities(new Rand(prng(SEED)), 2000);
    fixture = await buildFixture(new MemoryKv(), records, async () => undefined);
  });

  after(() => fixture.close());

  test('memory-kv query engine - 200 random queries match the brute-force reference', async (t) => {
    t.diagnostic(`seed=${SEED} (replay with WEFT_QUERY_SEED=${SEED})`);
    await checkRandomQueries(fixture, SEED + 1, 200);
  });

  test('memory-kv query engine - default paging gives the first 10 in id order and the full total', async () => {
    const { page, result } = await list(fixture, '');
    assert.deepEqual(page, { offset: 0, limit: 10 });
    const expected = [...fixture.records].sort(byId).slice(0, 10).map((r) => r.id);
    assert.deepEqual(result.items.map((e) => e.id), expected, `seed=${SEED}`);
    assert.equal(result.total, 2000);
  });

  test('memory-kv query engine - limit none returns every match', async () => {
    const { page, result } = await list(fixture, 'limit none', { limit: 5, offset: 0 });
    assert.equal(page.limit, 'none');
    assert.equal(result.items.length, 2000);
    assert.deepEqual(result.items.map((e) => e.id), [...fixture.records].sort(byId).map((r) => r.id));
    const admins = await list(fixture, 'isAdmin = true limit none');
    assert.equal(admins.result.items.length, fixture.records.filter((r) => r.isAdmin).length);
  });

  test('memory-kv query engine - limit -1 as a parameter returns every match', async () => {
    const { page, result } = await list(fixture, 'sort by name desc', { limit: -1 });
    assert.equal(page.limit, 'none');
    assert.equal(result.items.length, 2000);
  });

  test('memory-kv query engine - an index-hinted equality finds exactly the matching records', async () => {
    const target = fixture.records[1234];
    const { result } = await list(fixture, `name = ${quote(target.name as string)}`);
    assert.deepEqual(result.items.map((e) => e.id), [target.id], `seed=${SEED}`);
    assert.equal(result.total, 1);

    const tied = FIXED_TIMES[2];
    const expectedTied = fixture.records.filter((r) => r.createdAt === tied).sort(byId).map((r) => r.id);
    const byTime = await list(fixture, `createdAt = datetime(${tied}) limit none`);
    assert.deepEqual(byTime.result.items.map((e) => e.id), expectedTied, `seed=${SEED}`);

    const withRole = fixture.records.filter((r) => (r.roleAttributes as string[]).includes('sales')).sort(byId);
    const roles = await list(fixture, 'anyOf(roleAttributes) = "sales" and isAdmin = false limit none');
    assert.deepEqual(
      roles.result.items.map((e) => e.id),
      withRole.filter((r) => r.isAdmin === false).map((r) => r.id),
      `seed=${SEED}`,
    );
    const absent = await list(fixture, 'name = "no such name at all"');
    assert.deepEqual(absent.result, { items: [], total: 0, offset: 0, limit: 10 });
  });

  test('memory-kv query engine - a descending sort keeps the id tiebreak ascending', async () => {
    for (const text of ['sort by isAdmin desc limit none', 'isAdmin or not isAdmin sort by isAdmin desc limit none', 'isAdmin = true or isAdmin = false sort by createdAt desc limit none']) {
      const { query, result } = await list(fixture, text);
      const field = query.sort[0].field;
      const items = result.items;
      assert.equal(items.length, 2000, text);
      for (let i = 1; i < items.length; i++) {
        const [a, b] = [items[i - 1], items[i]];
        if (a[field] === b[field]) assert.ok(byId(a, b) < 0, `${text}: ${a.id} before ${b.id} at ${i} (seed=${SEED})`);
        else assert.ok(sortComparator([{ field, direction: 'desc' }], readPath)(a, b) < 0, `${text}: order at ${i}`);
      }
    }
  });

  test('memory-kv query engine - total counts every match while items hold only the page', async () => {
    const admins = fixture.records.filter((r) => r.isAdmin === true).sort(byId);
    const { result } = await list(fixture, 'isAdmin = true skip 2 limit 3');
    assert.equal(result.total, admins.length);
    assert.deepEqual(result.items.map((e) => e.id), admins.slice(2, 5).map((r) => r.id));
    const past = await list(fixture, 'isAdmin = true', { offset: 100_000 });
    assert.deepEqual(past.result.items, []);
    assert.equal(past.result.total, admins.length);
  });

  test('memory-kv query engine - a scope narrows candidates like an equality on the field', async () => {
    const query = parseQuery('sort by name', resolve);
    const page = { offset: 0, limit: 'none' as const };
    const scoped = await fixture.engine.list(KIND, query, page, { field: 'roleAttributes', value: 'eng' });
    const expected = reference(fixture.records, parseQuery('anyOf(roleAttributes) = "eng" sort by name', resolve), page);
    assert.deepEqual(scoped.items.map((e) => e.id), expected.ids);
    assert.equal(scoped.total, expected.total);
  });
});

// ---- what a paged list reads: a page, not the table ----

describe('a filtered, sorted, paged list over an indexed field', () => {
  let fixture: Fixture;
  const read = { keys: 0, records: 0 };

  before(async () => {
    const inner = new MemoryKv();
    const counting = delegatingKv(inner, {
      countKeys: (range) => inner.countKeys(range),
      get: (key) => {
        read.records++;
        return inner.get(key);
      },
      getMany: (keys) => {
        read.records += keys.length;
        return inner.getMany(keys);
      },
      keys: (range) => counted(inner.keys(range)),
      entries: (range) => counted(inner.entries(range)),
    });
    async function* counted<T>(items: AsyncIterable<T>): AsyncIterable<T> {
      for await (const item of items) {
        read.keys++;
        yield item;
      }
    }
    fixture = await buildFixture(counting, makeIdentities(new Rand(prng(SEED)), 5000), async () => undefined);
  });

  after(() => fixture.close());

  test('reads about a page of index keys and records, however many entities match', async () => {
    const byName = (a: Entity, b: Entity) => Buffer.compare(Buffer.from(String(a.name)), Buffer.from(String(b.name)));
    const sorted = [...fixture.records].sort(byName);
    // Bounds that need no escaping in the filter, about 1,000 and 3,000 names in.
    const plainAfter = (i: number) => sorted.slice(i).find((r) => /^[A-Za-z0-9]+$/.test(String(r.name)))!;
    const from = plainAfter(1000);
    const to = plainAfter(3000);
    const expected = sorted.filter((r) => byName(r, from) >= 0 && byName(r, to) < 0).reverse();
    assert.ok(expected.length >= 1500, `matches: ${expected.length} (seed=${SEED})`);
    read.keys = 0;
    read.records = 0;
    const { result } = await list(fixture, `name >= "${from.name}" and name < "${to.name}" sort by name desc limit 10`);
    assert.deepEqual(result.items.map((e) => e.id), expected.slice(0, 10).map((r) => r.id), `seed=${SEED}`);
    assert.equal(result.total, expected.length, 'the total counts every match');
    // About 2,000 match out of 5,000: the walk stops after the page, the total is counted without
    // reading the keys, and only the page's records are fetched.
    assert.ok(read.keys <= 20, `index keys read: ${read.keys}`);
    assert.ok(read.records <= 10, `records read: ${read.records}`);
  });
  test('a stored id scope sorted by id reads only the page\'s records, and counts every id', async () => {
    const ids = fixture.records.filter((_, i) => i % 7 === 0).map((r) => r.id);
    const sorted = [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const [text, expected] of [['skip 3 limit 4', sorted.slice(3, 7)], ['sort by id desc limit 5', [...sorted].reverse().slice(0, 5)]] as const) {
      read.records = 0;
      const query = parseQuery(text, resolve);
      const page = resolvePaging(query, {});
      const result = await fixture.engine.list(KIND, query, page, { ids, stored: true });
      assert.deepEqual(result.items.map((e) => e.id), expected, text);
      assert.equal(result.total, ids.length, text);
      assert.ok(read.records <= expected.length, `${text}: records read ${read.records}`);
    }
  });

  test('an id scope naming an id with no record counts only stored records', async () => {
    const ids = [' no-such-id', ...fixture.records.slice(0, 20).map((r) => r.id)];
    const query = parseQuery('limit 5', resolve);
    const page = resolvePaging(query, {});
    const expected = fixture.records.slice(0, 20).map((r) => r.id).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    // A typed id set is checked record by record; a stored one whose page (the missing id sorts
    // first) lacks a record is read the same way.
    for (const scope of [{ ids }, { ids, stored: true }]) {
      const result = await fixture.engine.list(KIND, query, page, scope);
      assert.deepEqual(result.items.map((e) => e.id), expected.slice(0, 5), JSON.stringify(scope.stored));
      assert.equal(result.total, 20, JSON.stringify(scope.stored));
    }
  });
});


// ---- level-kv: 300 identities ----

describe('level-kv query engine', () => {
  let fixture: Fixture;

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-query-engine-'));
    const records = makeIdentities(new Rand(prng(SEED + 7)), 300);
    fixture = await buildFixture(new LevelKv({ path: join(dir, 'db') }), records, () => rm(dir, { recursive: true, force: true }));
  });

  after(() => fixture.close());

  test('level-kv query engine - 120 random queries match the brute-force reference', async (t) => {
    t.diagnostic(`seed=${SEED} (replay with WEFT_QUERY_SEED=${SEED})`);
    await checkRandomQueries(fixture, SEED + 8, 120);
  });

  test('level-kv query engine - a descending index walk keeps ids ascending within a value', async () => {
    const { result } = await list(fixture, 'sort by isAdmin desc limit none');
    const expected = [...fixture.records].sort(sortComparator([{ field: 'isAdmin', direction: 'desc' }], readPath)).map((r) => r.id);
    assert.deepEqual(result.items.map((e) => e.id), expected, `seed=${SEED}`);
  });
});
