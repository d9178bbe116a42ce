// The API process's metrics: what it measures itself (HTTP requests, streaming clients, relay
// lag, conversions), and what it reads from Redis when scraped (queue depth, runs by status).
// Metric names are the ones dashboards already use; the HTTP and process metrics are new.
import type { Queue } from 'bullmq';
import type { RedisClient } from '../store/redis.js';
import { Gauge, Histogram, Counter, type Registry } from 'prom-client';
import { keys } from '../store/keys.js';
import type { RunStreamHub } from '../streams/run-stream-hub.js';
import { createRegistry, renderRegistry, scrapedCounter, scrapedGauge } from './registry.js';

/** Seconds: from a millisecond to a minute (HTTP requests, runs waiting in the queue). */
export const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface WarrenMetrics {
  registry: Registry;
  render(): Promise<string>;
  openConnections: Gauge;
  waitingClients: Gauge;
  relayLagSeconds: Histogram;
  conversionSeconds: Histogram;
  /** Deriving a TypeScript graph file's schemas from its types, by outcome (ok, broken, failed). */
  typeSchemaSeconds: Histogram;
  /** One answered HTTP request: its route pattern (never the raw URL), method and status. */
  observeRequest(route: string, method: string, status: number, seconds: number): void;
}

interface Sources {
  redis: RedisClient;
  queue: Pick<Queue, 'getJobCounts'>;
  hub: Pick<RunStreamHub, 'stats'>;
  /** Hears why a Redis read failed (that scrape goes without those series). */
  onCollectorError: (err: unknown) => void;
}

export function createWarrenMetrics({ redis, queue, hub, onCollectorError }: Sources): WarrenMetrics {
  const registry = createRegistry();
  const registers = [registry];
  const openConnections = new Gauge({
    name: 'warren_open_connections',
    help: 'Open streaming connections of this API process, by transport.',
    labelNames: ['transport'],
    registers,
  });
  const waitingClients = new Gauge({
    name: 'warren_stream_clients_waiting',
    help: 'Streaming clients that read slower than their run writes: paused until they catch up, then served from Redis.',
    labelNames: ['transport'],
    registers,
  });
  for (const transport of ['sse', 'websocket']) {
    openConnections.set({ transport }, 0);
    waitingClients.set({ transport }, 0);
  }
  const relayLagSeconds = new Histogram({
    name: 'warren_stream_relay_lag_seconds',
    help: 'Delay from a worker appending an event to this API process writing it to a client.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const conversionSeconds = new Histogram({
    name: 'warren_conversion_duration_seconds',
    help: 'Time to convert an uploaded document to Markdown, by format.',
    labelNames: ['format'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const typeSchemaSeconds = new Histogram({
    name: 'warren_graph_type_schema_duration_seconds',
    help: 'Time to derive the JSON schemas of a TypeScript graph file from its types (once per file per process), by outcome.',
    labelNames: ['outcome'],
    buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  const httpRequests = new Counter({
    name: 'warren_http_requests_total',
    help: 'HTTP requests answered by this API process, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'],
    registers,
  });
  const httpSeconds = new Histogram({
    name: 'warren_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (for a stream: until it ends), by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'],
    buckets: LATENCY_BUCKETS,
    registers,
  });

  const jobCounts = () => queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
  scrapedGauge({
    registry,
    name: 'warren_queue_jobs',
    help: 'Run jobs in the queue, by state, across all workers.',
    labelNames: ['state'],
    read: async () => Object.entries(await jobCounts()).map(([state, value]) => ({ labels: { state }, value })),
    onError: onCollectorError,
  });
  scrapedGauge({
    registry,
    name: 'warren_active_runs',
    help: 'Runs being executed by workers right now.',
    read: async () => [{ value: (await queue.getJobCounts('active')).active ?? 0 }],
    onError: onCollectorError,
  });
  scrapedCounter({
    registry,
    name: 'warren_runs_finished_total',
    help: 'Runs that reached a final status, across all workers.',
    labelNames: ['status'],
    read: async () => Object.entries(await redis.hgetall(keys.runsByStatus())).map(([status, value]) => ({ labels: { status }, value: Number(value) })),
    onError: onCollectorError,
  });
  // What the relay holds in this process: all three fall to 0 once every client has gone.
  const held = (pick: (stats: ReturnType<RunStreamHub['stats']>) => number) => async () => [{ value: pick(hub.stats()) }];
  scrapedGauge({ registry, name: 'warren_stream_hub_runs', help: 'Runs this API process follows for its clients.', read: held((s) => s.streams), onError: onCollectorError });
  scrapedGauge({
    registry,
    name: 'warren_stream_hub_subscribers',
    help: 'Clients and waits following a run here, paused ones included.',
    read: held((s) => s.subscribers),
    onError: onCollectorError,
  });
  scrapedGauge({
    registry,
    name: 'warren_stream_hub_cache_bytes',
    help: 'Bytes of catch-up pages cached for the runs followed.',
    read: held((s) => s.cachedBytes),
    onError: onCollectorError,
  });

  return {
    registry,
    render: () => renderRegistry(registry),
    openConnections,
    waitingClients,
    relayLagSeconds,
    conversionSeconds,
    typeSchemaSeconds,
    observeRequest(route, method, status, seconds) {
      const labels = { route, method, status: String(status) };
      httpRequests.inc(labels);
      httpSeconds.observe(labels, seconds);
    },
  };
}

/** The worker's side: count a run's final status, across the cluster. */
export async function countFinishedRun(redis: RedisClient, status: string): Promise<void> {
  await redis.hincrby(keys.runsByStatus(), status, 1);
}
