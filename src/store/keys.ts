// The replica's key layout in the ordered KV store, and the order-preserving encoding of
// indexed values. The only file that knows how keys are spelled.

import { compareUtf8 } from './compare-utf8.js';

const SEP = '\x00';

/** `r␀kind␀id` → record JSON */
export function recordKey(kind: string, id: string): string {
  return `r${SEP}${kind}${SEP}${id}`;
}

export function recordRange(kind: string): { gt: string; lt: string } {
  return { gt: `r${SEP}${kind}${SEP}`, lt: `r${SEP}${kind}${SEP}\xff` };
}

export function idFromRecordKey(key: string): string {
  return key.slice(key.indexOf(SEP, 2) + 1);
}

/** `u␀kind␀field␀value` → id (unique fields) */
export function uniqueKey(kind: string, field: string, value: unknown): string {
  return `u${SEP}${kind}${SEP}${field}${SEP}${encodeValue(value)}`;
}

/** `i␀kind␀field␀encodedValue␀id` → '' (secondary indexes; one entry per set element) */
export function indexKey(kind: string, field: string, value: unknown, id: string): string {
  return `${indexPrefix(kind, field)}${encodeValue(value)}${SEP}${id}`;
}

export function indexPrefix(kind: string, field: string): string {
  return `i${SEP}${kind}${SEP}${field}${SEP}`;
}

/** The key range of index entries whose value equals `value`. */
export function indexValueRange(kind: string, field: string, value: unknown): { gt: string; lt: string } {
  const base = `${indexPrefix(kind, field)}${encodeValue(value)}${SEP}`;
  return { gt: base, lt: `${base}\xff` };
}

/** The key range covering a whole index. */
export function indexRange(kind: string, field: string): { gt: string; lt: string } {
  const base = indexPrefix(kind, field);
  return { gt: base, lt: `${base}\xff` };
}

export function idFromIndexKey(key: string): string {
  return key.slice(key.lastIndexOf(SEP) + 1);
}

/** The encoded-value part of an index key (to group equal values). */
export function valueFromIndexKey(key: string, kind: string, field: string): string {
  return key.slice(indexPrefix(kind, field).length, key.lastIndexOf(SEP));
}

export const APPLIED_SEQ_KEY = `m${SEP}appliedSeq`;

export function countKey(kind: string): string {
  return `n${SEP}${kind}`;
}

/**
 * Encodes a scalar so that byte order equals value order: null < false < true < numbers <
 * strings (datetimes are stored as ISO-8601 UTC strings, which already sort correctly).
 * NUL and \x01 in strings are escaped so they can never be mistaken for the separator.
 */
export function encodeValue(value: unknown): string {
  if (value === null || value === undefined) return 'a';
  if (typeof value === 'boolean') return value ? 'b1' : 'b0';
  if (typeof value === 'number') return `c${encodeNumber(value)}`;
  if (value instanceof Date) return `d${value.toISOString()}`;
  const text = String(value);
  return `d${ESCAPED.test(text) ? text.replace(/\x01/g, '\x01\x02').replace(/\x00/g, '\x01\x01') : text}`;
}

/** A string that needs escaping (most never do: one test instead of two replaces). */
const ESCAPED = /[\x00\x01]/;

/** The string an encoded value stands for, or undefined when it is not a string. */
export function decodeStringValue(encoded: string): string | undefined {
  if (!encoded.startsWith('d')) return undefined;
  return encoded.slice(1).replace(/\x01\x01/g, '\x00').replace(/\x01\x02/g, '\x01');
}

function encodeNumber(n: number): string {
  const buf = Buffer.alloc(8);
  buf.writeDoubleBE(n);
  if (n < 0 || Object.is(n, -0)) {
    for (let i = 0; i < 8; i++) buf[i] = ~buf[i] & 0xff;
  } else {
    buf[0] |= 0x80;
  }
  return buf.toString('hex');
}

/** `l␀policyKind␀policyId␀targetKind␀entityId` → '' : the policy selects the entity. */
export function policyLinkKey(policyKind: string, policyId: string, targetKind: string, entityId: string): string {
  return `l${SEP}${policyKind}${SEP}${policyId}${SEP}${targetKind}${SEP}${entityId}`;
}

/** All entities of targetKind a policy selects. */
export function policyLinkRange(policyKind: string, policyId: string, targetKind?: string): { gt: string; lt: string } {
  const base = `l${SEP}${policyKind}${SEP}${policyId}${SEP}${targetKind === undefined ? '' : `${targetKind}${SEP}`}`;
  return { gt: base, lt: `${base}\xff` };
}

/**
 * `e␀targetKind␀entityId␀policyKind` → the ids of the policies of that kind that select the
 * entity, sorted (compareUtf8) and joined by ␀; the key is absent when there are none. The
 * reverse of the policy links, one key per entity and policy kind (not one per link).
 */
export function entityPoliciesKey(targetKind: string, entityId: string, policyKind: string): string {
  return `e${SEP}${targetKind}${SEP}${entityId}${SEP}${policyKind}`;
}

/** Every policy-list key of an entity (one per policy kind that selects it). */
export function entityPoliciesRange(targetKind: string, entityId: string): { gt: string; lt: string } {
  const base = `e${SEP}${targetKind}${SEP}${entityId}${SEP}`;
  return { gt: base, lt: `${base}\xff` };
}

/** The policy ids a policy-list value holds (none for an absent key). */
export function splitPolicyIds(value: string | undefined): string[] {
  return value === undefined || value === '' ? [] : value.split(SEP);
}

/** The value of a policy-list key: ids sorted, without repeats ('' = none: delete the key). */
export function joinPolicyIds(ids: Iterable<string>): string {
  return [...new Set(ids)].sort(compareUtf8).join(SEP);
}

/** The last component of a link key (the linked id). */
export function lastPart(key: string): string {
  return key.slice(key.lastIndexOf(SEP) + 1);
}

/** The parts of a link key after its prefix letter. */
export function linkParts(key: string): string[] {
  return key.split(SEP).slice(1);
}

/**
 * The bucket of a key: its family and kind (`i␀identities`, `r␀identities`), the part that the
 * two bounds of every range apply reads share, so every key inside such a range has it too.
 * Undefined for a key with fewer than two separators.
 */
export function keyBucket(key: string): string | undefined {
  const first = key.indexOf(SEP);
  if (first < 0) return undefined;
  const second = key.indexOf(SEP, first + 1);
  return second < 0 ? undefined : key.slice(0, second);
}

/** True for a record key (`r␀kind␀id`). */
export function isRecordKey(key: string): boolean {
  return key.startsWith(`r${SEP}`);
}

/**
 * The replica's data format, kept in `m␀format`. 1 (no key): one `b␀targetKind␀id␀policyKind␀
 * policyId` key per policy link. 2: one `e…` policy-list key per entity and policy kind.
 */
export const FORMAT_KEY = `m${SEP}format`;
export const REPLICA_FORMAT = 2;

/** Format 1's reverse links, `b␀targetKind␀entityId␀policyKind␀policyId` (read only to upgrade). */
export const LEGACY_ENTITY_LINKS = { gt: `b${SEP}`, lt: `b${SEP}\xff` };
