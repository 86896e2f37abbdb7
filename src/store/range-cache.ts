// Range reads of the replica's store kept across applies: the keys of small ranges apply reads
// again and again (the policies naming a role attribute, for every identity created), so that
// a create reads no range of the store at all. Kept per bucket (keys.ts `keyBucket`): a commit
// drops every bucket it writes, before the store changes.

/** Ranges with more keys than this are not kept (apply still reads them once per run). */
const MAX_KEYS = 1024;
/** Most ranges kept (when full, the eighth kept first is dropped). */
const MAX_RANGES = 4096;

/** The name a range is kept under (its two bounds, unambiguously joined). */
export function rangeName(range: { gt: string; lt: string }): string {
  return `${range.gt.length}:${range.gt}${range.lt}`;
}

export class RangeCache {
  /** Bucket → range name → the range's keys, in order (never changed once kept). */
  private readonly buckets = new Map<string, Map<string, string[]>>();
  /** Range name → its bucket, in the order they were kept. */
  private readonly order = new Map<string, string>();

  /** The keys of a range kept under its bucket, if any. */
  get(bucket: string, name: string): string[] | undefined {
    return this.buckets.get(bucket)?.get(name);
  }

  /** Keeps the keys read of a range (the caller never changes them afterwards). */
  set(bucket: string, name: string, keys: string[]): void {
    if (keys.length > MAX_KEYS) return;
    if (this.order.size >= MAX_RANGES) this.evictOldest(MAX_RANGES / 8);
    let ranges = this.buckets.get(bucket);
    if (!ranges) this.buckets.set(bucket, (ranges = new Map()));
    ranges.set(name, keys);
    this.order.set(name, bucket);
  }

  /** Drops every range of the buckets (those a commit is about to write). */
  forget(buckets: Iterable<string>): void {
    for (const bucket of buckets) {
      const ranges = this.buckets.get(bucket);
      if (!ranges) continue;
      for (const name of ranges.keys()) this.order.delete(name);
      this.buckets.delete(bucket);
    }
  }

  clear(): void {
    this.buckets.clear();
    this.order.clear();
  }

  /** Drops the `count` ranges kept longest, in one pass over the order. */
  private evictOldest(count: number): void {
    for (const [name, bucket] of this.order) {
      if (count-- <= 0) return;
      this.order.delete(name);
      const ranges = this.buckets.get(bucket);
      ranges?.delete(name);
      if (ranges?.size === 0) this.buckets.delete(bucket);
    }
  }
}
