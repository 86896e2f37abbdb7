// Tells a requester when the node its command went to is gone: the shard's owner (by the ready
// members when the command was sent) is no longer heard in the membership (dead for 3 s, or it
// left). Only watches; what the requester does then is NodeClient's business.

import { shardOwner } from './shard-map.js';

/** The membership as watched: ready members (the shard map's input) and the live ones. */
export interface WatchedMembers {
  readyMembers(): string[];
  live(): Array<{ id: string }>;
}

/** One watch: `gone` resolves once `owner` is gone; stop() ends the watch (idempotent). */
export interface OwnerWatchHandle {
  owner?: string;
  gone: Promise<void>;
  stop(): void;
}

const POLL_MS = 100;

export class OwnerWatch {
  private readonly watches = new Set<{ owner: string; resolve: () => void }>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly members: WatchedMembers, private readonly pollMs = POLL_MS) {}

  /** Watches the node that owns `shard` now; never resolves when the shard has no owner. */
  watch(shard: number): OwnerWatchHandle {
    const owner = shardOwner(shard, this.members.readyMembers());
    if (owner === undefined) return { gone: new Promise(() => {}), stop: () => {} };
    let entry!: { owner: string; resolve: () => void };
    const gone = new Promise<void>((resolve) => (entry = { owner, resolve }));
    this.watches.add(entry);
    this.timer ??= setInterval(() => this.check(), this.pollMs);
    this.timer.unref();
    return { owner, gone, stop: () => this.end(entry) };
  }

  private check(): void {
    const live = new Set(this.members.live().map((m) => m.id));
    for (const entry of [...this.watches]) {
      if (live.has(entry.owner)) continue;
      this.end(entry);
      entry.resolve();
    }
  }

  private end(entry: { owner: string; resolve: () => void }): void {
    this.watches.delete(entry);
    if (this.watches.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
