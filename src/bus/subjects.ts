// Bus subject naming: the ONLY place subjects are built (commands, queries, events),
// the stable id → shard hash, and the subject grammar check shared by the bus implementations.
// Ids never enter a subject raw: entity ids are hashed to a shard, node ids are token-encoded.

import { toApiError } from '../errors.js';

/** Prefix of every Weft subject; bump the version when the wire contract changes. */
export const SUBJECT_PREFIX = 'weft.v1';

/** Default number of shards per entity kind. Changing it re-routes entities: cluster-wide setting. */
export const DEFAULT_SHARD_COUNT = 64;

/** Kinds that would collide with the non-entity subject families. */
const RESERVED_KINDS = new Set(['query', 'events', 'node', 'cluster', 'log']);

/** A plain token: safe in any subject position, never a wildcard. */
const PLAIN_TOKEN = /^[A-Za-z0-9_-]+$/;

/**
 * Where commands are served. A cluster's nodes serve `weft.v1.cluster.<name>.<kind>.<shard>`,
 * one owner for the whole cluster; a node whose log is its own (the local log) serves its actors
 * under `weft.v1.node.<node>.<kind>.<shard>`. Either way, two clusters or two nodes on one NATS
 * system never take each other's commands.
 */
export type CommandScope = { node: string } | { cluster: string };

/** The scope of a cluster named as the configuration's default (`weft`). */
export const DEFAULT_CLUSTER_SCOPE: CommandScope = { cluster: 'weft' };

function commandPrefix(scope: CommandScope): string {
  if ('cluster' in scope) {
    if (!PLAIN_TOKEN.test(scope.cluster)) throw new Error(`invalid cluster name ${JSON.stringify(scope.cluster)}: one [A-Za-z0-9_-] token`);
    return `${SUBJECT_PREFIX}.cluster.${scope.cluster}`;
  }
  return `${SUBJECT_PREFIX}.node.${idToken(scope.node)}`;
}

/** Subject of the commands for one entity: `<scope>.<kind>.<shard>` (see CommandScope). */
export function entitySubject(kind: string, entityId: string, shardCount: number = DEFAULT_SHARD_COUNT, scope: CommandScope = DEFAULT_CLUSTER_SCOPE): string {
  return `${commandPrefix(scope)}.${checkKind(kind)}.${shardOf(entityId, shardCount)}`;
}

/** Subject of one shard of a kind: `<scope>.<kind>.<shard>` (what a shard's owner serves). */
export function shardSubject(kind: string, shard: number, scope: CommandScope = DEFAULT_CLUSTER_SCOPE): string {
  return `${commandPrefix(scope)}.${checkKind(kind)}.${shard}`;
}

/** Subject of a cluster's command log stream: `weft.v1.log.<cluster>`. */
export function logSubject(clusterName: string): string {
  if (!PLAIN_TOKEN.test(clusterName)) throw new Error(`invalid cluster name ${JSON.stringify(clusterName)}: one [A-Za-z0-9_-] token`);
  return `${SUBJECT_PREFIX}.log.${clusterName}`;
}

/** Matches every shard of a kind: `<scope>.<kind>.*` (what an actor host serves). */
export function kindWildcard(kind: string, scope: CommandScope = DEFAULT_CLUSTER_SCOPE): string {
  return `${commandPrefix(scope)}.${checkKind(kind)}.*`;
}

/** Subject of an event topic within a scope: `<scope>.events.<topic>`, heard only by the nodes
 * of that cluster (or that one node); a topic is dot-separated plain tokens. */
export function scopedEventSubject(scope: CommandScope, topic: string): string {
  return `${commandPrefix(scope)}.events.${checkTopic(topic)}`;
}

/** Subject of one node's query handler: `weft.v1.query.<node>`; unsafe ids are encoded. */
export function querySubject(nodeId: string): string {
  return `${SUBJECT_PREFIX}.query.${idToken(nodeId)}`;
}

/** Subject of an event topic: `weft.v1.events.<topic>`; a topic is dot-separated plain tokens. */
export function eventSubject(topic: string): string {
  return `${SUBJECT_PREFIX}.events.${checkTopic(topic)}`;
}

function checkTopic(topic: string): string {
  if (!topic.split('.').every((t) => PLAIN_TOKEN.test(t))) {
    throw new Error(`invalid event topic ${JSON.stringify(topic)}: use dot-separated [A-Za-z0-9_-] tokens`);
  }
  return topic;
}

/** The shard (0 .. shardCount-1) an id belongs to. Stable across processes, nodes and releases. */
export function shardOf(id: string, shardCount: number = DEFAULT_SHARD_COUNT): number {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > 0xffff) {
    throw new Error(`invalid shard count ${shardCount}: an integer in 1..65535`);
  }
  return stableHash(id) % shardCount;
}

/** Is subject well formed: non-empty tokens, no whitespace; with wildcards, `*` and a final `>`. */
export function isValidSubject(subject: string, allowWildcards: boolean): boolean {
  if (subject.length === 0 || /\s/.test(subject)) return false;
  const tokens = subject.split('.');
  return tokens.every((t, i) => {
    if (t.length === 0) return false;
    if (t === '*' || t === '>') return allowWildcards && (t === '*' || i === tokens.length - 1);
    return !t.includes('*') && !t.includes('>');
  });
}

/** Throws UNHANDLED (as an ApiError) for a malformed subject; both buses check with this. */
export function assertSubject(subject: string, allowWildcards: boolean): void {
  if (!allowWildcards && knownPlain.has(subject)) return;
  if (!isValidSubject(subject, allowWildcards)) throw toApiError(new Error(`invalid subject ${JSON.stringify(subject)}`));
  if (!allowWildcards) {
    if (knownPlain.size >= KNOWN_SUBJECTS) knownPlain.clear();
    knownPlain.add(subject);
  }
}

/** Plain subjects already found valid (a few hundred in practice: queries and command shards). */
const knownPlain = new Set<string>();
const KNOWN_SUBJECTS = 10_000;

/** The default report of an event handler's failure (events have nobody to answer). */
export function reportEventError(err: unknown, subject: string): void {
  console.error(`[bus] event handler on ${subject} failed:`, err);
}

/** 32-bit FNV-1a over the UTF-8 bytes, then the murmur3 finaliser so low bits spread well. */
export function stableHash(id: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(id, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** One subject token for an id: plain ids as is, anything else `~` + base64url (injective). */
function idToken(id: string): string {
  if (PLAIN_TOKEN.test(id)) return id;
  return `~${Buffer.from(id, 'utf8').toString('base64url')}`;
}

function checkKind(kind: string): string {
  if (!PLAIN_TOKEN.test(kind) || RESERVED_KINDS.has(kind)) {
    throw new Error(`invalid entity kind ${JSON.stringify(kind)}: one [A-Za-z0-9_-] token, not query/events`);
  }
  return kind;
}
