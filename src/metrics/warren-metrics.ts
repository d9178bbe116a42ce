// Warren's metrics: what the API process measures, and what it reads from Redis when scraped.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { keys } from '../store/keys.js';
import type { RunStreamHub } from '../store/run-stream-hub.js';
import { MetricsRegistry, sampleLines } from './registry.js';

export interface WarrenMetrics {
  registry: MetricsRegistry;
  openConnections: ReturnType<MetricsRegistry['gauge']>;
  waitingClients: ReturnType<MetricsRegistry['gauge']>;
  relayLagSeconds: ReturnType<MetricsRegistry['histogram']>;
  conversionSeconds: ReturnType<MetricsRegistry['histogram']>;
}

export function createWarrenMetrics(redis: Redis, queue: Pick<Queue, 'getJobCounts'>, hub: Pick<RunStreamHub, 'stats'>): WarrenMetrics {
  const registry = new MetricsRegistry();
  const openConnections = registry.gauge('warren_open_connections', 'Open streaming connections of this API process, by transport.');
  openConnections.set(0, { transport: 'sse' });
  openConnections.set(0, { transport: 'websocket' });
  const waitingClients = registry.gauge(
    'warren_stream_clients_waiting',
    'Streaming clients that read slower than their run writes: paused until they catch up, then served from Redis.',
  );
  waitingClients.set(0, { transport: 'sse' });
  waitingClients.set(0, { transport: 'websocket' });
  const relayLagSeconds = registry.histogram(
    'warren_stream_relay_lag_seconds',
    'Delay from a worker appending an event to this API process writing it to a client.',
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  );
  const conversionSeconds = registry.histogram(
    'warren_conversion_duration_seconds',
    'Time to convert an uploaded document to Markdown, by format.',
    [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  );

  registry.collect(async () => {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
    return [
      ...sampleLines('warren_queue_jobs', 'Run jobs in the queue, by state.', 'gauge', Object.entries(counts).map(([state, value]) => ({ labels: { state }, value }))),
      ...sampleLines('warren_active_runs', 'Runs being executed by workers right now.', 'gauge', [{ value: counts.active ?? 0 }]),
    ];
  });
  registry.collect(async () => {
    const byStatus = await redis.hgetall(keys.runsByStatus());
    return sampleLines(
      'warren_runs_finished_total',
      'Runs that reached a final status, across all workers.',
      'counter',
      Object.entries(byStatus).map(([status, value]) => ({ labels: { status }, value: Number(value) })),
    );
  });
  registry.collect(async () => {
    // What the relay holds in this process: all three fall to 0 once every client has gone.
    const held = hub.stats();
    return [
      ...sampleLines('warren_stream_hub_runs', 'Runs this API process follows for its clients.', 'gauge', [{ value: held.streams }]),
      ...sampleLines('warren_stream_hub_subscribers', 'Clients and waits following a run here, paused ones included.', 'gauge', [{ value: held.subscribers }]),
      ...sampleLines('warren_stream_hub_cache_bytes', 'Bytes of catch-up pages cached for the runs followed.', 'gauge', [{ value: held.cachedBytes }]),
    ];
  });
  return { registry, openConnections, waitingClients, relayLagSeconds, conversionSeconds };
}

/** The worker's side: count a run's final status. */
export async function countFinishedRun(redis: Redis, status: string): Promise<void> {
  await redis.hincrby(keys.runsByStatus(), status, 1);
}
