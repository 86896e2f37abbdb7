// Request deadlines for in-process answers: queues per timeout value and one timer, instead of a
// timer per request.

import { ApiError } from '../errors.js';

/** A request waiting for its answer, until `at` (performance.now() ms). */
interface Waiting {
  at: number;
  settled: boolean;
  expire: () => void;
}

/** The requests of one timeout value, oldest first; `head` is the first that may be waiting. */
interface Queue {
  items: Waiting[];
  head: number;
}

/** Request deadlines. Requests with the same timeout expire in the order they were sent, so
 * each timeout value keeps a queue, and one timer is armed for the earliest deadline: a request
 * costs a queue entry, not a timer of its own. Answered requests leave the queue as soon as
 * everything sent before them is answered too, so a queue holds about the requests in flight. */
export class Deadlines {
  private readonly queues = new Map<number, Queue>();
  private timer?: NodeJS.Timeout;
  private armedFor = Infinity;
  /** Requests not yet settled. The timer holds the process open only while there are some;
   * without any it stays armed but unref'd, which is cheaper than clearing and re-arming it. */
  private pending = 0;

  /** Settles as `work` settles, or rejects with TIMEOUT after timeoutMs. */
  within<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = { at: performance.now() + timeoutMs, settled: false, expire: () => reject(new ApiError('TIMEOUT')) };
      let queue = this.queues.get(timeoutMs);
      if (!queue) this.queues.set(timeoutMs, (queue = { items: [], head: 0 }));
      queue.items.push(waiting);
      if (++this.pending === 1) this.timer?.ref();
      if (waiting.at < this.armedFor) this.arm(waiting.at);
      const done = () => {
        if (waiting.settled) return;
        waiting.settled = true;
        if (queue.items[queue.head] === waiting) trim(queue);
        if (--this.pending === 0) this.timer?.unref();
      };
      work.then(
        (value) => {
          done();
          resolve(value);
        },
        (err: unknown) => {
          done();
          reject(err);
        },
      );
    });
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = at;
    this.timer = setTimeout(this.fire, Math.max(0, at - performance.now()) + 1);
    if (this.pending === 0) this.timer.unref();
  }

  /** Expires what is due and re-arms for the earliest deadline left. */
  private readonly fire = (): void => {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const [timeoutMs, queue] of this.queues) {
      for (let i = queue.head; i < queue.items.length && queue.items[i].at <= now; i++) {
        const waiting = queue.items[i];
        if (waiting.settled) continue;
        waiting.settled = true;
        this.pending--;
        waiting.expire();
      }
      trim(queue);
      if (queue.head === queue.items.length) this.queues.delete(timeoutMs);
      else next = Math.min(next, queue.items[queue.head].at);
    }
    if (next < Infinity) this.arm(next);
  };
}

/** Moves a queue's head past settled requests, compacting the array now and then. */
function trim(queue: Queue): void {
  while (queue.head < queue.items.length && queue.items[queue.head].settled) queue.head++;
  if (queue.head === queue.items.length) {
    queue.items.length = 0;
    queue.head = 0;
  } else if (queue.head >= 1024 && queue.head * 2 >= queue.items.length) {
    queue.items.splice(0, queue.head);
    queue.head = 0;
  }
}
