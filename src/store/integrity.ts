// The data-integrity check (BEHAVIOR §7.5): compares what the replica derives from its records
// (secondary and unique indexes, counts, references, the access index) with the records, and
// says for each problem how to repair it. Reads one view of the store; never writes.

import type { Entity, Repair } from '../domain/commands.js';
import { RESOURCES, isKind, declarationOf, resourceOf } from '../domain/registry.js';
import { fieldsOf, type ResourceDecl } from '../domain/resource.js';
import { checkAccessIndex } from './access-check.js';
import { indexedEntries } from './apply.js';
import { isJustified, referencedIds, refRules, withoutMissing } from './integrity-rules.js';
import { TimeSlicer } from './time-slicer.js';
import { countKey, decodeStringValue, idFromRecordKey, recordKey, recordRange } from './keys.js';
import { entryChunks, type KvStore } from './kv.js';

/** One problem found, with the repair the fixer proposes (none when it cannot be repaired). */
export interface IntegrityProblem {
  description: string;
  repair?: Repair;
}

export interface IntegrityCheckOptions {
  /** The live replica's in-memory entity counts (undefined = not comparable right now). */
  counts?: (kind: string) => number | undefined;
  /** Called for each problem in scan order, and awaited (the fixer proposes as it goes). */
  onProblem(problem: IntegrityProblem): void | Promise<void>;
  /** Stops the scan early when it returns true. */
  aborted?(): boolean;
  /** Yields to requests every slice of work (default: a fresh TimeSlicer). */
  slicer?: TimeSlicer;
  /** Derived keys kept between chunks of the index scan (default KEPT_KEYS; tests lower it). */
  keptKeys?: number;
}

/** Records and derived keys are read in chunks of this size. */
const CHUNK = 256;
/** Keys asked of the store in one getMany: the store copies every key of a call on the event
 * loop's thread before it reads, so a call stays well inside a slice whatever the records hold
 * (a chunk of records with thousands of role attributes each derives millions of keys). */
const GET_MANY = 512;
const SEP = '\x00';

/** Runs every check over kv (a consistent view: see kv-snapshot.ts), reporting as it goes. */
export async function checkIntegrity(kv: KvStore, options: IntegrityCheckOptions): Promise<void> {
  const opts: ScanOptions = { ...options, slicer: options.slicer ?? new TimeSlicer(), tally: new DerivedTally() };
  for (const decl of RESOURCES) {
    if (opts.aborted?.()) return;
    await checkRecords(kv, decl, opts);
  }
  for (const family of ['i', 'u']) {
    if (opts.aborted?.()) return;
    await checkDerivedKeys(kv, family, opts);
  }
  if (opts.aborted?.()) return;
  for (const problem of await checkAccessIndex(kv, opts.slicer)) {
    const repair: Repair = problem.kind === 'stale' ? { action: 'del', key: problem.key } : { action: 'put', key: problem.key, value: problem.value ?? '' };
    await opts.onProblem({ description: problem.description, repair });
  }
}

type ScanOptions = IntegrityCheckOptions & { slicer: TimeSlicer; tally: DerivedTally };

/**
 * The index and unique keys the records derive, counted per group (`i␀kind␀field␀`,
 * `u␀kind␀field␀`), and the groups where the record scan found a derived key missing or naming
 * another record. In a group with no such key every derived key is stored, so the stored keys
 * are exactly the derived ones iff there are as many: the stale-key scan then need not read a
 * single record for that group.
 */
class DerivedTally {
  private readonly counts = new Map<string, number>();
  private readonly dirty = new Set<string>();

  add(key: string): void {
    const group = groupOf(key);
    if (group !== undefined) this.counts.set(group, (this.counts.get(group) ?? 0) + 1);
  }

  taint(key: string): void {
    const group = groupOf(key);
    if (group !== undefined) this.dirty.add(group);
  }

  /** True when a group's `stored` keys are exactly those the records derive. */
  exact(group: string, stored: number): boolean {
    return !this.dirty.has(group) && (this.counts.get(group) ?? 0) === stored;
  }
}

/** `i␀kind␀field␀` or `u␀kind␀field␀` of a derived key (undefined for a key of another shape). */
function groupOf(key: string): string | undefined {
  const field = key.indexOf(SEP, key.indexOf(SEP) + 1);
  const end = field < 0 ? -1 : key.indexOf(SEP, field + 1);
  return end < 0 ? undefined : key.slice(0, end + 1);
}

/** Every record of a kind: its index and unique entries, its references, and the kind's count. */

async function checkRecords(kv: KvStore, decl: ResourceDecl, opts: ScanOptions): Promise<void> {
  let actual = 0;
  let chunk: [string, string][] = [];
  for await (const entry of kv.entries(recordRange(decl.kind))) {
    actual++;
    chunk.push(entry);
    if (chunk.length < CHUNK) continue;
    await checkRecordChunk(kv, decl, chunk, opts);
    chunk = [];
    if (opts.aborted?.()) return;
  }
  if (chunk.length > 0) await checkRecordChunk(kv, decl, chunk, opts);
  const stored = Number((await kv.get(countKey(decl.kind))) ?? 0);
  const inMemory = opts.counts?.(decl.kind);
  if (stored !== actual || (inMemory !== undefined && inMemory !== actual)) {
    const memory = inMemory === undefined ? '' : ` (${inMemory} in memory)`;
    await opts.onProblem({
      description: `count of ${decl.kind} is ${stored}${memory} but ${actual} records exist`,
      repair: { action: 'recount', kind: decl.kind },
    });
  }
}

async function checkRecordChunk(kv: KvStore, decl: ResourceDecl, chunk: [string, string][], opts: ScanOptions): Promise<void> {
  const records: Entity[] = [];
  for (const [key, raw] of chunk) {
    if (opts.slicer.due()) await opts.slicer.pause();
    const id = idFromRecordKey(key);
    let record: Entity | undefined;
    try {
      record = JSON.parse(raw) as Entity;
    } catch {
      record = undefined;
    }
    if (!record || typeof record !== 'object' || record.id !== id) {
      await opts.onProblem({ description: `${decl.entity} ${id}: the stored record is malformed` });
      continue;
    }
    records.push(record);
  }
  await checkIndexEntries(kv, decl, records, opts);
  await checkReferences(kv, decl, records, opts);
}

/** Every index and unique key a record derives must exist (unique keys naming the record). */
async function checkIndexEntries(kv: KvStore, decl: ResourceDecl, records: Entity[], opts: ScanOptions): Promise<void> {
  const wanted: { record: Entity; key: string; unique?: string }[] = [];
  for (const record of records) {
    if (opts.slicer.due()) await opts.slicer.pause();
    for (const entry of indexedEntries(decl, record)) wanted.push({ record, ...entry });
  }
  const stored = await getManySliced(kv, wanted.map((w) => w.key), opts.slicer);
  const holders = wanted.map((w, i) => (w.unique !== undefined && stored[i] !== undefined && stored[i] !== w.unique ? stored[i]! : undefined));
  const holderIds = [...new Set(holders.filter((h): h is string => h !== undefined))];
  const holderRaw = await getManySliced(kv, holderIds.map((h) => recordKey(decl.kind, h)), opts.slicer);
  const holderRecords = new Map(holderIds.map((h, i) => [recordKey(decl.kind, h), holderRaw[i]]));
  for (const [i, w] of wanted.entries()) {
    if (opts.slicer.due()) await opts.slicer.pause();
    opts.tally.add(w.key);
    // Described only for a problem: describing every key cost about a tenth of the pass.
    const where = () => `${decl.entity} ${w.record.id}: ${describeKey(w.key)}`;
    if (stored[i] === undefined) {
      opts.tally.taint(w.key);
      await opts.onProblem({ description: `${where()} is missing`, repair: { action: 'put', key: w.key, value: w.unique ?? '' } });
      continue;
    }
    const holder = holders[i];
    if (holder === undefined) continue;
    opts.tally.taint(w.key);
    const held = await isJustified(async (key) => (holderRecords.has(key) ? holderRecords.get(key) : kv.get(key)), w.key, holder, indexedEntries);
    if (held) {
      await opts.onProblem({ description: `${where()} is also held by ${decl.entity} ${holder}: duplicate unique value` });
    } else {
      await opts.onProblem({ description: `${where()} names ${decl.entity} ${holder} instead`, repair: { action: 'put', key: w.key, value: w.unique! } });
    }
  }
}

/** kv.getMany in calls of at most GET_MANY keys, yielding between them at the slicer's pace. */
async function getManySliced(kv: KvStore, keys: string[], slicer: TimeSlicer): Promise<(string | undefined)[]> {
  if (keys.length <= GET_MANY) return keys.length === 0 ? [] : kv.getMany(keys);
  const out: (string | undefined)[] = [];
  for (let at = 0; at < keys.length; at += GET_MANY) {
    if (slicer.due()) await slicer.pause();
    for (const value of await kv.getMany(keys.slice(at, at + GET_MANY))) out.push(value);
  }
  return out;
}

/** Every reference (declared refs, cascade parents, id lists, role-list `@id`s) must exist. */
async function checkReferences(kv: KvStore, decl: ResourceDecl, records: Entity[], opts: ScanOptions): Promise<void> {
  const rules = refRules(decl);
  const asked: { record: Entity; rule: (typeof rules)[number]; id: string }[] = [];
  for (const record of records) {
    if (opts.slicer.due()) await opts.slicer.pause();
    for (const rule of rules) for (const id of referencedIds(rule, record)) asked.push({ record, rule, id });
  }
  const found = await getManySliced(kv, asked.map((a) => recordKey(a.rule.target, a.id)), opts.slicer);
  const missing = new Map<string, { record: Entity; rule: (typeof rules)[number]; ids: Set<string> }>();
  for (const [i, a] of asked.entries()) {
    if (opts.slicer.due()) await opts.slicer.pause();
    if (found[i] !== undefined) continue;
    const key = `${a.record.id}${SEP}${a.rule.field}`;
    const entry = missing.get(key) ?? { record: a.record, rule: a.rule, ids: new Set<string>() };
    entry.ids.add(a.id);
    missing.set(key, entry);
  }
  for (const { record, rule, ids } of missing.values()) {
    const fixable = withoutMissing(rule, record, ids) !== undefined;
    await opts.onProblem({
      description: `${decl.entity} ${record.id}: ${rule.field} references missing ${declarationOf(rule.target).entity} ${[...ids].join(', ')}`,
      repair: fixable ? { action: 'dropRef', kind: decl.kind, id: record.id, field: rule.field } : undefined,
    });
  }
}

/**
 * Every stored index (`i`) or unique (`u`) key must be derived by the record it names. One
 * sequential pass counts the stored keys of each group; only a group whose count differs from
 * what the records derive (or where a derived key was missing) is checked key by key, reading
 * the records its keys name. A clean data set so costs one scan of the keys, whatever their order.
 */
async function checkDerivedKeys(kv: KvStore, family: string, opts: ScanOptions): Promise<void> {
  const stored = new Map<string, number>();
  // Read in the store's chunks: the families hold millions of keys.
  for await (const chunk of entryChunks(kv, { gt: `${family}${SEP}`, lt: `${family}${SEP}\xff` })) {
    for (const [key, value] of chunk) {
      if (opts.slicer.due()) {
        await opts.slicer.pause();
        if (opts.aborted?.()) return;
      }
      const group = groupOf(key);
      if (group === undefined) await reportStale(key, value, family, opts);
      else stored.set(group, (stored.get(group) ?? 0) + 1);
    }
  }
  for (const [group, count] of stored) {
    if (opts.aborted?.()) return;
    if (!opts.tally.exact(group, count)) await checkKeysOneByOne(kv, family, { gte: group, lt: `${group}\xff` }, opts);
  }
}

async function reportStale(key: string, value: string, family: string, opts: ScanOptions): Promise<void> {
  const owner = family === 'u' ? value : key.slice(key.lastIndexOf(SEP) + 1);
  await opts.onProblem({ description: `stale ${describeKey(key)} naming ${owner}`, repair: { action: 'del', key } });
}

/**
 * The keys of a range, each checked against the record it names. Each named record's derived
 * keys are computed once and kept (within a budget) while its keys are met, so a record with n
 * role attributes costs O(n), not O(n²).
 */
async function checkKeysOneByOne(kv: KvStore, family: string, range: { gte: string; lt: string }, opts: ScanOptions): Promise<void> {
  const derived = new DerivedKeys(range.gte, opts.keptKeys ?? KEPT_KEYS);
  let chunk: [string, string][] = [];
  const flush = async () => {
    const named = chunk.map(([key, value]) => namedRecordKey(key, value));
    // The chunk's records' key sets are held here: adding the unread ones may evict kept ones.
    const sets = new Map<string, ReadonlySet<string> | undefined>();
    for (const recordKey of named) if (recordKey !== undefined && !sets.has(recordKey)) sets.set(recordKey, derived.get(recordKey));
    const unread = [...sets].filter(([, set]) => set === undefined).map(([recordKey]) => recordKey);
    const raws = await getManySliced(kv, unread, opts.slicer);
    for (const [i, recordKey] of unread.entries()) {
      if (opts.slicer.due()) await opts.slicer.pause();
      sets.set(recordKey, derived.add(recordKey, raws[i]));
    }
    for (const [i, [key, value]] of chunk.entries()) {
      if (opts.slicer.due()) await opts.slicer.pause();
      if (named[i] !== undefined && sets.get(named[i])?.has(key)) continue;
      await reportStale(key, value, family, opts);
    }
    chunk = [];
  };
  for await (const entry of kv.entries(range)) {
    chunk.push(entry);
    if (chunk.length < CHUNK) continue;
    await flush();
    if (opts.aborted?.()) return;
  }
  if (chunk.length > 0) await flush();
}

/** Derived-key sets of recently named records, oldest dropped first beyond KEPT_KEYS keys. Only
 * the keys of one group (`i␀kind␀field␀` or `u␀kind␀field␀`, the range being checked) are
 * derived and kept: the others are never asked for, and every set kept outlives young-generation
 * collections (all of a record's keys, kept for each group checked, were most of what the old
 * generation grew by during a check that found problems). */
class DerivedKeys {
  private readonly sets = new Map<string, ReadonlySet<string>>();
  /** Record keys in the order their sets were kept; those before `head` are dropped. A record
   * is added only when it has no kept set, and its set leaves the Map only as its place is
   * passed, so each kept set has exactly one place at or after `head`. */
  private readonly order: string[] = [];
  private head = 0;
  private readonly field: string;
  private kept = 0;

  constructor(
    private readonly group: string,
    private readonly limit: number,
  ) {
    this.field = group.split(SEP)[2] ?? '';
  }

  /** The keys a kept record derives (undefined when it is not kept). */
  get(recordKey: string): ReadonlySet<string> | undefined {
    return this.sets.get(recordKey);
  }

  /** Keeps the keys the stored record derives (none for a missing or malformed record) and
   * returns them. An index key never carries a unique value and a unique key names its holder's
   * id, so the key alone says whether the record derives it (as isJustified does). */
  add(recordKey: string, raw: string | undefined): ReadonlySet<string> {
    let keys: ReadonlySet<string> = NO_KEYS;
    const kind = recordKey.split(SEP)[1] ?? '';
    const record = raw === undefined || !isKind(kind) ? undefined : parseRecord(raw);
    if (record) {
      const inGroup = indexedEntries(declarationOf(kind), record, this.field).filter((entry) => entry.key.startsWith(this.group));
      if (inGroup.length > 0) keys = new Set(inGroup.map((entry) => entry.key));
    }
    this.sets.set(recordKey, keys);
    this.order.push(recordKey);
    this.kept += keys.size + RECORD_WEIGHT;
    if (this.kept > this.limit) this.dropOldest();
    return keys;
  }

  /** Drops the oldest sets towards 90% of the limit, at most DROP_AT_ONCE of them per call (a
   * call runs inside one slice of the scan). The order is a queue, not the Map's own: a fresh
   * iteration of a Map walks past every entry deleted since its last rehash. The newest set
   * stays. */
  private dropOldest(): void {
    for (let dropped = 0; this.kept > this.limit * 0.9 && dropped < DROP_AT_ONCE && this.head < this.order.length - 1; dropped++) {
      const oldest = this.order[this.head++];
      const set = this.sets.get(oldest);
      if (set === undefined) continue;
      this.sets.delete(oldest);
      this.kept -= set.size + RECORD_WEIGHT;
    }
    if (this.head >= DROP_AT_ONCE && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
  }
}

/** Derived keys kept between chunks of the scan. */
const KEPT_KEYS = 200_000;
/** What a kept record counts for besides its keys, in keys. With one key per record (a `name`
 * group) the Map then holds at most about 12,000 records, as many as with all of a record's
 * keys. Counted as one, a name group kept 100,000 records: dropping 10% of them, and growing or
 * compacting the Map (V8 rehashes it whole), took turns of 15-20 ms. */
const RECORD_WEIGHT = 16;
/** Sets dropped at most by one add (see dropOldest). */
const DROP_AT_ONCE = 1_024;
/** The keys of a record that derives none in the group. */
const NO_KEYS: ReadonlySet<string> = new Set();

function parseRecord(raw: string): Entity | undefined {
  try {
    const record = JSON.parse(raw) as Entity;
    return record && typeof record === 'object' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The record an index or unique key names (its kind plus the id in the key or the value). */
function namedRecordKey(key: string, value: string): string | undefined {
  const parts = key.split(SEP);
  if (parts[0] === 'i' && parts.length === 5) return recordKey(parts[1], parts[4]);
  if (parts[0] === 'u' && parts.length === 4) return recordKey(parts[1], value);
  return undefined;
}

/** `index entry identities.name = "x"`; values of secret fields are never shown. */
export function describeKey(key: string): string {
  const parts = key.split(SEP);
  const what = parts[0] === 'u' ? 'unique entry' : 'index entry';
  const [, kind, field, encoded] = parts;
  if (kind === undefined || field === undefined || encoded === undefined) return `${what} ${JSON.stringify(parts.join('/'))}`;
  const secret = isKind(kind) && fieldsOf(resourceOf(kind))[field]?.secret === true;
  return `${what} ${kind}.${field} = ${secret ? '<secret>' : showEncoded(encoded)}`;
}

function showEncoded(encoded: string): string {
  if (encoded === 'a') return 'null';
  if (encoded === 'b0' || encoded === 'b1') return encoded === 'b1' ? 'true' : 'false';
  if (encoded.startsWith('c') && encoded.length === 17) {
    const buf = Buffer.from(encoded.slice(1), 'hex');
    if (buf[0] & 0x80) buf[0] = buf[0] & 0x7f;
    else for (let i = 0; i < 8; i++) buf[i] = ~buf[i] & 0xff;
    return String(buf.readDoubleBE());
  }
  const text = decodeStringValue(encoded) ?? encoded;
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}
