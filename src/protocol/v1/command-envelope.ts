// What every command on an entity subject (`weft.v1.<kind>.<shard>`) carries besides its op:
// the actor key, the entity id, and the requester's request id, deadline, applied sequence and
// re-send count (cluster mode). The CRUD commands every actor family serves are declared here once.

import { optNum, optStr, str, type Fields } from './message-fields.js';

/** The envelope fields of a command message. */
export type CommandEnvelope = {
  /** The actor the command is for (entity id, or the kind of a catalog). */
  key: string;
  /** The entity the command is about (the key for entity actors). */
  id?: string;
  /** Random id of the request (cluster mode: finds its outcome in the log after a lost answer). */
  rid?: string;
  /** Epoch ms after which the requester no longer waits. */
  deadline?: number;
  /** Cluster mode: epoch ms after which the owner no longer takes the command up from its
   * mailbox, stops waiting for `seen`, and gives up a first append JetStream keeps refusing: the
   * requester is then answered at once that nothing was written (see ActorHost, Proposer). */
  proposeBy?: number;
  /** Cluster mode: the same limit as `proposeBy`, as ms from the command's arrival at the owner.
   * The owner uses it when present, so that its clock need not agree with the requester's. */
  proposeWithinMs?: number;
  /** Cluster mode: how far the requester's node had applied the log (the owner applies at
   * least that far before handling; see ActorHost). */
  seen?: number;
  /** Cluster mode: the n-th re-send of the command (absent on the first send), after the owner
   * it first reached was declared gone; the owner fences the earlier deliveries first. */
  attempt?: number;
};

/** The CRUD commands of every actor family; `body` is the request body, validated by the
 * resource declaration on the receiving side. */
export type CrudCommand =
  | { op: 'create'; body: unknown }
  | { op: 'replace'; body: unknown }
  | { op: 'patch'; body: unknown }
  | { op: 'delete' };

/** The requester's fields of a command: what the actor host needs before any handler runs. */
export type RequestFields = Pick<CommandEnvelope, 'rid' | 'deadline' | 'proposeBy' | 'proposeWithinMs' | 'seen' | 'attempt'>;

/** Reads the requester's fields of a received command (the only reader of rid, deadline, proposeBy, proposeWithinMs, seen, attempt). */
export function readRequestFields(m: Fields): RequestFields {
  return {
    rid: optStr(m, 'rid'), deadline: optNum(m, 'deadline'), proposeBy: optNum(m, 'proposeBy'), proposeWithinMs: optNum(m, 'proposeWithinMs'),
    seen: optNum(m, 'seen'), attempt: optNum(m, 'attempt'),
  };
}

/** The requester's fields with `proposeBy` on this node's clock: counted from the command's
 * arrival when the requester sent the limit as a duration (the two clocks need not agree). The
 * `deadline` stays the requester's number: a command's expiry is bounded by it (see Proposer). */
export function onOwnerClock(request: RequestFields, arrivedAt: number): RequestFields {
  const within = request.proposeWithinMs;
  if (within === undefined || !Number.isFinite(within) || within < 0) return request;
  return { ...request, proposeBy: arrivedAt + within };
}

/** Reads the envelope fields of a received command. */
export function readEnvelope(m: Fields): CommandEnvelope {
  return { key: str(m, 'key'), id: optStr(m, 'id'), ...readRequestFields(m) };
}
