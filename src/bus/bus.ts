// The Bus contract: request/reply and publish/subscribe between the gateway, actor hosts and
// query handlers. Implementations: MemoryBus (in-process) and NatsBus. Carries plain JSON data.

import { fromWire, toApiError, type WireError } from '../errors.js';
import { jsonCopy } from './json-copy.js';

/** A handler answers a request with JSON data (or JsonText), or throws (an ApiError crosses as its wire form). */
export type RequestHandler = (msg: unknown, subject: string) => Promise<unknown>;

/** An event handler for publish/subscribe; its errors are logged, never returned. */
export type EventHandler = (msg: unknown, subject: string) => void;

export interface RequestOptions {
  /** Milliseconds to wait for an answer before failing with a TIMEOUT ApiError. Default 10000. */
  timeoutMs?: number;
  /** Resolve with the answer's JSON text instead of the parsed value (a gateway writing it
   * straight into a response). A handler that answered with JsonText hands over that text
   * untouched; any other answer is serialised once. */
  raw?: boolean;
}

/** An answer a handler has already serialised: the bus carries the text as the answer's JSON
 * (parsed for ordinary requests, passed through for `raw` ones) instead of encoding a value. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** A message as JSON text, as both buses send it (undefined for none); a value JSON cannot
 * carry is the caller's error. */
export function messageText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (err) {
    throw toApiError(err);
  }
}

/** A message as the other side of a wire would get it (what a JSON round trip gives), for a
 * handler in this process; a value JSON cannot carry is the caller's error. */
export function messageCopy(value: unknown): unknown {
  try {
    return jsonCopy(value);
  } catch (err) {
    throw toApiError(err);
  }
}

/** Runs handler on its own copy of the message (see messageCopy) and returns the answer as a
 * caller on the other side of a wire would get it: JSON text when `raw`, else a fresh parse; a
 * thrown error crosses as its wire form. */
export function answerHere(handler: RequestHandler, subject: string, message: unknown, raw: boolean): Promise<unknown> {
  let answering: Promise<unknown>;
  try {
    answering = Promise.resolve(handler(messageCopy(message), subject));
  } catch (err) {
    return Promise.reject(fromWire(wireOf(err)));
  }
  // One reaction, not an async function's: this runs for every read the gateway makes.
  return answering.then(
    (value) => {
      if (value instanceof JsonText) return raw ? value.text : JSON.parse(value.text);
      return raw ? JSON.stringify(value) : jsonCopy(value);
    },
    (err: unknown) => {
      throw fromWire(wireOf(err));
    },
  );
}

/** The wire form of anything thrown; a cause that is not JSON is dropped rather than lost. */
export function wireOf(err: unknown): WireError {
  const wire = toApiError(err).toWire();
  try {
    return jsonCopy(wire) as WireError;
  } catch {
    return { code: wire.code, message: wire.message };
  }
}

export interface ServeOptions {
  /** Handlers with the same queue name share the load: each request goes to one of them. */
  queue?: string;
  /** Requests from this process to this exact subject are answered here, serialised as on the
   * wire but without crossing the network (node-local reads). Other processes still reach it.
   * `'while-connected'`: only while the bus reaches its broker; meanwhile such a request fails
   * at once as a remote one does (503 NATS_UNREACHABLE), so that a write never waits in
   * this process for a log it cannot reach. */
  local?: boolean | 'while-connected';
}

/** What a served subject returns to its caller when the handler throws. */
export interface ErrorReply {
  error: WireError;
}

export interface Subscription {
  /** Stops taking messages; one already on its way to this subscription is still handled. */
  unsubscribe(): Promise<void>;
}

export interface Bus {
  /** Sends msg to one handler of subject and resolves with its answer; rejects with the
   * handler's ApiError (rebuilt by code), SERVICE_UNAVAILABLE when nobody serves the subject,
   * or TIMEOUT when no answer comes in time. */
  request(subject: string, msg: unknown, opts?: RequestOptions): Promise<unknown>;
  /** Serves a subject (wildcards `*` and `>` as in NATS). */
  serve(subject: string, handler: RequestHandler, opts?: ServeOptions): Promise<Subscription>;
  /** Fire-and-forget event to every subscriber. */
  publish(subject: string, msg: unknown): Promise<void>;
  subscribe(subject: string, handler: EventHandler): Promise<Subscription>;
  /** Stops accepting new requests, waits for handlers under way, then closes. */
  close(): Promise<void>;
}
