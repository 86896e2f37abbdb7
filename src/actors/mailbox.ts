// A bounded mailbox: runs one message at a time for its actor, in arrival order. When full it
// refuses at once with 429 SERVER_TOO_MANY_REQUESTS (backpressure instead of collapse). A message
// may carry a time by which it must have started: still waiting then, it is dropped unrun.

import { ApiError } from '../errors.js';

interface Letter {
  work: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  timer?: NodeJS.Timeout;
}

/** When a message must have started (epoch ms), and what it is refused with if it has not. */
export interface StartBy {
  at: number;
  refusal: () => unknown;
}

export class Mailbox {
  private readonly queue: Letter[] = [];
  private running = false;
  private active = 0;

  constructor(readonly capacity: number) {}

  /** Messages waiting or running. */
  get depth(): number {
    return this.queue.length + this.active;
  }

  /** Queues work for this actor; rejects immediately when the mailbox is full. With `startBy`,
   * work still waiting at that time is taken out of the queue, never runs, and is refused. */
  submit<T>(work: () => Promise<T>, startBy?: StartBy): Promise<T> {
    if (this.depth >= this.capacity) return Promise.reject(new ApiError('SERVER_TOO_MANY_REQUESTS'));
    return new Promise<T>((resolve, reject) => {
      const letter: Letter = { work, resolve: resolve as (value: unknown) => void, reject };
      this.queue.push(letter);
      if (startBy) {
        letter.timer = setTimeout(() => {
          const at = this.queue.indexOf(letter);
          if (at < 0) return;
          this.queue.splice(at, 1);
          reject(startBy.refusal());
        }, Math.max(0, startBy.at - Date.now()));
      }
      if (!this.running) void this.drain();
    });
  }

  /** Runs letters one at a time; a slot is free before its sender hears the answer. */
  private async drain(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      const letter = this.queue.shift()!;
      clearTimeout(letter.timer);
      this.active = 1;
      let failed = false;
      let outcome: unknown;
      try {
        outcome = await letter.work();
      } catch (err) {
        failed = true;
        outcome = err;
      }
      this.active = 0;
      if (failed) letter.reject(outcome);
      else letter.resolve(outcome);
    }
    this.running = false;
  }
}
