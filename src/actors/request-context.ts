// The command being handled by an actor, as the proposer needs it: its request id (so the log
// entry can be found again when the requester lost the answer), the requester's deadline
// (after which nothing is proposed for it), and the last sequence proposed while handling it
// (sent back with the answer), and which delivery of the command this is (the msg ids of its
// entries; see Command.fence). Carried with AsyncLocalStorage through the handler.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestFields } from '../protocol/v1/command-envelope.js';

/** What a requester attached to its command message, and what handling it appended. */
export interface CommandContext {
  /** Random id of the request; recorded in every log entry proposed while handling it. */
  rid?: string;
  /** Epoch ms after which the requester no longer waits: nothing is proposed after it. */
  deadline?: number;
  /** Epoch ms after which the first proposal's append gives up while JetStream refuses it: the
   * answer is then a certain 503 (nothing written). */
  proposeBy?: number;
  /** Which delivery of the command this is: 0 the requester's first send, n its n-th re-send
   * after the shard's owner was declared gone (the re-sent message carries `attempt`). */
  attempt: number;
  /** The highest log sequence appended while handling the command (0: none). */
  seq: number;
  /** Proposals made so far (they are numbered from 1 in their msg ids), and the last one:
   * proposals of one handling are appended one after another. */
  proposals: number;
  last: Promise<unknown>;
  /** A proposal met a fence: a later delivery took the command over; nothing more is proposed. */
  fenced: boolean;
}

const storage = new AsyncLocalStorage<CommandContext>();

/** The context of a command whose requester's fields were read (readRequestFields). */
export function commandContextOf(request: RequestFields): CommandContext {
  const attempt = request.attempt;
  return {
    rid: request.rid,
    deadline: request.deadline,
    proposeBy: request.proposeBy,
    attempt: attempt !== undefined && Number.isSafeInteger(attempt) && attempt > 0 ? attempt : 0,
    seq: 0,
    proposals: 0,
    last: Promise.resolve(),
    fenced: false,
  };
}

/** Runs `fn` within the command's context. */
export function withCommandContext<T>(context: CommandContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(context, fn);
}

/** The context of the command being handled, if any. */
export function currentCommandContext(): CommandContext | undefined {
  return storage.getStore();
}
