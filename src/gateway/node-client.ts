// How the gateway reaches the rest of the node: commands to actors (by entity shard or kind
// catalog) and reads to this node's query handler — always through the bus.

import { randomUUID } from 'node:crypto';
import type { Bus } from '../bus/bus.js';
import { readCommandReply, type CommandReply } from '../bus/command-reply.js';
import { DEFAULT_CLUSTER_SCOPE, DEFAULT_SHARD_COUNT, entitySubject, querySubject, shardOf, type CommandScope } from '../bus/subjects.js';
import { resourceOf } from '../domain/registry.js';
import type { ResourceDecl } from '../domain/resource.js';
import { ApiError, fromWire, NO_RESPONDERS, NOT_STORED, type WireError } from '../errors.js';
import type { IdentityOp, IdentityPayload, IdentityReply } from '../protocol/v1/identity-commands.js';
import type { AnyQuery, QueryReply, QueryRequest } from '../protocol/v1/query-messages.js';
import { requestArrival } from './request-arrival.js';

function causeCode(err: ApiError): unknown {
  return (err.apiCause as { code?: unknown } | undefined)?.code;
}

function isNoResponders(err: unknown): boolean {
  return err instanceof ApiError && causeCode(err) === NO_RESPONDERS;
}

/** 503 causes that say the command wrote nothing: it was never sent (no node serves the shard,
 * no NATS), the owner had not applied far enough to handle it, or JetStream refused its first
 * append until its `proposeBy` (NATS_UNREACHABLE). */
const NOTHING_WRITTEN = new Set<unknown>([NO_RESPONDERS, 'NATS_UNREACHABLE', 'CATCHING_UP']);

/** The command may have been delivered and stored, but its answer did not come back. */
function isLostAnswer(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.code === 'TIMEOUT') return true;
  return err.code === 'SERVICE_UNAVAILABLE' && !NOTHING_WRITTEN.has(causeCode(err));
}

/** Cluster-mode options of a NodeClient. */
export interface NodeClientOptions {
  /** Cluster mode: how far this node has applied the log, sent with each command as `seen` (the
   * owner applies at least that far before handling it). */
  appliedSeq?: () => number;
  /** Cluster mode: waits until this node has applied the sequence a command's handling appended,
   * so that what follows reads the write (for at most `maxMs` when given). */
  waitApplied?: (seq: number, maxMs?: number) => Promise<void>;
  /** While a shard has no owner (a node died or joined; ownership moves), a command is tried
   * again for up to this many ms after its request reached the node. 0 = fail at once. */
  handoverMs?: number;
  /** Cluster mode: finds the outcome of a command whose answer was lost, by its request id,
   * knowing that nothing proposed for it can be stored after `settledBy` (epoch ms). */
  recover?: (rid: string, settledBy: number) => Promise<RecoveredOutcome>;
  /** Cluster mode: whether the log can be read now (its last sequence answered); a command that
   * may have been stored is answered OUTCOME_UNKNOWN after OUTCOME_WAIT_MS while it cannot. */
  logReadable?: () => Promise<boolean>;
  /** Cluster mode: how many times this node lost its NATS connection so far; a command sent
   * before a loss may have lost its answer, and is answered OUTCOME_UNKNOWN after OUTCOME_WAIT_MS. */
  connectionLosses?: () => number;
  /** Overrides OUTCOME_WAIT_MS (tests). */
  outcomeWaitMs?: number;
  /** Overrides RECHECK_MS (tests). */
  recheckMs?: number;
  /** Cluster mode: how long after its deadline a command may still be stored (ms). */
  commandTtlMs?: number;
  /** Cluster mode: watches the node that owns `shard` now; `gone` resolves once it is declared
   * gone, and the command waiting for it is then sent again (see deliver()). */
  watchOwner?: (shard: number) => { gone: Promise<void>; stop(): void };
}

/** What a shard owner answers a command sent again whose first delivery stored it first
 * (cluster/command-fences.ts; the gateway does not import the cluster). */
const EARLIER_DELIVERY_STORED = 'EARLIER_DELIVERY_STORED';
/** The cause code of a 504 whose write may or may not have been stored. */
const OUTCOME_UNKNOWN = 'OUTCOME_UNKNOWN';
const GONE: unique symbol = Symbol('owner gone');

/** A delivery's reply, or the first delivery's pending reply when it was sent again. */
type Delivered = { reply: CommandReply } | { resent: Promise<CommandReply> } | { earlierStored: Promise<CommandReply> };
const NEVER = new Promise<never>(() => {});

function causeOf(err: unknown): unknown {
  return err instanceof ApiError ? causeCode(err) : undefined;
}

/** What recovery found: the apply's result, certainly not stored, or unknown. */
export type RecoveredOutcome = { ok: true } | { ok: false; error: WireError } | 'none' | 'unknown';

/** How long a command's requester waits for the actor's answer (ms). */
const COMMAND_TIMEOUT_MS = 10_000;
/** How long a command may wait in its owner's mailbox (then 429 NOT_TAKEN_UP) or for the owner
 * to apply the requester's `seen` (503 CATCHING_UP), and how long its first append waits while
 * JetStream refuses it (503 NATS_UNREACHABLE), so that answers stay within a few seconds while
 * the log fails over; each of these wrote nothing (ms). */
const PROPOSE_WITHIN_MS = 2_000;
/** A command that began late (after a read barrier that waited) gets less: it is taken up, or
 * refused as not taken up, by this long after its request reached the node (ms), so that the
 * refusal comes within the 5 s bound; but never less than MIN_PROPOSE_MS. */
const PROPOSE_BY_MS = 4_500;
const MIN_PROPOSE_MS = 500;
/** After a write is done, how long since its request reached the node the requester waits for
 * its own replica to apply it before answering anyway (the next request's read barrier waits for it). */
const ANSWER_WAIT_MS = 3_500;
/** How long after its request reached the node (or its own start, outside a request) a command
 * that may have been stored is waited for (ms). Past it,
 * while the log has not told whether it was stored (a NATS server died with the append on its
 * way: JetStream elects a new stream leader, 5 to 15 s), the answer is 504 `OUTCOME_UNKNOWN`
 * instead of a wait of up to 19 s (the command timeout plus the expiry) that clients would not
 * sit through. It says the write may have been stored, never that it failed. */
const OUTCOME_WAIT_MS = 4_000;
/** How long before deciding a check asks the log (the stream's last sequence gives up after
 * 1.5 s), and, past OUTCOME_WAIT_MS, how often a command still waiting for its owner checks the
 * log again (ms). */
const RECHECK_MS = 1_500;
/** Past OUTCOME_WAIT_MS, how often a command still waiting looks whether its answer was lost
 * meanwhile (ms): it is then answered OUTCOME_UNKNOWN at once, within the 5 s bound. */
const LOST_POLL_MS = 200;

/** How far a command in a cluster has got: sent to an owner; waiting for the log to tell its
 * outcome because its answer was lost. */
interface CommandPhase {
  sent: boolean;
  recovering: boolean;
  /** NodeClientOptions.connectionLosses when the command was first sent. */
  lossesAtSend?: number;
}
/** Commands whose answer recovery can rebuild from the outcome alone. */
const REBUILDABLE = new Set(['create', 'replace', 'patch', 'delete']);

export class NodeClient {
  private readonly querySubject: string;

  constructor(
    private readonly bus: Bus,
    nodeId: string,
    private readonly scope: CommandScope = DEFAULT_CLUSTER_SCOPE,
    private readonly opts: NodeClientOptions = {},
  ) {
    this.querySubject = querySubject(nodeId);
  }

  /** True when this node is a cluster member (its commands may reach other nodes). */
  get clustered(): boolean {
    return this.opts.recover !== undefined;
  }

  /** A read answered from this node's replica (see QueryRequest for the messages). */
  query<M extends AnyQuery>(msg: M, opts?: { timeoutMs?: number }): Promise<QueryReply<M>> {
    return this.bus.request(this.querySubject, msg, opts) as Promise<QueryReply<M>>;
  }

  /** A read whose answer is wanted as JSON text, to be written into a response unparsed. */
  queryJson(msg: QueryRequest): Promise<string> {
    return this.bus.request(this.querySubject, msg, { raw: true }) as Promise<string>;
  }

  /** A command for identity `id`'s actor (see IdentityCommand for the messages). */
  identity<Op extends IdentityOp>(op: Op, id: string, ...payload: {} extends IdentityPayload<Op> ? [IdentityPayload<Op>?] : [IdentityPayload<Op>]): Promise<IdentityReply<Op>> {
    return this.command<IdentityReply<Op>>(resourceOf('identities'), op, id, (payload[0] ?? {}) as Record<string, unknown>);
  }

  /** A command for the actor that owns `id` of this kind (entity actor or kind catalog). */
  command<T = unknown>(decl: ResourceDecl, op: string, id: string, payload: Record<string, unknown> = {}): Promise<T> {
    const [subject, msg] = decl.actor === 'entity'
      ? [entitySubject(decl.entity, id, DEFAULT_SHARD_COUNT, this.scope), { ...payload, key: id, op, id }]
      : [entitySubject('catalog', decl.kind, DEFAULT_SHARD_COUNT, this.scope), { ...payload, key: decl.kind, op, id }];
    if (!this.clustered) return this.bus.request(subject, msg) as Promise<T>;
    return this.commandInCluster(subject, msg, shardOf(decl.actor === 'entity' ? id : decl.kind, DEFAULT_SHARD_COUNT)) as Promise<T>;
  }

  /** A command in a cluster. Past OUTCOME_WAIT_MS after its request reached the node, a command that may have been stored is
   * answered 504 OUTCOME_UNKNOWN when its outcome waits for the log: its answer was lost (this
   * node lost NATS since sending it, or recovery waits for the log), or the log cannot be read
   * now (no stream leader, no NATS). A
   * command that is only slow while the log answers (a busy owner) is waited for as before. */
  private async commandInCluster(subject: string, body: Record<string, unknown>, shard: number): Promise<unknown> {
    // Counted from the request's arrival: a read barrier that waited before the command does
    // not push its answer later. A command started after OUTCOME_WAIT_MS - RECHECK_MS (the
    // barrier waits at most 3.5 s) decides once the log answered or gave up (1.5 s).
    const arrived = Math.min(Date.now(), requestArrival() ?? Infinity);
    const phase: CommandPhase = { sent: false, recovering: false };
    const answering = this.answerInCluster(subject, body, shard, arrived, phase);
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const unknown = new Promise<never>((_, reject) => {
      // In a hand-over nothing was sent yet: that wait is bounded on its own and wrote nothing.
      const answerLost = () => phase.sent && (phase.recovering || (this.opts.connectionLosses?.() ?? 0) !== (phase.lossesAtSend ?? 0));
      const sleep = (ms: number) => new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))));
      const unknownNow = () => reject(new ApiError('TIMEOUT', {
        code: OUTCOME_UNKNOWN,
        message: 'the cluster log has not told yet whether this write was stored (it is failing over); it may have been: read it back before sending it again',
      }));
      // Each check asks the log as it begins and decides `recheckMs` later (the first one at
      // OUTCOME_WAIT_MS), so the question's own timeout does not delay the answer. Past the
      // first, an answer lost meanwhile (recovery began, NATS was lost) is answered within
      // LOST_POLL_MS rather than at the next check.
      const recheckMs = this.opts.recheckMs ?? RECHECK_MS;
      const check = async (decideAt: number, first: boolean) => {
        const readable = this.opts.logReadable?.() ?? Promise.resolve(true);
        while (Date.now() < decideAt) {
          await sleep(first ? decideAt - Date.now() : Math.min(LOST_POLL_MS, decideAt - Date.now()));
          if (settled) return;
          if (!first && answerLost()) return unknownNow();
        }
        const waitsForLog = answerLost() || (phase.sent && !(await readable));
        if (settled) return;
        if (!waitsForLog) return void check(Date.now() + recheckMs, false);
        unknownNow();
      };
      const decideAt = arrived + (this.opts.outcomeWaitMs ?? OUTCOME_WAIT_MS);
      timer = setTimeout(() => void check(decideAt, true), Math.max(0, decideAt - recheckMs - Date.now()));
    });
    answering.catch(() => undefined);
    unknown.catch(() => undefined);
    try {
      return await Promise.race([answering, unknown]);
    } finally {
      settled = true;
      clearTimeout(timer);
    }
  }

  private async answerInCluster(subject: string, body: Record<string, unknown>, shard: number, arrived: number, phase: CommandPhase): Promise<unknown> {
    const handoverEnds = arrived + (this.opts.handoverMs ?? 0);
    const rid = randomUUID();
    let deadline = 0;
    /** The first delivery's reply once the command was sent again (see deliver()). */
    let superseded: Promise<CommandReply> | undefined;
    /** The command's outcome in the log, once nothing proposed for it can still be stored. */
    const fromLog = () => {
      phase.recovering = true;
      return this.opts.recover!(rid, deadline + (this.opts.commandTtlMs ?? 0) + 1_000);
    };
    for (let pause = 20; ; pause = Math.min(pause * 2, 320)) {
      // A command sent again keeps its deadline: nothing proposed for it is stored after it.
      if (!superseded) deadline = Date.now() + COMMAND_TIMEOUT_MS;
      let delivered: Delivered;
      try {
        // Each delivery gets PROPOSE_WITHIN_MS to be taken up, but no later than PROPOSE_BY_MS
        // after its request reached the node (at least MIN_PROPOSE_MS): past it the owner answers at once
        // that nothing was written, unless an append of it may have been stored.
        const proposeWithinMs = Math.max(MIN_PROPOSE_MS, Math.min(PROPOSE_WITHIN_MS, arrived + PROPOSE_BY_MS - Date.now()));
        const proposeBy = Date.now() + proposeWithinMs;
        const msg = { ...body, rid, deadline, proposeBy, proposeWithinMs, seen: this.opts.appliedSeq?.() ?? 0, ...(superseded ? { attempt: 1 } : {}) };
        if (!phase.sent) phase.lossesAtSend = this.opts.connectionLosses?.();
        phase.sent = true;
        delivered = await this.deliver(subject, msg, deadline, shard, superseded);
      } catch (err) {
        // Nobody serves the shard: this delivery was not made, so asking again is safe.
        if (isNoResponders(err) && Date.now() + pause <= handoverEnds) {
          await new Promise((resolve) => setTimeout(resolve, pause));
          continue;
        }
        // Once the command was sent again, a failure of the second delivery says nothing of the
        // first one's: only the log can tell.
        if (!this.opts.recover || !(superseded || isLostAnswer(err))) throw err;
        return this.recovered(body, await fromLog());
      }
      if ('resent' in delivered) {
        superseded = delivered.resent;
        continue;
      }
      if ('earlierStored' in delivered) {
        // The first delivery's answer, or the log's (a stored success is found at once).
        const first = delivered.earlierStored.then((reply) => ({ reply }), () => NEVER);
        const logged = fromLog().then((outcome) => ({ outcome }));
        const found = await Promise.race([first, logged]);
        if ('outcome' in found) return this.recovered(body, found.outcome);
        delivered = found;
      }
      const reply = delivered.reply;
      if (reply.error) {
        const refusal = fromWire(reply.error);
        if (!this.opts.recover || !isLostAnswer(refusal)) throw refusal;
        return this.recovered(body, await fromLog());
      }
      // The write is done: a wait that fails now (this node fell behind) must not turn its
      // answer into a failure. The next request's read barrier still waits for the write.
      if (reply.seq > 0) await this.opts.waitApplied?.(reply.seq, Math.max(0, arrived + ANSWER_WAIT_MS - Date.now())).catch(() => undefined);
      return reply.answer;
    }
  }

  /**
   * Sends one delivery of a command and waits for its reply. A first delivery whose owner is
   * declared gone meanwhile (it died after NATS handed it the message) is sent again: the new
   * owner fences the first one out of the log before handling it (cluster/command-fences.ts),
   * so its answer is the command's. The first delivery's reply still counts when it proves it
   * stored the command (seq > 0: the fence then finds its entry and the new owner does nothing);
   * when the new owner says the first one stored it (EARLIER_DELIVERY_STORED), that delivery's
   * answer or the log's outcome is the answer.
   */
  private async deliver(subject: string, msg: Record<string, unknown>, deadline: number, shard: number, superseded?: Promise<CommandReply>): Promise<Delivered> {
    const sending = this.bus.request(subject, msg, { timeoutMs: Math.max(1, deadline - Date.now()) }).then(readCommandReply);
    if (superseded) {
      const stored = superseded.then((reply) => (reply.seq > 0 ? reply : NEVER), () => NEVER);
      try {
        return { reply: await Promise.race([sending, stored]) };
      } catch (err) {
        if (causeOf(err) === EARLIER_DELIVERY_STORED) return { earlierStored: superseded };
        throw err;
      }
    }
    const watch = this.opts.watchOwner?.(shard);
    if (!watch) return { reply: await sending };
    try {
      const first = await Promise.race([sending, watch.gone.then((): typeof GONE => GONE)]);
      if (first !== GONE) return { reply: first };
    } finally {
      watch.stop();
    }
    sending.catch(() => undefined);
    return { resent: sending };
  }

  /** The answer of a command whose reply was lost, from its outcome in the log. */
  private recovered(body: Record<string, unknown>, outcome: RecoveredOutcome): unknown {
    if (outcome === 'none') {
      throw new ApiError('SERVICE_UNAVAILABLE', { code: NOT_STORED, message: 'the write was not stored; it is safe to send it again' });
    }
    if (outcome === 'unknown') {
      throw new ApiError('TIMEOUT', { code: OUTCOME_UNKNOWN, message: 'the cluster log could not be read to tell whether the write was stored; read it back before sending it again' });
    }
    if (!outcome.ok) throw fromWire(outcome.error);
    if (!REBUILDABLE.has(String(body.op))) {
      throw new ApiError('TIMEOUT', { code: 'STORED_ANSWER_LOST', message: 'the write was stored, but its answer was lost on the way; read it back to see the result' });
    }
    return body.op === 'create' ? { id: body.id } : undefined;
  }
}
