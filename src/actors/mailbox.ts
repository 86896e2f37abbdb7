// A bounded mailbox: runs one message at a time for its actor, in arrival order. When full it
// refuses at once with 429 SERVER_TOO_MANY_REQUESTS (backpressure instead of collapse).

import { ApiError } from '../errors.js';

export class Mailbox {
  private readonly queue: (() => Promise<void>)[] = [];
  private running = false;

  constructor(readonly capacity: number) {}

  /** Messages waiting or running. */
  get depth(): number {
    return this.queue.length + (this.running ? 1 : 0);
  }

  /** Queues work for this actor; rejects immediately when the mailbox is full. */
  submit<T>(work: () => Promise<T>): Promise<T> {
    if (this.depth >= this.capacity) return Promise.reject(new ApiError('SERVER_TOO_MANY_REQUESTS'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push(() => work().then(resolve, reject));
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      const next = this.queue.shift()!;
      await next();
    }
    this.running = false;
  }
}
