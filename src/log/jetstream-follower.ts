// JetStreamFollower: one follow() subscription of a JetStreamLog. It reads the stream through its
// own ephemeral pull consumer in bounded fetches and hands runs to the awaited handler; after any
// fault (gap, lost server, reconnect) it recreates the consumer at the next sequence it needs.

import { AckPolicy, ConsumerEvents, DeliverPolicy, nanos, type Consumer, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from 'nats';
import { apiErrorCode, STREAM_NOT_FOUND } from './jetstream-stream.js';
import type { LogEntry } from './log.js';
import { LogTrimmedError, type BatchHandler, type LogSubscription } from './log-follower.js';

/** What a follower reads: the log's JetStream handles and its stream. */
export interface FollowStream {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
}

/** Messages asked for by one pull request; the follower buffers at most twice this many. */
const FETCH = 1000;
/** A pull request ends after this long even when fewer messages came (then another is sent). */
const FETCH_EXPIRES_MS = 10_000;
/** The server sends a heartbeat this often on an idle pull; two missed ones mean the consumer is lost. */
const HEARTBEAT_MS = 500;
/** Consumers nobody pulls from are removed by the server after this long (a follower that died). */
const INACTIVE_MS = 60_000;
/** Waits between attempts to read on after a fault; a failed request has already taken up to
 * its timeout (1 s), so a reader comes back within a few seconds of a new stream leader. */
const RETRY_MS = [50, 100, 250, 500];
/** Fresh consumers in a row that skip the same sequence before it is declared missing. */
const MISSING_LIMIT = 3;

/** The stream holds something the log cannot deliver (a deleted entry, a non-JSON message). */
class LogDataError extends Error {
  override name = 'LogDataError';
}

/** A running subscription; entries come in seq order with no gaps, the handler is awaited, and
 * entries already received when the handler is free are delivered together (≤ maxBatch). */
export class JetStreamFollower<C> implements LogSubscription {
  readonly done: Promise<void>;
  #stopped = false;
  #failure: Error | null = null;
  #buffer: LogEntry<C>[] = [];
  /** The next sequence to receive from the stream. */
  #next: number;
  #consumer: Consumer | null = null;
  #messages: ConsumerMessages | null = null;
  /** No message came yet from the current consumer. */
  #fresh = true;
  #skipped = 0;
  #wakeDeliver: (() => void) | null = null;
  #wakeReceive: (() => void) | null = null;

  constructor(
    private readonly source: FollowStream,
    afterSeq: number,
    private readonly handler: BatchHandler<C>,
    private readonly maxBatch: number,
    onEnd: () => void,
  ) {
    this.#next = afterSeq + 1;
    this.done = this.#run().finally(onEnd);
    this.done.catch(() => {}); // observed through `done`; never an unhandled rejection
  }

  async close(): Promise<void> {
    this.#stopped = true;
    this.#dropConsumer();
    this.#wake();
  }

  /** Ends the current pull and reads on through a new consumer (the connection was re-established:
   * messages sent meanwhile may have been lost). */
  restart(): void {
    this.#dropConsumer();
  }

  async #run(): Promise<void> {
    await Promise.resolve(); // never call the handler before follow() has returned
    const receiving = this.#receive().catch((err: unknown) => {
      this.#failure ??= err instanceof Error ? err : new Error(String(err));
      this.#wake();
    });
    try {
      await this.#deliver();
    } finally {
      this.#stopped = true;
      this.#dropConsumer();
      this.#wake();
      await receiving;
      this.#dropConsumer(); // one created while stopping
    }
  }

  async #deliver(): Promise<void> {
    for (;;) {
      if (this.#stopped) return; // errors after close() (e.g. the connection closing) are expected
      if (this.#failure) throw this.#failure;
      if (this.#buffer.length === 0) {
        await new Promise<void>((resolve) => (this.#wakeDeliver = resolve));
        continue;
      }
      const run = this.#buffer.splice(0, this.maxBatch);
      if (this.#buffer.length < FETCH) this.#wakeReceive?.();
      await this.handler(run);
    }
  }

  /** Pulls batches into the buffer while there is room; retries faults through a new consumer. */
  async #receive(): Promise<void> {
    let attempt = 0;
    while (!this.#stopped) {
      if (this.#buffer.length >= FETCH) {
        await new Promise<void>((resolve) => (this.#wakeReceive = resolve));
        continue;
      }
      try {
        this.#consumer ??= await this.#createConsumer();
        await this.#fetch(this.#consumer);
        attempt = 0;
      } catch (err) {
        if (this.#stopped) return;
        if (err instanceof LogTrimmedError || err instanceof LogDataError) throw err;
        this.#dropConsumer();
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]));
      }
    }
  }

  /** A consumer that starts at #next, once the stream still holds it. */
  async #createConsumer(): Promise<Consumer> {
    const { js, jsm, stream } = this.source;
    await this.#assertNotTrimmed();
    const info = await jsm.consumers.add(stream, {
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: this.#next,
      mem_storage: true,
      num_replicas: 1,
      inactive_threshold: nanos(INACTIVE_MS),
    });
    this.#fresh = true;
    if (this.#stopped) void jsm.consumers.delete(stream, info.name).catch(() => {});
    return js.consumers.get(stream, info.name);
  }

  async #assertNotTrimmed(): Promise<void> {
    const info = await this.source.jsm.streams.info(this.source.stream).catch((err: unknown) => {
      throw apiErrorCode(err) === STREAM_NOT_FOUND ? new LogDataError(`stream ${this.source.stream} no longer exists`, { cause: err }) : err;
    });
    const { state } = info;
    const firstSeq = Math.max(state.first_seq, 1); // an empty, never written stream reports 0
    if (this.#next < firstSeq) throw new LogTrimmedError(this.#next - 1, firstSeq);
  }

  /** One pull request: received messages go to the buffer until the batch is complete, the
   * request expires, heartbeats stop, or a sequence gap shows a message was lost. */
  async #fetch(consumer: Consumer): Promise<void> {
    const messages = await consumer.fetch({ max_messages: FETCH, expires: FETCH_EXPIRES_MS, idle_heartbeat: HEARTBEAT_MS });
    if (this.#consumer !== consumer || this.#stopped) return void messages.stop();
    this.#messages = messages;
    this.#watchHeartbeats(messages).catch(() => {}); // ends with the pull
    try {
      for await (const msg of messages) {
        if (msg.seq !== this.#next) {
          await this.#onGap(msg.seq);
          this.#dropConsumer();
          break;
        }
        this.#buffer.push(this.#entry(msg));
        this.#next++;
        this.#fresh = false;
        this.#skipped = 0;
        this.#wakeDeliver?.();
      }
    } finally {
      if (this.#messages === messages) this.#messages = null;
    }
  }

  /** A fresh consumer starts at #next, so skipping it there means the entry is not stored. */
  async #onGap(seq: number): Promise<void> {
    if (!this.#fresh || seq < this.#next) return;
    await this.#assertNotTrimmed();
    if (++this.#skipped >= MISSING_LIMIT) throw new LogDataError(`log entry ${this.#next} is missing from stream ${this.source.stream} (next stored: ${seq})`);
  }

  async #watchHeartbeats(messages: ConsumerMessages): Promise<void> {
    for await (const status of await messages.status()) {
      if (status.type === ConsumerEvents.HeartbeatsMissed && Number(status.data) >= 2) messages.stop(new Error('pull consumer heartbeats missed'));
    }
  }

  #entry(msg: JsMsg): LogEntry<C> {
    let command: C;
    try {
      command = JSON.parse(msg.string()) as C;
    } catch (err) {
      throw new LogDataError(`log entry ${msg.seq} of stream ${this.source.stream} is not JSON`, { cause: err });
    }
    return { seq: msg.seq, command, timeMs: Math.floor(msg.info.timestampNanos / 1e6) };
  }

  /** Ends the current pull and forgets the consumer (deleted in the background). */
  #dropConsumer(): void {
    this.#messages?.stop();
    this.#messages = null;
    const consumer = this.#consumer;
    this.#consumer = null;
    void consumer?.delete().catch(() => {});
  }

  #wake(): void {
    this.#wakeDeliver?.();
    this.#wakeDeliver = null;
    this.#wakeReceive?.();
    this.#wakeReceive = null;
  }
}
