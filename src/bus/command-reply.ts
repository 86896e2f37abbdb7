// What a shard owner answers a cluster command with: the handler's answer and the last log
// sequence its handling appended (0 when it appended nothing). The requester waits until its own
// replica has applied that sequence, so it reads its own write without asking the stream.
// A command sent again that was refused after its earlier deliveries were fenced carries the
// refusal in the reply (`error`): the requester takes it as final, unlike a bus error.

import { ApiError, type WireError } from '../errors.js';

/** A cluster command's reply as it crosses the network. */
export interface CommandReply {
  answer: unknown;
  seq: number;
  /** A re-sent command's refusal by its handling (after the fence): the command's answer. */
  error?: WireError;
}

export function commandReply(answer: unknown, seq: number, error?: WireError): CommandReply {
  return error ? { answer, seq, error } : { answer, seq };
}

/** Checks a reply received from another node; a malformed one is the sender's fault (502-like
 * UNHANDLED), never taken as an answer. */
export function readCommandReply(reply: unknown): CommandReply {
  if (typeof reply === 'object' && reply !== null && 'seq' in reply) {
    const { seq, answer, error } = reply as { seq: unknown; answer?: unknown; error?: unknown };
    if (typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0) {
      if (error === undefined) return { answer, seq };
      if (isWireError(error)) return { answer, seq, error };
    }
  }
  throw new ApiError('UNHANDLED', { code: 'MALFORMED_REPLY', message: 'a shard owner sent a malformed command reply' });
}

function isWireError(value: unknown): value is WireError {
  return typeof value === 'object' && value !== null && typeof (value as WireError).code === 'string' && typeof (value as WireError).message === 'string';
}
