// Prometheus metrics with prom-client. Each process has its own registry (tests build several
// servers in one process), with Node's process and event-loop metrics in it. Cluster-wide
// values (queue depth, runs by status) are read from Redis by collectors when it is scraped.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

export type Labels = Record<string, string>;
export interface Sample {
  labels?: Labels;
  value: number;
}

/** A registry holding Node's process metrics (CPU, memory, GC, event-loop lag) already. */
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** The Prometheus text exposition of everything in the registry. */
export const renderRegistry = (registry: Registry): Promise<string> => registry.metrics();

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

interface ScrapedOptions {
  registry: Registry;
  name: string;
  help: string;
  labelNames?: readonly string[];
  /** The series, read at scrape time. */
  read: () => Promise<Sample[]>;
  /** A failed read leaves this metric's series out of the scrape; this hears why. */
  onError: (err: unknown) => void;
}

const readOrNothing = (read: () => Promise<Sample[]>, onError: (err: unknown) => void) =>
  read().catch((err: unknown) => {
    onError(err);
    return [] as Sample[];
  });

/** A gauge whose series are computed at scrape time (e.g. from Redis). */
export function scrapedGauge({ registry, name, help, labelNames = [], read, onError }: ScrapedOptions): Gauge {
  return new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      for (const s of await readOrNothing(read, onError)) this.set(s.labels ?? {}, s.value);
    },
  });
}

/** A counter whose totals are kept elsewhere (in Redis, across processes) and read at scrape time. */
export function scrapedCounter({ registry, name, help, labelNames = [], read, onError }: ScrapedOptions): Counter {
  return new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      for (const s of await readOrNothing(read, onError)) this.inc(s.labels ?? {}, s.value);
    },
  });
}
