// What the runtime route groups are handed by buildApp: the stores and little else.
import type { Redis } from 'ioredis';
import type { GraphRegistry } from '../../graphs/registry.js';
import type { WarrenMetrics } from '../metrics/warren-metrics.js';
import type { RunDispatcher } from '../queue/run-queue.js';
import type { RunStreamHub } from '../store/run-stream-hub.js';
import type { Stores } from '../store/stores.js';

export interface RuntimeSettings {
  heartbeatMs: number;
  /** Interval of the whitespace keep-alive on `/wait` and `/join`. */
  keepAliveMs: number;
}

export interface RuntimeDeps {
  stores: Stores;
  graphs: GraphRegistry;
  dispatcher: RunDispatcher;
  hub: RunStreamHub;
  /** For publishing cancel signals. */
  redis: Redis;
  settings: RuntimeSettings;
  metrics: Pick<WarrenMetrics, 'openConnections' | 'relayLagSeconds' | 'waitingClients'>;
}
