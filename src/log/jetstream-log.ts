// JetStreamLog: the clustered Log on one JetStream stream (file storage, replicated). append()
// resolves after JetStream's quorum ack, retrying with one Nats-Msg-Id so a retry never stores
// twice; it never reports a failure when the outcome is unknown. Followers: jetstream-follower.ts;
// the stream's creation: jetstream-stream.ts.

import { ErrorCode, Events, nuid, type JetStreamClient, type NatsConnection, type Status } from 'nats';
import type { Log, LogEntry } from './log.js';
import type { BatchHandler, LogSubscription } from './log-follower.js';
import { JetStreamFollower, type FollowStream } from './jetstream-follower.js';
import { apiErrorCode, DUPLICATE_WINDOW_MS, ensureLogStream } from './jetstream-stream.js';
import { LogOutcomeUnknownError, LogUnavailableError } from './log-errors.js';

export { LogTrimmedError, type LogSubscription } from './log-follower.js';
export { LogOutcomeUnknownError, LogUnavailableError } from './log-errors.js';

/** Options of a JetStreamLog. */
export interface JetStreamLogOptions {
  /** The NATS connection (shared with the node's bus; the log never closes it). */
  nc: NatsConnection;
  /** Stream name; created by open() when missing. */
  stream: string;
  /** The stream's one subject; the log publishes every command to it. */
  subject: string;
  /** Replicas of a stream the log creates; default min(3, servers in the NATS cluster). */
  replicas?: number;
  /** How long append() retries an unacknowledged publish before it gives up (ms, default 30000;
   * below the stream's 2-minute duplicate window, so every retry is deduplicated). */
  appendDeadlineMs?: number;
  /** Retention: entries older than this (ms) are removed by JetStream; 0 or undefined = kept for
   * ever. At least the 2-minute duplicate window. Applied to an existing stream too. */
  maxAgeMs?: number;
  /** Retention: the oldest entries are removed once the stream holds more bytes; 0 = no limit. */
  maxBytes?: number;
}

const DEFAULT_DEADLINE_MS = 30_000;
/** Timeout of one JetStream API request or one publish attempt. */
const API_TIMEOUT_MS = 5_000;
/** Timeout of the last-sequence query (every request's read barrier waits for it: during a
 * leader election it should fail fast, so requests get a 503 rather than hang). */
const LAST_SEQ_TIMEOUT_MS = 1_500;
const ATTEMPT_TIMEOUT_MS = 2_000;
/** No attempt starts with less time than this before the deadline (it would only time out). */
const MIN_ATTEMPT_MS = 250;
/** Timeout of a follower's requests (consumer create, info): one sent to a server that just died
 * is retried on another server sooner. After a stream leader's server is killed, JetStream may
 * place a new R1 consumer on that dead server for some seconds (the create then never answers),
 * so a follower that tries again quickly lands on a live one sooner (nats-server 2.9). */
const FOLLOW_API_TIMEOUT_MS = 1_000;
const RETRY_MS = [25, 100, 250, 500, 1000];
const FOLLOW_BATCH = 256;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const EMPTY = new Uint8Array(0);

/**
 * A Log on a JetStream stream. Several nodes open the same stream and all follow it; sequence
 * numbers are the stream's. Entries carry `timeMs`, the server's timestamp. JetStream trims the
 * stream by the retention given (maxAgeMs / maxBytes); a follower that needs a trimmed entry
 * stops with LogTrimmedError.
 */
export class JetStreamLog<C = unknown> implements Log<C> {
  readonly #opts: JetStreamLogOptions;
  readonly #deadlineMs: number;
  readonly #streamInfoSubject: string;
  #state: 'closed' | 'opening' | 'open' | 'closing' = 'closed';
  #js: JetStreamClient | null = null;
  #followSource: FollowStream | null = null;
  #connected = false;
  #status: AsyncIterable<Status> | null = null;
  #replicas = 0;
  readonly #appending = new Set<Promise<unknown>>();
  readonly #followers = new Set<JetStreamFollower<C>>();

  constructor(opts: JetStreamLogOptions) {
    const deadline = opts.appendDeadlineMs ?? DEFAULT_DEADLINE_MS;
    if (!(deadline > 0 && deadline < DUPLICATE_WINDOW_MS)) throw new RangeError(`JetStreamLog: appendDeadlineMs must be in (0, ${DUPLICATE_WINDOW_MS})`);
    if (opts.replicas !== undefined && !(Number.isSafeInteger(opts.replicas) && opts.replicas >= 1)) throw new RangeError(`JetStreamLog: bad replicas ${opts.replicas}`);
    if (opts.maxAgeMs && !(opts.maxAgeMs >= DUPLICATE_WINDOW_MS)) throw new RangeError(`JetStreamLog: maxAgeMs must be 0 or at least ${DUPLICATE_WINDOW_MS}`);
    if (opts.maxBytes !== undefined && !(Number.isSafeInteger(opts.maxBytes) && opts.maxBytes >= 0)) throw new RangeError(`JetStreamLog: bad maxBytes ${opts.maxBytes}`);
    this.#opts = opts;
    this.#deadlineMs = deadline;
    this.#streamInfoSubject = `$JS.API.STREAM.INFO.${opts.stream}`;
  }

  /** The NATS connection is up (not closed, not reconnecting) and the log is open. */
  isConnected(): boolean {
    return this.#state === 'open' && this.#connected && !this.#opts.nc.isClosed();
  }

  /** The stream's replica count (known once open). */
  get replicas(): number {
    return this.#replicas;
  }

  /** Uses the stream, creating it when missing (race-safe: a stream another node created is
   * used as it is). Fails when NATS or JetStream cannot be reached. */
  async open(): Promise<void> {
    if (this.#state !== 'closed') throw new Error(`JetStreamLog is ${this.#state}`);
    if (this.#opts.nc.isClosed()) throw new LogUnavailableError('JetStreamLog: the NATS connection is closed');
    this.#state = 'opening';
    try {
      const jsm = await this.#opts.nc.jetstreamManager({ timeout: API_TIMEOUT_MS, checkAPI: false });
      this.#js = this.#opts.nc.jetstream({ timeout: API_TIMEOUT_MS });
      const quick = { timeout: FOLLOW_API_TIMEOUT_MS };
      const followJsm = await this.#opts.nc.jetstreamManager({ ...quick, checkAPI: false });
      this.#followSource = { js: this.#opts.nc.jetstream(quick), jsm: followJsm, stream: this.#opts.stream };
      const { stream, subject, replicas, maxAgeMs, maxBytes } = this.#opts;
      this.#replicas = (await ensureLogStream(jsm, { stream, subject, replicas, maxAgeMs, maxBytes }, () => this.#opts.nc.isClosed())).config.num_replicas;
    } catch (err) {
      this.#state = 'closed';
      throw err;
    }
    this.#watchConnection();
    this.#state = 'open';
  }

  /**
   * Publishes the command and resolves with its sequence once JetStream acknowledged it (stored
   * on a quorum). `msgId` (default: a random one) deduplicates: the same msgId within two
   * minutes returns the first append's sequence and stores nothing. Throws LogUnavailableError
   * at once when nothing can be sent (RangeError when the command is over NATS's max_payload);
   * after appendDeadlineMs without an ack, LogOutcomeUnknownError, or LogUnavailableError when
   * every attempt was refused. `refusedBy` (epoch ms) ends the wait earlier while nothing may
   * have been stored: once every attempt until then was refused (no stream leader, no NATS
   * connection), LogUnavailableError, and no attempt is made after it. An attempt that may have
   * been stored (it timed out) is retried under its msg id until it is acknowledged or the
   * deadline passes, whatever `refusedBy` says: its outcome must be known before it is answered.
   */
  append(command: C, opts: { msgId?: string; refusedBy?: number } = {}): Promise<number> {
    if (this.#state !== 'open') return Promise.reject(new LogUnavailableError(`JetStreamLog is ${this.#state}; nothing was appended`));
    const json = JSON.stringify(command);
    if (json === undefined) return Promise.reject(new TypeError('JetStreamLog: command is not JSON-serialisable'));
    const data = encoder.encode(json);
    const max = this.#opts.nc.info?.max_payload ?? Infinity;
    if (data.length > max) return Promise.reject(new RangeError(`JetStreamLog: command of ${data.length} bytes is over NATS's max_payload (${max})`));
    if (!this.isConnected()) return Promise.reject(new LogUnavailableError('NATS is not connected; nothing was appended'));
    const appending = this.#publish(data, opts.msgId ?? nuid.next(), opts.refusedBy);
    this.#appending.add(appending);
    void appending.finally(() => this.#appending.delete(appending)).catch(() => {});
    return appending;
  }

  /** Publishes until acknowledged. The outcome is unknown once an attempt may have reached the
   * stream (a timeout, a lost connection); it is known to be "not appended" while every attempt
   * was refused (no responders, a JetStream error reply) or not sent (NATS not connected: the
   * client would hold the message and send it after reconnecting, past any answer). */
  async #publish(data: Uint8Array, msgID: string, refusedBy = Infinity): Promise<number> {
    const js = this.#js!;
    const deadline = Date.now() + this.#deadlineMs;
    let maybeStored = false;
    for (let attempt = 0; ; attempt++) {
      try {
        if (!this.#connected) throw new LogUnavailableError('NATS is not connected; the attempt was not sent');
        const timeout = Math.max(1, Math.min(ATTEMPT_TIMEOUT_MS, deadline - Date.now()));
        return (await js.publish(this.#opts.subject, data, { msgID, timeout })).seq;
      } catch (err) {
        maybeStored ||= !(err instanceof LogUnavailableError || isRefusal(err));
        const wait = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)];
        if (!maybeStored && Date.now() + wait >= refusedBy) {
          throw new LogUnavailableError('JetStream refused every attempt (no stream leader or no NATS connection); nothing was appended', { cause: err });
        }
        if (!this.#opts.nc.isClosed() && Date.now() + wait + MIN_ATTEMPT_MS <= deadline) {
          await new Promise((resolve) => setTimeout(resolve, wait));
          continue;
        }
        if (maybeStored) throw new LogOutcomeUnknownError(msgID, { cause: err });
        throw new LogUnavailableError(`JetStream refused every attempt for ${this.#deadlineMs} ms; nothing was appended`, { cause: err });
      }
    }
  }

  /** See {@link Log.follow}. If the stream no longer holds the entry after afterSeq, `done`
   * rejects with LogTrimmedError. */
  follow(afterSeq: number, handler: (entry: LogEntry<C>) => Promise<void>): LogSubscription {
    return this.#follow(afterSeq, (entries) => handler(entries[0]), 1);
  }

  /** See {@link Log.followBatches}. */
  followBatches(afterSeq: number, handler: (entries: LogEntry<C>[]) => Promise<void>, maxBatch = FOLLOW_BATCH): LogSubscription {
    if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) throw new RangeError(`followBatches: bad maxBatch ${maxBatch}`);
    return this.#follow(afterSeq, handler, maxBatch);
  }

  #follow(afterSeq: number, handler: BatchHandler<C>, maxBatch: number): LogSubscription {
    if (this.#state !== 'open') throw new Error(`JetStreamLog is ${this.#state}; cannot follow`);
    if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) throw new RangeError(`follow: bad afterSeq ${afterSeq}`);
    const follower = new JetStreamFollower<C>(this.#followSource!, afterSeq, handler, maxBatch, () => this.#followers.delete(follower));
    this.#followers.add(follower);
    return follower;
  }

  /** The stream's last sequence, asked of the stream's leader (one stream info request). Every
   * read barrier asks it, so it goes as a plain request and only `state.last_seq` is read; the
   * JetStream manager's info costs the node about twice the CPU. An answer without a leader is
   * refused: once a replicated stream has been leaderless for a while, a follower answers stream
   * info with its own state, which may lack entries the next leader will still commit. */
  async lastSeq(): Promise<number> {
    if (!this.isConnected()) throw new LogUnavailableError(this.#state === 'open' ? 'NATS is not connected' : `JetStreamLog is ${this.#state}`);
    let info: { state?: { last_seq?: unknown }; cluster?: { leader?: string }; error?: { description?: string } };
    try {
      const reply = await this.#opts.nc.request(this.#streamInfoSubject, EMPTY, { timeout: LAST_SEQ_TIMEOUT_MS });
      info = JSON.parse(decoder.decode(reply.data));
    } catch (err) {
      throw new LogUnavailableError(`JetStreamLog: stream info of ${this.#opts.stream} failed`, { cause: err });
    }
    const last = info.state?.last_seq;
    if (info.cluster && !info.cluster.leader) throw new LogUnavailableError(`JetStreamLog: stream ${this.#opts.stream} has no leader now`);
    if (typeof last !== 'number') {
      throw new LogUnavailableError(`JetStreamLog: stream info of ${this.#opts.stream} failed: ${info.error?.description ?? 'no last sequence in the answer'}`);
    }
    return last;
  }

  /** Stops followers and lets appends in flight finish; the NATS connection stays open. */
  async close(): Promise<void> {
    if (this.#state !== 'open') return;
    this.#state = 'closing';
    await Promise.all([...this.#followers].map((f) => f.close()));
    await Promise.allSettled([...this.#appending]);
    (this.#status as { stop?: () => void } | null)?.stop?.();
    this.#status = null;
    this.#state = 'closed';
  }

  /** Tracks disconnects; after a reconnect, followers re-read through new consumers. */
  #watchConnection(): void {
    this.#connected = !this.#opts.nc.isClosed();
    const status = this.#opts.nc.status();
    this.#status = status;
    void (async () => {
      for await (const s of status) {
        if (s.type === Events.Disconnect) this.#connected = false;
        if (s.type !== Events.Reconnect) continue;
        this.#connected = true;
        for (const follower of this.#followers) follower.restart();
      }
    })().catch(() => {});
  }
}

/** The attempt was answered with a refusal, so it stored nothing: nobody listened on the subject
 * (a stream leader election), or JetStream replied with an error. */
function isRefusal(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === ErrorCode.NoResponders || apiErrorCode(err) !== undefined;
}
