// TopK: the best `limit` items under a comparator, kept sorted as they are offered, without
// holding every item offered. Pure.

/** Keeps the best `limit` items under a comparator without holding every match. */
export class TopK<T> {
  private readonly items: T[] = [];

  constructor(
    private readonly limit: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    if (this.limit === 0) return;
    if (this.items.length >= this.limit && this.compare(item, this.items[this.items.length - 1]) >= 0) return;
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(this.items[mid], item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, item);
    if (this.items.length > this.limit) this.items.pop();
  }

  sorted(): T[] {
    return this.items;
  }
}

