// What a shard owner answers a cluster command with: the handler's answer and the last log
// sequence its handling appended (0 when it appended nothing). The requester waits until its own
// replica has applied that sequence, so it reads its own write without asking the stream.

import { ApiError } from '../errors.js';

/** A cluster command's reply as it crosses the network. */
export interface CommandReply {
  answer: unknown;
  seq: number;
}

export function commandReply(answer: unknown, seq: number): CommandReply {
  return { answer, seq };
}

/** Checks a reply received from another node; a malformed one is the sender's fault (502-like
 * UNHANDLED), never taken as an answer. */
export function readCommandReply(reply: unknown): CommandReply {
  if (typeof reply === 'object' && reply !== null && 'seq' in reply) {
    const { seq, answer } = reply as { seq: unknown; answer?: unknown };
    if (typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0) return { answer, seq };
  }
  throw new ApiError('UNHANDLED', { code: 'MALFORMED_REPLY', message: 'a shard owner sent a malformed command reply' });
}
