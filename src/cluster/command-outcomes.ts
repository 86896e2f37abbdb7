// Finding the outcome of a command whose answer was lost (a node or a NATS server died while
// the requester waited): every applied command carries the request id it was proposed for, and
// commands expire, so after the expiry one read barrier tells for certain whether it was stored.

import type { ApplyResult } from '../domain/commands.js';
import type { AppliedEvent, Replica } from '../store/replica.js';
import type { ReadBarrier } from './read-barrier.js';

/** Request ids remembered (the newest). */
const KEPT = 100_000;
const POLL_MS = 200;
/** How long past `settledBy` the log may stay unreadable before the outcome stays unknown. */
const GIVE_UP_MS = 15_000;

/** 'none' = certainly not stored; 'unknown' = the log could not be read to tell. */
export type CommandOutcome = ApplyResult | 'none' | 'unknown';

export class CommandOutcomes {
  private readonly byRid = new Map<string, ApplyResult>();

  constructor(replica: Replica, private readonly barrier: ReadBarrier) {
    replica.events.on('applied', (event: AppliedEvent) => {
      const rid = event.command.rid;
      if (rid === undefined) return;
      this.byRid.delete(rid);
      this.byRid.set(rid, event.result);
      if (this.byRid.size > KEPT) this.byRid.delete(this.byRid.keys().next().value!);
    });
  }

  /** The outcome of the commands proposed for `rid`, none of which can be stored after
   * `settledBy` (epoch ms). A success answers at once; otherwise it waits for `settledBy`. */
  async outcome(rid: string, settledBy: number): Promise<CommandOutcome> {
    for (;;) {
      const readAt = Date.now();
      const read = await this.barrier.sync().then(() => true, () => false);
      const known = this.byRid.get(rid);
      if (known?.ok) return known;
      if (read && readAt > settledBy) return known ?? 'none';
      if (!read && readAt > settledBy + GIVE_UP_MS) return 'unknown';
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
