// The JetStream log's stream: found or created once per open(), race-safe among nodes. Knows the
// JetStream API error codes the log acts on; appends and reads are not done here.

import { DiscardPolicy, ErrorCode, nanos, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig, type StreamInfo } from 'nats';
import { LogUnavailableError } from './log-errors.js';

/** The stream's name, its one subject, and replicas when fixed by configuration. */
export interface LogStreamOptions {
  stream: string;
  subject: string;
  replicas?: number;
  /** Retention (ms); 0 or undefined = kept for ever. Applied to an existing stream too. */
  maxAgeMs?: number;
  /** Retention: the oldest entries go once the stream holds more bytes; 0/undefined = no limit. */
  maxBytes?: number;
}

/** JetStream deduplicates a Nats-Msg-Id seen within this window (ms). */
export const DUPLICATE_WINDOW_MS = 120_000;
/** JetStream API error codes: the stream exists (with another config); it does not; too few
 * servers for the replicas asked (no peers / insufficient resources / not clustered); JetStream
 * has no meta leader yet ("temporarily unavailable"). */
const STREAM_NAME_IN_USE = 10058;
export const STREAM_NOT_FOUND = 10059;
const TOO_FEW_SERVERS = new Set([10005, 10023, 10074]);
const JETSTREAM_NOT_READY = 10008;
/** How long ensureLogStream() retries timeouts and JetStream not being ready. */
const OPEN_DEADLINE_MS = 20_000;
const RETRY_MS = [25, 100, 250, 500, 1000];

/**
 * Finds the log's stream or creates it: file storage, the one subject, a 2-minute duplicate
 * window, old entries discarded first, trimmed by the retention given. Replicas: `opts.replicas`, else 3, 2 or 1,
 * whichever the NATS cluster can place. An existing stream is used as it is (several nodes open
 * it at once; one may have created it with other replicas). Concurrent creates can leave a
 * request unanswered (seen with nats-server 2.9): transient failures are retried for 20 s, then
 * it throws LogUnavailableError; definite refusals are thrown as they come.
 */
export async function ensureLogStream(jsm: JetStreamManager, opts: LogStreamOptions, isClosed: () => boolean): Promise<StreamInfo> {
  const deadline = Date.now() + OPEN_DEADLINE_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await ensureStream(jsm, opts);
    } catch (err) {
      const wait = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)];
      if (!isTransient(err)) throw err;
      if (isClosed() || Date.now() + wait > deadline) {
        throw new LogUnavailableError(`JetStream did not answer for stream ${opts.stream} (is JetStream enabled and its cluster up?)`, { cause: err });
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

async function ensureStream(jsm: JetStreamManager, opts: LogStreamOptions): Promise<StreamInfo> {
  const existing = await streamInfo(jsm, opts.stream);
  if (existing) return retained(jsm, opts, checked(opts, existing));
  const { replicas } = opts;
  for (const r of replicas === undefined ? [3, 2, 1] : [replicas]) {
    try {
      return checked(opts, await jsm.streams.add(config(opts, r)));
    } catch (err) {
      const code = apiErrorCode(err);
      if (code === STREAM_NAME_IN_USE) {
        const raced = await streamInfo(jsm, opts.stream); // created meanwhile, perhaps with other replicas
        if (raced) return retained(jsm, opts, checked(opts, raced));
      }
      if (replicas === undefined && r > 1 && isTooFewServers(err)) continue;
      throw err;
    }
  }
  throw new Error('unreachable');
}

async function streamInfo(jsm: JetStreamManager, stream: string): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(stream);
  } catch (err) {
    if (apiErrorCode(err) === STREAM_NOT_FOUND) return null;
    throw err;
  }
}

function config(opts: LogStreamOptions, replicas: number): Partial<StreamConfig> {
  return {
    name: opts.stream,
    subjects: [opts.subject],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    num_replicas: replicas,
    ...retention(opts),
  };
}

/** The stream's limits as configured (JetStream: 0 age = none, -1 bytes = none). */
function retention(opts: LogStreamOptions): { max_age: number; max_bytes: number } {
  return { max_age: nanos(opts.maxAgeMs ?? 0), max_bytes: opts.maxBytes ? opts.maxBytes : -1 };
}

/** Brings an existing stream's retention to this log's configuration (the last node started
 * with another setting wins: every node should run with the same one). */
async function retained(jsm: JetStreamManager, opts: LogStreamOptions, info: StreamInfo): Promise<StreamInfo> {
  const want = retention(opts);
  const maxBytes = info.config.max_bytes > 0 ? info.config.max_bytes : -1;
  if (info.config.max_age === want.max_age && maxBytes === want.max_bytes) return info;
  return checked(opts, await jsm.streams.update(opts.stream, { ...info.config, ...want }));
}

function checked(opts: LogStreamOptions, info: StreamInfo): StreamInfo {
  if (!info.config.subjects?.includes(opts.subject)) {
    throw new Error(`JetStreamLog: stream ${opts.stream} exists without subject ${opts.subject}`);
  }
  return info;
}

/** JetStream refused more replicas than the NATS cluster has servers for. */
export function isTooFewServers(err: unknown): boolean {
  const code = apiErrorCode(err);
  return code !== undefined && TOO_FEW_SERVERS.has(code);
}

/** A JetStream API request that went unanswered, or JetStream is still electing its leader. */
function isTransient(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === ErrorCode.Timeout || code === ErrorCode.NoResponders || apiErrorCode(err) === JETSTREAM_NOT_READY;
}

/** The JetStream API error code of a failed request (undefined when JetStream did not answer). */
export function apiErrorCode(err: unknown): number | undefined {
  return (err as { api_error?: { err_code?: number } } | null)?.api_error?.err_code;
}
