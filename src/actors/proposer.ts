// Proposes commands: appends them to the log and waits until this node's replica has applied
// them, so the caller reads its own write. Rejections come back as the apply's ApiError.

import { commandMsgId, FENCED, type Command, type Op } from '../domain/commands.js';
import { ApiError, fromWire } from '../errors.js';
import { LogOutcomeUnknownError, LogUnavailableError } from '../log/jetstream-log.js';
import type { Log } from '../log/log.js';
import type { Replica } from '../store/replica.js';
import { currentCommandContext, type CommandContext } from './request-context.js';

export class Proposer {
  constructor(
    private readonly log: Log<Command>,
    private readonly replica: Replica,
    private readonly nodeId: string,
    /** Cluster mode: how long after proposing a command may still be stored (ms); it then
     * carries its request id and expiry, so a lost answer can be recovered (see Command). */
    private readonly commandTtlMs?: number,
  ) {}

  /** Appends the ops as one atomic command; resolves once applied here, throws if rejected. */
  async propose(ops: Op[], at: string = new Date().toISOString()): Promise<number> {
    const context = this.commandTtlMs === undefined ? undefined : currentCommandContext();
    if (context?.rid === undefined) return this.append({ at, origin: this.nodeId, ops }, context);
    // One handling's proposals go one after another, so its first entry (the one a fence shuts
    // out) is settled before any other is appended.
    const proposing = context.last.then(() => this.append({ at, origin: this.nodeId, ops }, context));
    context.last = proposing.catch(() => undefined);
    return proposing;
  }

  private async append(command: Command, context: CommandContext | undefined): Promise<number> {
    let msgId: string | undefined;
    let refusedBy: number | undefined;
    if (this.commandTtlMs !== undefined) {
      // The requester has given up: proposing now could store a write it was told is unknown.
      if (context?.deadline !== undefined && Date.now() > context.deadline) throw new ApiError('TIMEOUT');
      if (context?.fenced) throw new ApiError('TIMEOUT', { code: FENCED, message: 'a later delivery of this command took it over' });
      // Nothing of the command is stored before its first proposal: while JetStream refuses it
      // (no stream leader), the requester is told so once `proposeBy` has passed, instead of
      // waiting for the log to come back.
      if (context?.proposals === 0) refusedBy = context.proposeBy;
      if (context?.rid !== undefined) {
        command.rid = context.rid;
        msgId = commandMsgId(context.rid, context.attempt, ++context.proposals);
      }
      command.expires = new Date(Date.now() + this.commandTtlMs).toISOString();
    }
    const seq = await this.log.append(command, { msgId, refusedBy }).catch((err) => {
      throw appendFailure(err);
    });
    const result = await this.replica.waitFor(seq);
    if (!result.ok && context && (result.error.cause as { code?: unknown } | undefined)?.code === FENCED) context.fenced = true;
    if (context) context.seq = Math.max(context.seq, seq);
    if (!result.ok) throw fromWire(result.error);
    return seq;
  }
}

/** A log that cannot be reached refused the write (503, nothing was written); one whose answer
 * never came may have stored it (504 that says so: the write is not reported as failed). */
function appendFailure(err: unknown): unknown {
  if (err instanceof LogUnavailableError) {
    return new ApiError('SERVICE_UNAVAILABLE', { code: 'NATS_UNREACHABLE', message: 'the cluster log cannot be reached now; nothing was written' });
  }
  if (err instanceof LogOutcomeUnknownError) {
    return new ApiError('TIMEOUT', { code: 'OUTCOME_UNKNOWN', message: 'the cluster log did not confirm this write in time; it may still have been stored' });
  }
  return err;
}
