// How the gateway reaches the rest of the node: commands to actors (by entity shard or kind
// catalog) and reads to this node's query handler — always through the bus.

import { randomUUID } from 'node:crypto';
import type { Bus } from '../bus/bus.js';
import { readCommandReply } from '../bus/command-reply.js';
import { DEFAULT_SHARD_COUNT, entitySubject, querySubject, type CommandScope } from '../bus/subjects.js';
import { resourceOf } from '../domain/registry.js';
import type { ResourceDecl } from '../domain/resource.js';
import { ApiError, fromWire, NO_RESPONDERS, type WireError } from '../errors.js';
import type { IdentityOp, IdentityPayload, IdentityReply } from '../protocol/v1/identity-commands.js';
import type { AnyQuery, QueryReply, QueryRequest } from '../protocol/v1/query-messages.js';

function causeCode(err: ApiError): unknown {
  return (err.apiCause as { code?: unknown } | undefined)?.code;
}

function isNoResponders(err: unknown): boolean {
  return err instanceof ApiError && causeCode(err) === NO_RESPONDERS;
}

/** The command may have been delivered and stored, but its answer did not come back. A 503
 * from a node that could not reach NATS, or from nobody serving the shard, was never sent. */
function isLostAnswer(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.code === 'TIMEOUT') return true;
  return err.code === 'SERVICE_UNAVAILABLE' && causeCode(err) !== NO_RESPONDERS && causeCode(err) !== 'NATS_UNREACHABLE' && causeCode(err) !== 'CATCHING_UP';
}

/** Cluster-mode options of a NodeClient. */
export interface NodeClientOptions {
  /** Cluster mode: how far this node has applied the log, sent with each command as `seen` (the
   * owner applies at least that far before handling it). */
  appliedSeq?: () => number;
  /** Cluster mode: waits until this node has applied the sequence a command's handling appended,
   * so that what follows reads the write. */
  waitApplied?: (seq: number) => Promise<void>;
  /** While a shard has no owner (a node died or joined; ownership moves), a command is tried
   * again for up to this many ms. 0 = fail at once. */
  handoverMs?: number;
  /** Cluster mode: finds the outcome of a command whose answer was lost, by its request id,
   * knowing that nothing proposed for it can be stored after `settledBy` (epoch ms). */
  recover?: (rid: string, settledBy: number) => Promise<RecoveredOutcome>;
  /** Cluster mode: how long after its deadline a command may still be stored (ms). */
  commandTtlMs?: number;
}

/** What recovery found: the apply's result, certainly not stored, or unknown. */
export type RecoveredOutcome = { ok: true } | { ok: false; error: WireError } | 'none' | 'unknown';

/** How long a command's requester waits for the actor's answer (ms). */
const COMMAND_TIMEOUT_MS = 10_000;
/** Commands whose answer recovery can rebuild from the outcome alone. */
const REBUILDABLE = new Set(['create', 'replace', 'patch', 'delete']);

export class NodeClient {
  private readonly querySubject: string;

  constructor(
    private readonly bus: Bus,
    nodeId: string,
    private readonly scope: CommandScope = 'cluster',
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
    return this.commandInCluster(subject, msg) as Promise<T>;
  }

  private async commandInCluster(subject: string, body: Record<string, unknown>): Promise<unknown> {
    const handoverEnds = Date.now() + (this.opts.handoverMs ?? 0);
    const rid = randomUUID();
    for (let pause = 20; ; pause = Math.min(pause * 2, 320)) {
      const deadline = Date.now() + COMMAND_TIMEOUT_MS;
      try {
        const seen = this.opts.appliedSeq?.() ?? 0;
        const reply = readCommandReply(await this.bus.request(subject, { ...body, rid, deadline, seen }, { timeoutMs: COMMAND_TIMEOUT_MS }));
        // The write is done: a wait that fails now (this node fell behind) must not turn its
        // answer into a failure. The next request's read barrier still waits for the write.
        if (reply.seq > 0) await this.opts.waitApplied?.(reply.seq).catch(() => undefined);
        return reply.answer;
      } catch (err) {
        // Nobody serves the shard: nothing was delivered, so asking again is safe.
        if (isNoResponders(err) && Date.now() + pause <= handoverEnds) {
          await new Promise((resolve) => setTimeout(resolve, pause));
          continue;
        }
        if (!this.opts.recover || !isLostAnswer(err)) throw err;
        return this.recovered(body, await this.opts.recover(rid, deadline + (this.opts.commandTtlMs ?? 0) + 1_000));
      }
    }
  }

  /** The answer of a command whose reply was lost, from its outcome in the log. */
  private recovered(body: Record<string, unknown>, outcome: RecoveredOutcome): unknown {
    if (outcome === 'none') {
      throw new ApiError('SERVICE_UNAVAILABLE', { code: 'NOT_STORED', message: 'the write was not stored; it is safe to send it again' });
    }
    if (outcome === 'unknown') {
      throw new ApiError('TIMEOUT', { code: 'OUTCOME_UNKNOWN', message: 'the cluster log could not be read to tell whether the write was stored; read it back before sending it again' });
    }
    if (!outcome.ok) throw fromWire(outcome.error);
    if (!REBUILDABLE.has(String(body.op))) {
      throw new ApiError('TIMEOUT', { code: 'STORED_ANSWER_LOST', message: 'the write was stored, but its answer was lost on the way; read it back to see the result' });
    }
    return body.op === 'create' ? { id: body.id } : undefined;
  }
}
