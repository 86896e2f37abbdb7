// Handler tables: a typed record with one handler per op of a message union, and the one
// dispatch that reads a message, validates it and calls its handler. A table that misses an op
// of its union (or names one that is not in it) does not compile; an op unknown at run time is
// 501 UNKNOWN_OPERATION, a malformed message 400 INVALID_MESSAGE, never a 500.

import { messageObject, unknownOperation, type Fields } from './message-fields.js';

/** The ops of a message union. */
export type OpOf<M extends { op: string }> = M['op'];

/** The message of one op. */
export type MessageOf<M extends { op: string }, Op extends string> = Extract<M, { op: Op }>;

/** One handler per op: each gets its own message type. */
export type HandlerTable<M extends { op: string }, Ctx = void, R = unknown> = {
  [Op in OpOf<M>]: (msg: MessageOf<M, Op>, ctx: Ctx) => R | Promise<R>;
};

/** One reader per op: checks a received message's fields and returns it typed. */
export type ReaderTable<M extends { op: string }> = {
  [Op in OpOf<M>]: (fields: Fields & { op: Op }) => MessageOf<M, Op>;
};

/** A message family as a receiver knows it: its name (for errors) and a reader per op. */
export interface Protocol<M extends { op: string }> {
  family: string;
  readers: ReaderTable<M>;
}

/** Reads a received message: an object with a known op and well-typed fields, or it throws. */
export function readMessage<M extends { op: string }>(protocol: Protocol<M>, msg: unknown): M {
  const fields = messageObject(msg);
  const read = Object.hasOwn(protocol.readers, fields.op) ? (protocol.readers as unknown as Record<string, (f: Fields) => M>)[fields.op] : undefined;
  if (!read) throw unknownOperation(protocol.family, fields.op);
  return read(fields);
}

/** Runs the handler of a message already read (see readMessage). */
export function dispatch<M extends { op: string }, Ctx, R>(table: HandlerTable<M, Ctx, R>, msg: M, ctx: Ctx): R | Promise<R> {
  const handler = (table as unknown as Record<string, (m: M, c: Ctx) => R | Promise<R>>)[msg.op]!;
  return handler(msg, ctx);
}
