// A small metrics registry rendering the Prometheus text exposition format (version 0.0.4):
// counters, gauges and histograms with fixed label names, plus gauges read at scrape time.
// Label values must never carry identifiers or secrets; the series count is capped.

type Labels = Record<string, string | number | boolean | undefined>;

/** Most label combinations one metric keeps; further ones are dropped (and counted). */
const MAX_SERIES = 2000;

abstract class Metric {
  protected readonly series = new Map<string, { labels: string[]; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    protected readonly registry: MetricsRegistry,
  ) {}

  abstract readonly type: 'counter' | 'gauge' | 'histogram';

  protected slot(labels: Labels): { labels: string[]; value: number } | undefined {
    // The key is built in one pass: this runs on every request (request metrics).
    let key = '';
    for (let i = 0; i < this.labelNames.length; i++) {
      const value = labels[this.labelNames[i]];
      key += i === 0 ? String(value ?? '') : `\x00${String(value ?? '')}`;
    }
    let slot = this.series.get(key);
    if (!slot) {
      if (this.series.size >= MAX_SERIES) {
        this.registry.droppedSeries++;
        return undefined;
      }
      slot = { labels: this.labelNames.map((name) => String(labels[name] ?? '')), value: 0 };
      this.series.set(key, slot);
    }
    return slot;
  }

  render(): string[] {
    return [...this.series.values()].map((s) => `${this.name}${labelText(this.labelNames, s.labels)} ${formatValue(s.value)}`);
  }
}

/** A monotonically increasing count. */
export class Counter extends Metric {
  readonly type = 'counter';

  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) return;
    const slot = this.slot(labels);
    if (slot) slot.value += by;
  }

  /** The current value of one series (for tests and derived numbers). */
  get(labels: Labels = {}): number {
    return this.series.get(this.labelNames.map((n) => String(labels[n] ?? '')).join('\x00'))?.value ?? 0;
  }
}

/** A value that goes up and down; `collect` (if given) refreshes it at every scrape. */
export class Gauge extends Metric {
  readonly type = 'gauge';
  collect?: (gauge: Gauge) => void | Promise<void>;

  set(labels: Labels, value: number): void {
    const slot = this.slot(labels);
    if (slot) slot.value = value;
  }

  reset(): void {
    this.series.clear();
  }
}

/** Observations counted into cumulative buckets (seconds, by convention). */
export class Histogram extends Metric {
  readonly type = 'histogram';
  /** Bucket counts by series (the slot object of its labels). */
  private readonly data = new Map<object, { labels: string[]; buckets: number[]; sum: number; count: number }>();

  constructor(name: string, help: string, labelNames: readonly string[], registry: MetricsRegistry, readonly buckets: readonly number[]) {
    super(name, help, labelNames, registry);
  }

  observe(labels: Labels, value: number): void {
    const slot = this.slot(labels);
    if (!slot || !Number.isFinite(value)) return;
    let data = this.data.get(slot);
    if (!data) {
      data = { labels: slot.labels, buckets: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.data.set(slot, data);
    }
    // Counted in the first bucket that holds the value; render() makes them cumulative.
    const i = firstAtLeast(this.buckets, value);
    if (i < data.buckets.length) data.buckets[i]++;
    data.sum += value;
    data.count++;
  }

  override render(): string[] {
    const lines: string[] = [];
    for (const d of this.data.values()) {
      let cumulative = 0;
      for (const [i, bound] of this.buckets.entries()) {
        cumulative += d.buckets[i];
        lines.push(`${this.name}_bucket${labelText([...this.labelNames, 'le'], [...d.labels, formatValue(bound)])} ${cumulative}`);
      }
      lines.push(`${this.name}_bucket${labelText([...this.labelNames, 'le'], [...d.labels, '+Inf'])} ${d.count}`);
      lines.push(`${this.name}_sum${labelText(this.labelNames, d.labels)} ${formatValue(d.sum)}`);
      lines.push(`${this.name}_count${labelText(this.labelNames, d.labels)} ${d.count}`);
    }
    return lines;
  }
}

/** Index of the first bound >= value (bounds ascending), or bounds.length. */
function firstAtLeast(bounds: readonly number[], value: number): number {
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bounds[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Holds the metrics of one node and renders them for GET /metrics. */
export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();
  /** Label combinations refused because a metric reached MAX_SERIES. */
  droppedSeries = 0;

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.add(new Counter(name, help, labelNames, this));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = [], collect?: (gauge: Gauge) => void | Promise<void>): Gauge {
    const gauge = this.add(new Gauge(name, help, labelNames, this));
    gauge.collect = collect;
    return gauge;
  }

  histogram(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, labelNames, this, [...buckets].sort((a, b) => a - b)));
  }

  /** The text exposition of every metric; scrape-time gauges are collected first. */
  async render(): Promise<string> {
    const out: string[] = [];
    for (const metric of this.metrics.values()) {
      if (metric instanceof Gauge && metric.collect) {
        metric.reset();
        await metric.collect(metric);
      }
      out.push(`# HELP ${metric.name} ${metric.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
      out.push(`# TYPE ${metric.name} ${metric.type}`);
      out.push(...metric.render());
    }
    out.push('# HELP weft_metrics_dropped_series_total Label combinations refused because a metric had too many series');
    out.push('# TYPE weft_metrics_dropped_series_total counter');
    out.push(`weft_metrics_dropped_series_total ${this.droppedSeries}`);
    return `${out.join('\n')}\n`;
  }

  private add<M extends Metric>(metric: M): M {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(metric.name)) throw new Error(`invalid metric name ${metric.name}`);
    if (this.metrics.has(metric.name)) throw new Error(`metric ${metric.name} is already registered`);
    this.metrics.set(metric.name, metric);
    return metric;
  }
}

function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return '';
  return `{${names.map((name, i) => `${name}="${escapeLabel(values[i] ?? '')}"`).join(',')}}`;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
