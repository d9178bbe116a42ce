// A small Prometheus registry: gauges and histograms, rendered in the text
// exposition format. Process-local values live here; cluster-wide ones (queue depth, runs by
// status) are read from Redis by collectors when /metrics is scraped.

type Labels = Record<string, string>;

const labelKey = (labels: Labels) =>
  Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');

interface Metric {
  render(): string[];
}

/** HELP and TYPE, then one line per series (`labelKey` → value). */
const metricLines = (name: string, help: string, type: 'counter' | 'gauge', series: Iterable<readonly [string, number]>): string[] => [
  `# HELP ${name} ${help}`,
  `# TYPE ${name} ${type}`,
  ...[...series].map(([key, value]) => `${name}${key ? `{${key}}` : ''} ${value}`),
];

export class Gauge implements Metric {
  private readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  set(value: number, labels: Labels = {}): void {
    this.values.set(labelKey(labels), value);
  }
  add(by: number, labels: Labels = {}): void {
    const key = labelKey(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }
  render(): string[] {
    return metricLines(this.name, this.help, 'gauge', this.values);
  }
}

export class Histogram implements Metric {
  private readonly series = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {}
  observe(value: number, labels: Labels = {}): void {
    const key = labelKey(labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    this.buckets.forEach((b, i) => {
      if (value <= b) (s as { counts: number[] }).counts[i] = ((s as { counts: number[] }).counts[i] ?? 0) + 1;
    });
    s.sum += value;
    s.count += 1;
  }
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [key, s] of this.series) {
      const sep = key ? `${key},` : '';
      this.buckets.forEach((b, i) => lines.push(`${this.name}_bucket{${sep}le="${b}"} ${s.counts[i] ?? 0}`));
      lines.push(`${this.name}_bucket{${sep}le="+Inf"} ${s.count}`);
      lines.push(`${this.name}_sum${key ? `{${key}}` : ''} ${s.sum}`);
      lines.push(`${this.name}_count${key ? `{${key}}` : ''} ${s.count}`);
    }
    return lines;
  }
}

/** Metrics computed at scrape time (e.g. from Redis). */
export type Collector = () => Promise<string[]>;

export class MetricsRegistry {
  private readonly metrics: Metric[] = [];
  private readonly collectors: Collector[] = [];
  gauge(name: string, help: string): Gauge {
    const m = new Gauge(name, help);
    this.metrics.push(m);
    return m;
  }
  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    const m = new Histogram(name, help, buckets);
    this.metrics.push(m);
    return m;
  }
  collect(collector: Collector): void {
    this.collectors.push(collector);
  }
  /** A failed collector leaves its series out of this scrape; `onCollectorError` hears why. */
  async render(onCollectorError: (err: unknown) => void): Promise<string> {
    const lines = this.metrics.flatMap((m) => m.render());
    for (const collector of this.collectors) {
      lines.push(
        ...(await collector().catch((err: unknown) => {
          onCollectorError(err);
          return [];
        })),
      );
    }
    return `${lines.join('\n')}\n`;
  }
}

/** Renders one gauge or counter from values computed at scrape time. */
export function sampleLines(name: string, help: string, type: 'counter' | 'gauge', samples: { labels?: Labels; value: number }[]): string[] {
  return metricLines(name, help, type, samples.map((s) => [labelKey(s.labels ?? {}), s.value] as const));
}
