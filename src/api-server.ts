// Builds the API process from its configuration: connections → stores → graphs → app.
// src/main.ts listens with it; the tests build it the same way.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { EnvConfig } from './config/env.js';
import type { LoadedConfig } from './config/load-config.js';
import { createGraphRegistry } from './graphs/registry.js';
import { createLogger } from './logger.js';
import { createRunQueue } from './queue/run-queue.js';
import { connectRedis } from './store/redis.js';
import { createRunStreamHub } from './store/run-stream-hub.js';
import { TERMINAL_RUN_STATUSES } from './store/records.js';
import { createStores } from './store/stores.js';

export interface ApiServer {
  app: FastifyInstance;
  /** Stops accepting, ends open streams, closes connections. Idempotent. */
  close(): Promise<void>;
}

export interface ApiServerOptions {
  env: Readonly<EnvConfig>;
  loaded: LoadedConfig;
  /** Test hooks: shorter heartbeats and keep-alives. */
  heartbeatMs?: number;
  keepAliveMs?: number;
}

export async function createApiServer({ env, loaded, heartbeatMs, keepAliveMs }: ApiServerOptions): Promise<ApiServer> {
  const { config, dir } = loaded;
  const log = createLogger(env.logLevel, 'warren-api');
  const redis = connectRedis(env.redisUrl, 'api', log);
  const stores = createStores(redis.command);
  const graphs = createGraphRegistry(config.graphs, dir, { checkpointer: stores.checkpointer, appConfig: config });
  const dispatcher = createRunQueue(redis.bullmqOptions, env.queueName);
  const hub = createRunStreamHub({
    streams: stores.streams,
    blockingConnection: (name) => redis.blocking(name),
    isSettled: async (threadId, runId) => {
      const run = await stores.runs.get(threadId, runId);
      return run === null || TERMINAL_RUN_STATUSES.includes(run.status);
    },
    onError: (err) => log.warn({ err }, 'run stream reader error'),
  });

  const app = await buildApp({
    config,
    logLevel: env.logLevel,
    redisReady: () => redis.command.status === 'ready',
    runtime: {
      stores,
      graphs,
      dispatcher,
      hub,
      redis: redis.command,
      settings: {
        heartbeatMs: heartbeatMs ?? config.runtime.heartbeat_seconds * 1000,
        keepAliveMs: keepAliveMs ?? 1000,
      },
    },
  });

  let closing: Promise<void> | undefined;
  return {
    app,
    close: () =>
      (closing ??= (async () => {
        await hub.close();
        await app.close();
        await dispatcher.close();
        await redis.close();
      })()),
  };
}
