// Commands: what actors append to the log and every replica applies in order. A command is a
// list of ops applied atomically (all or none). Everything non-deterministic is already decided.

import { createHash } from 'node:crypto';
import type { WireError } from '../errors.js';
import type { Entity } from './entity.js';
import type { Kind } from './registry.js';

export type { Entity };

/**
 * `expect` on update, set and delete: the fingerprint (recordFingerprint) of the stored record
 * the op was built from. Apply checks it against the record the command meets, before any op of
 * the command runs; when it differs (another writer changed the entity meanwhile) the whole
 * command is rejected with 409 STALE_WRITE and the proposing actor prepares it again from a fresh
 * read. Absent: the op applies to whatever is stored (a field merge decided without reading).
 */
export type Op =
  /** Insert a new entity; fails if the id exists or a unique field collides. */
  | { op: 'create'; kind: Kind; record: Entity }
  /** Replace a stored entity wholesale; fails with NOT_FOUND if absent. */
  | { op: 'update'; kind: Kind; record: Entity; expect?: string }
  /** Merge fields into a stored entity; a missing entity fails unless ifExists. */
  | { op: 'set'; kind: Kind; id: string; fields: Record<string, unknown>; ifExists?: boolean; expect?: string }
  /** Delete one entity with the kind's guards and cascades; a missing one fails unless ifExists.
   * `system` marks a delete the controller itself decided (it passes the API-only guards). */
  | { op: 'delete'; kind: Kind; id: string; ifExists?: boolean; system?: boolean; expect?: string }
  /** Delete every entity of kind whose indexed field equals value (with cascades). */
  | { op: 'deleteWhere'; kind: Kind; field: string; value: string; system?: boolean }
  /** A data-integrity repair (POST /database/fix-data-integrity). Re-validated when applied:
   * it changes only what the state it meets still needs, so every node converges. */
  | { op: 'repair'; repair: Repair };

/** One integrity repair, decided by the fixer from a snapshot and re-checked by apply. */
export type Repair =
  /** Put an index, unique or access-link key, if the records justify it when applied. */
  | { action: 'put'; key: string; value: string }
  /** Delete an index, unique or access-link key, unless the records justify it when applied. */
  | { action: 'del'; key: string }
  /** Set the kind's entity count to the number of its records. */
  | { action: 'recount'; kind: string }
  /** Drop the references of `field` that name missing entities: cascade-delete the record,
   * strip ids from a list, or set a nullable field to null (store/integrity-rules.ts). */
  | { action: 'dropRef'; kind: string; id: string; field: string };

/**
 * The fingerprint of a stored record, for an op's `expect`: base64url of the first 12 bytes of
 * SHA-256 over the record's JSON text (JSON.stringify of the record as stored and read back,
 * which is the text apply wrote). It depends on the record alone, so every node computes the
 * same one for the same stored record. A change of any field (updatedAt included) changes it.
 */
export function recordFingerprint(record: Entity): string {
  return createHash('sha256').update(JSON.stringify(record)).digest().subarray(0, 12).toString('base64url');
}

export interface Command {
  /** When the proposer decided it (ISO-8601); apply uses this, never the clock. */
  at: string;
  /** The proposing node (for tracing). */
  origin: string;
  ops: Op[];
  /** The request id of the command message it was proposed for (cluster mode): a requester
   * that lost its answer finds the outcome by it. */
  rid?: string;
  /** ISO-8601 time after which the command may no longer be stored (cluster mode): apply
   * refuses it when the log's own timestamp of the entry is later, the same on every node. */
  expires?: string;
  /** A fence (cluster mode, no ops): the request id whose earlier delivery it shuts out. It is
   * appended under the msg id of that delivery's first entry (commandMsgId(rid, attempt, 1)), so
   * JetStream drops the delivery's own first entry for two minutes, and apply refuses it with
   * FENCED, which a proposer that meets it takes as "stop" (see command-fences.ts). */
  fence?: string;
}

/** The error code of a fence's apply result (and so of a proposal that met a fence). */
export const FENCED = 'FENCED';

/**
 * The JetStream Nats-Msg-Id of the `n`-th entry (from 1) proposed while handling delivery
 * `attempt` (0 = the requester's first send) of the command with request id `rid`. Each delivery
 * proposes its entries one after another, so its first entry precedes all the others.
 */
export function commandMsgId(rid: string, attempt: number, n: number): string {
  return `${rid}.${attempt}.${n}`;
}

/** What a command does when all it does is API-session bookkeeping: logins create sessions
 * (`created`, a login without envInfo/sdkInfo), and the session keeper's flushes record their
 * activity (`touched`: sets of `lastActivityAt` alone). Of what is presented, such a command
 * changes only the new sessions' identities (`hasApiSession`) and the touched sessions' own
 * renderings; how an existing token resolves does not change (activity only moves forward).
 * Undefined for any other command. */
export interface SessionBookkeeping {
  created: Array<{ id: string; identityId: string }>;
  touched: string[];
}

export function sessionBookkeepingOnly(command: Command): SessionBookkeeping | undefined {
  const created: SessionBookkeeping['created'] = [];
  const touched: string[] = [];
  for (const op of command.ops) {
    if (op.op === 'repair' || op.kind !== 'api-sessions') return undefined;
    if (op.op === 'create' && typeof op.record.identityId === 'string') created.push({ id: op.record.id, identityId: op.record.identityId });
    else if (op.op === 'set' && isActivityOnly(op.fields)) touched.push(op.id);
    else return undefined;
  }
  return created.length + touched.length > 0 ? { created, touched } : undefined;
}

function isActivityOnly(fields: Record<string, unknown>): boolean {
  let count = 0;
  for (const name in fields) {
    if (name !== 'lastActivityAt') return false;
    count++;
  }
  return count === 1;
}

/** The outcome of applying one command, identical on every node. */
export type ApplyResult = { ok: true } | { ok: false; error: WireError };
