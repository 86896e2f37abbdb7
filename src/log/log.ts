// The Log contract: an ordered, durable sequence of commands. Every node applies all of it to
// its replica. Implementations: LocalLog (LevelDB on this node) and, for clusters, JetStream.

import type { LogEntry } from '../domain/log-entry.js';

export type { LogEntry };

export interface Log<C = unknown> {
  open(): Promise<void>;
  /** Appends a command; resolves with its sequence once it is durable (on disk / quorum).
   * `msgId` (JetStream only; other logs are never shared and ignore it): an append under a msg
   * id the log already holds (within two minutes) stores nothing and resolves with the
   * sequence of the entry that holds it. `refusedBy` (JetStream only; epoch ms): while every
   * attempt is refused (nothing can have been stored), give up at that time with
   * LogUnavailableError instead of waiting for the log to come back. */
  append(command: C, opts?: { msgId?: string; refusedBy?: number }): Promise<number>;
  /** Entries with seq > afterSeq in order, then follows new appends until the returned
   * subscription is closed. The handler is awaited: entries are delivered one at a time. */
  follow(afterSeq: number, handler: (entry: LogEntry<C>) => Promise<void>): { close(): Promise<void> };
  /** As follow(), but entries that are already durable when the handler is free are handed
   * over together, in seq order, at most `maxBatch` at a time (never an empty run). */
  followBatches(afterSeq: number, handler: (entries: LogEntry<C>[]) => Promise<void>, maxBatch?: number): { close(): Promise<void> };
  /** The highest durable sequence (0 when empty). */
  lastSeq(): Promise<number>;
  close(): Promise<void>;
}
