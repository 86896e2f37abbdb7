// Work a bus has under way (handlers, local answers, event deliveries), counted so that close()
// can wait for it without keeping a promise chain per request.

/** Work under way (handlers, local answers, event deliveries): a counter, and the callers
 * waiting for it to reach zero. */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** Counts work until it settles, and returns it. */
  track<T>(work: Promise<T>): Promise<T> {
    this.count++;
    work.then(this.settle, this.settle);
    return work;
  }

  /** Resolves once no work is under way (at once if none is). */
  idle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((done) => this.waiters.push(done));
  }

  private readonly settle = (): void => {
    if (--this.count > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const done of waiters) done();
  };
}
