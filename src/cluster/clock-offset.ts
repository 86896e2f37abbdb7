// How far this node's clock is from the NATS servers' (JetStream's timestamps), measured from its
// own heartbeats: the time JetStream stored a heartbeat minus the time the node wrote into it.
// Only estimates and tells; nothing here changes what a command does.

/** Above this offset (ms) the node warns: a command's expiry is checked against JetStream's
 * timestamps, and the nodes' clocks are meant to agree within it (NTP). */
export const MAX_CLOCK_OFFSET_MS = 500;
/** The estimate is the smallest of this many latest samples. */
const SAMPLES = 10;
/** No verdict before this many samples (one slow heartbeat is not a skewed clock). */
const MIN_SAMPLES = 3;

export class ClockOffset {
  private readonly samples: number[] = [];
  private off = false;

  /** `onChange` is told when the offset goes past `maxMs` (true) and when it is back within (false). */
  constructor(private readonly onChange: (offsetMs: number, off: boolean) => void, private readonly maxMs = MAX_CLOCK_OFFSET_MS) {}

  /** The estimate (ms; positive: JetStream's clock is ahead of this node's), undefined before
   * the first sample. A sample is the offset plus the heartbeat's transit time, which is never
   * negative: the smallest recent sample is the closest to the offset. */
  get offsetMs(): number | undefined {
    return this.samples.length === 0 ? undefined : Math.min(...this.samples);
  }

  /** One heartbeat: `sentAtMs` on this node's clock, `storedAtMs` JetStream's timestamp of it. */
  observe(sentAtMs: number, storedAtMs: number): void {
    if (!Number.isFinite(sentAtMs) || !Number.isFinite(storedAtMs)) return;
    this.samples.push(storedAtMs - sentAtMs);
    if (this.samples.length > SAMPLES) this.samples.shift();
    if (this.samples.length < MIN_SAMPLES) return;
    const offset = this.offsetMs!;
    const off = Math.abs(offset) > this.maxMs;
    if (off === this.off) return;
    this.off = off;
    this.onChange(offset, off);
  }
}
