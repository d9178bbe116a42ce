// Builds the worker process from its configuration: connections → stores → graphs → Worker.
// workers/main.ts runs it; the tests build it the same way.
import type { DestinationStream } from 'pino';
import { createSubagentRunnerFor } from '../graphs/lead-agent/lead-agent.js';
import { createGraphRegistry } from '../graphs/registry.js';
import type { EnvConfig } from '../src/config/env.js';
import type { LoadedConfig } from '../src/config/load-config.js';
import { resolveSkillsDir } from '../src/config/extensions.js';
import { PROJECT_SKILLS_DIR } from '../src/config/paths.js';
import { configSecrets } from '../src/config/secrets.js';
import { createTaskDispatcher } from '../src/queue/task-queue.js';
import { createLogger } from '../src/logger.js';
import { countFinishedRun } from '../src/metrics/warren-metrics.js';
import { createRunQueue } from '../src/queue/run-queue.js';
import { connectRedis } from '../src/store/redis.js';
import { createStores } from '../src/store/stores.js';
import { createGraphServices } from './agent/graph-services.js';
import { startRunWorker, type RunWorker } from './run-worker.js';
import { startTaskWorker } from './task-worker.js';
import { createMcpOAuth } from './tools/mcp-oauth.js';
import { createMcpToolset } from './tools/mcp-tools.js';
import { watchMcpConfig } from './tools/mcp-reload.js';

export interface WorkerProcess {
  worker: RunWorker;
  close(): Promise<void>;
}

export interface WorkerProcessOptions {
  env: Readonly<EnvConfig>;
  loaded: LoadedConfig;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Test hook: where the log lines go (instead of stdout). */
  logStream?: DestinationStream;
  /** Test hook: null runs the agent as if bubblewrap were not installed. */
  bwrapPath?: string | null;
}

export async function createWorkerProcess({ env, loaded, lockDurationMs, stalledIntervalMs, logStream, bwrapPath }: WorkerProcessOptions): Promise<WorkerProcess> {
  const { config, dir } = loaded;
  const log = createLogger(env.logLevel, 'warren-worker', {
    ...(logStream ? { stream: logStream } : {}),
    secrets: configSecrets(config, process.env, env.apiKeys),
  });
  const redis = connectRedis(env.redisUrl, 'worker', log);
  const stores = createStores(redis.command);
  // OAuth tokens are cached per server for the life of the process, across MCP reloads.
  const mcpOAuth = createMcpOAuth({ log });
  const mcp = createMcpToolset({
    extensionsConfigPath: env.extensionsConfigPath,
    log,
    httpAuth: (name, server) => mcpOAuth.sourceFor(name, server),
    stdioAllowedCommands: config.mcp.stdio_allowed_commands,
  });
  const mcpSubscriber = redis.subscriber('mcp');
  await watchMcpConfig(mcpSubscriber, mcp, log);
  const tasks = createTaskDispatcher(redis.bullmqOptions, env.queueName, redis.command, log);
  const services = createGraphServices(config, {
    home: env.home,
    skillsDir: resolveSkillsDir(config.skills.path, dir, PROJECT_SKILLS_DIR),
    extensionsConfigPath: env.extensionsConfigPath,
    mcpTools: () => mcp.tools(),
    tasks,
    log,
    ...(bwrapPath !== undefined ? { bwrapPath } : {}),
  });
  const graphs = createGraphRegistry(config.graphs, dir, { checkpointer: stores.checkpointer, appConfig: config, services, log });
  const taskWorker = await startTaskWorker({
    runQueueName: env.queueName,
    connection: redis.bullmqOptions,
    concurrency: env.workerConcurrency,
    subscriber: redis.subscriber('tasks'),
    runner: createSubagentRunnerFor(config, services),
    timeoutMs: config.subagents.timeout_seconds * 1000,
    workerName: env.instanceId,
    log,
  });
  const dispatcher = createRunQueue(redis.bullmqOptions, env.queueName, log);
  const { checkpointer } = stores;

  const worker = await startRunWorker({
    queueName: env.queueName,
    connection: redis.bullmqOptions,
    concurrency: env.workerConcurrency,
    subscriber: redis.subscriber('control'),
    log,
    lockDurationMs: lockDurationMs ?? config.runtime.lock_seconds * 1000,
    stalledIntervalMs: stalledIntervalMs ?? config.runtime.stalled_check_seconds * 1000,
    executor: {
      ...stores,
      graphs,
      dispatcher,
      checkpoints: {
        saverFor: (fence, forkFrom) => checkpointer.forRun(fence, forkFrom),
        latestId: (threadId) => checkpointer.latestId(threadId),
        rollBack: (fence, checkpointId) => checkpointer.rollBack(fence, checkpointId),
        deleteThread: (threadId) => checkpointer.deleteThread(threadId),
      },
      settings: {
        maxAttempts: config.runtime.max_attempts,
        defaultRecursionLimit: config.runtime.default_recursion_limit,
        streamRetentionSeconds: config.runtime.stream_retention_seconds,
      },
      log,
      countFinished: (status) => countFinishedRun(redis.command, status),
    },
  });
  log.info({ queue: env.queueName, concurrency: env.workerConcurrency, graphs: graphs.ids() }, 'worker started');

  let closing: Promise<void> | undefined;
  return {
    worker,
    close: () =>
      (closing ??= (async () => {
        await worker.close();
        await taskWorker.close();
        await tasks.close();
        await mcp.close();
        await dispatcher.close();
        await redis.close();
      })()),
  };
}
