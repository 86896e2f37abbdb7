// Fences: before a shard owner handles a command that its requester sent again (the owner it
// first reached was declared gone), it shuts the earlier deliveries out of the log, so the
// command is stored by one delivery at most and the answer it gives stays true.

import { commandMsgId, FENCED, type ApplyResult, type Command } from '../domain/commands.js';
import { ApiError } from '../errors.js';
import type { Log } from '../log/log.js';

/** The error code of a re-sent command whose earlier delivery stored its first entry first: the
 * re-sent one did nothing, and the requester takes that earlier delivery's answer. */
export const EARLIER_DELIVERY_STORED = 'EARLIER_DELIVERY_STORED';

/** What fences need of the node: its cluster log and how to learn an entry's apply result. */
export interface FenceDeps {
  log: Log<Command>;
  nodeId: string;
  /** The apply result of `seq` on this node's replica (throws when it is not applied in time). */
  resultOf: (seq: number) => Promise<ApplyResult>;
}

export class CommandFences {
  constructor(private readonly deps: FenceDeps) {}

  /**
   * Shuts deliveries 0 … attempt-1 of command `rid` out of the log: for each, appends a fence
   * under the msg id of that delivery's first entry. JetStream keeps one entry per msg id for
   * two minutes, so either the fence is that entry (the delivery's own first append, whenever it
   * comes, resolves to the fence, and its proposer stops), or the delivery stored its first
   * entry before: then this delivery must not handle the command (TIMEOUT
   * EARLIER_DELIVERY_STORED). Any other failure leaves it open whether the fences hold: TIMEOUT
   * OUTCOME_UNKNOWN, so the requester asks the log for the outcome.
   */
  async fence(rid: string, attempt: number): Promise<void> {
    for (let earlier = 0; earlier < attempt; earlier++) {
      const fence: Command = { at: new Date().toISOString(), origin: this.deps.nodeId, ops: [], fence: rid };
      let result: ApplyResult;
      try {
        result = await this.deps.resultOf(await this.deps.log.append(fence, { msgId: commandMsgId(rid, earlier, 1) }));
      } catch (err) {
        throw new ApiError('TIMEOUT', { code: 'OUTCOME_UNKNOWN', message: `an earlier delivery of this command could not be fenced: ${err instanceof Error ? err.message : String(err)}` });
      }
      if (!isFence(result)) {
        throw new ApiError('TIMEOUT', { code: EARLIER_DELIVERY_STORED, message: 'an earlier delivery of this command stored it; its answer is the one' });
      }
    }
  }
}

function isFence(result: ApplyResult): boolean {
  return !result.ok && (result.error.cause as { code?: unknown } | undefined)?.code === FENCED;
}
