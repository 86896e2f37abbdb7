// A bounded mailbox: runs one message at a time for its actor, in arrival order. When full it
// refuses at once with 429 SERVER_TOO_MANY_REQUESTS (backpressure instead of collapse).

import { ApiError } from '../errors.js';

interface Letter {
  work: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
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

  /** Queues work for this actor; rejects immediately when the mailbox is full. */
  submit<T>(work: () => Promise<T>): Promise<T> {
    if (this.depth >= this.capacity) return Promise.reject(new ApiError('SERVER_TOO_MANY_REQUESTS'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.running) void this.drain();
    });
  }

  /** Runs letters one at a time; a slot is free before its sender hears the answer. */
  private async drain(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      const letter = this.queue.shift()!;
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
