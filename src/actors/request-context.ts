// The command being handled by an actor, as the proposer needs it: its request id (so the log
// entry can be found again when the requester lost the answer) and the requester's deadline
// (after which nothing is proposed for it). Carried with AsyncLocalStorage through the handler.

import { AsyncLocalStorage } from 'node:async_hooks';

/** What a requester attached to its command message. */
export interface CommandContext {
  /** Random id of the request; recorded in every log entry proposed while handling it. */
  rid?: string;
  /** Epoch ms after which the requester no longer waits: nothing is proposed after it. */
  deadline?: number;
}

const storage = new AsyncLocalStorage<CommandContext>();

/** Runs `fn` with the message's context, when the message carries one. */
export function withCommandContext<T>(msg: Record<string, unknown>, fn: () => Promise<T>): Promise<T> {
  const rid = typeof msg.rid === 'string' ? msg.rid : undefined;
  const deadline = typeof msg.deadline === 'number' ? msg.deadline : undefined;
  if (rid === undefined && deadline === undefined) return fn();
  return storage.run({ rid, deadline }, fn);
}

/** The context of the command being handled, if any. */
export function currentCommandContext(): CommandContext | undefined {
  return storage.getStore();
}
