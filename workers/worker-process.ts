// Builds the worker process from its configuration: connections → stores → graphs → Worker.
// workers/main.ts runs it; the tests build it the same way.
import type { DestinationStream, Logger } from 'pino';
import { createSubagentRunnerFor } from '../graphs/lead-agent/lead-agent.js';
import { askForRevision } from '../graphs/lead-agent/memory-update.js';
import { pickModel } from '../graphs/lead-agent/run-options.js';
import { createGraphRegistry } from '../graphs/registry.js';
import type { EnvConfig } from '../src/config/env.js';
import type { LoadedConfig } from '../src/config/load-config.js';
import { resolveSkillsDir } from '../src/config/extensions.js';
import { PROJECT_SKILLS_DIR } from '../src/config/paths.js';
import { resolveRedisTarget } from '../src/config/redis-target.js';
import { configSecrets } from '../src/config/secrets.js';
import { createTaskDispatcher } from '../src/queue/task-queue.js';
import { createLogger } from '../src/logger.js';
import { countFinishedRun } from '../src/metrics/warren-metrics.js';
import { createWorkerMetrics } from '../src/metrics/worker-metrics.js';
import { createRunAdmission, SELF_STARTED_RECURSION_LIMIT } from '../src/admission/admit-run.js';
import { readLangGraphConfig } from '../src/config/langgraph-config.js';
import { deploymentApiKey, pointSdkAt, sdkDefaultUrl } from '../src/config/sdk-default-url.js';
import { runCronTick } from '../src/admission/cron-tick.js';
import { publishCancel, type CancelMessage } from '../src/queue/control.js';
import { createMemoryUpdateQueue } from '../src/memory/memory.js';
import { createRunQueue } from '../src/queue/run-queue.js';
import { turnFromValues } from '../src/memory/memory.js';
import { DEFAULT_MEMORY_USER, memoryUserOf } from '../src/memory/memory.js';
import { createWebhookDispatcher } from '../src/webhooks/webhooks.js';
import { connectRedis } from '../src/store/redis.js';
import { createStores } from '../src/stores.js';
import { RedisStore } from '../src/store/langgraph-store.js';
import { storeSettingsFor } from '../src/store/store-embeddings.js';
import { startTracing } from '../src/tracing/tracing.js';
import { createFileLocks } from '../src/store/file-locks.js';
import { createJobLocks } from '../src/store/job-locks.js';
import { createThreadFiles } from '../src/workspace/thread-files.js';
import { createGraphServices } from './agent/graph-services.js';
import { withModelTasks } from './model-tasks/model-tasks.js';
import { startMetricsServer } from './metrics-server.js';
import { observeRun } from './run-executor/run-observer.js';
import { startRunWorker, type RunWorker } from './run-executor/run-worker.js';
import { startMemoryWorker } from './memory/memory-worker.js';
import { ORPHAN_FOLDER_QUIET_MS, startStoreSweeper } from './store-sweeper.js';
import { startTaskWorker } from './tasks/task-worker.js';
import { startWebhookWorker } from './webhooks/webhook-worker.js';
import { startCronWorker } from './crons/cron-worker.js';
import { startChannels } from './channels/channels.js';
import { createSecretBox } from '../src/channels/channels.js';
import { createMcpOAuth } from './tools/mcp-oauth.js';
import { createMcpToolset } from './tools/mcp-tools.js';
import { watchMcpConfig } from './tools/mcp-reload.js';

export interface WorkerProcess {
  worker: RunWorker;
  log: Logger;
  /** The port this worker serves its metrics on, if it does. */
  metricsPort: number | null;
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
  // Before any graph module loads: a graph's `new Client()` reaches this deployment's API.
  pointSdkAt(sdkDefaultUrl({ configured: config.api_url, fromEnv: env.apiUrl, port: env.port, host: env.host }), process.env, deploymentApiKey(env.apiKeys ?? [], config.auth.api_keys));
  const log = createLogger(env.logLevel, 'warren-worker', {
    ...(logStream ? { stream: logStream } : {}),
    secrets: configSecrets(config, process.env, env.apiKeys),
  });
  const tracing = startTracing(config.tracing, 'worker', env.instanceId);
  const metrics = createWorkerMetrics();
  // Before any connection or job: a taken port stops the worker before it takes work.
  const metricsPort = env.workerMetricsPort ?? config.metrics.worker_port;
  const metricsServer = metricsPort === null ? null : await startMetricsServer(() => metrics.render(), metricsPort, config.metrics.worker_host, log);
  const redis = connectRedis(resolveRedisTarget(env, config), 'worker', log);
  const stores = createStores(redis.command, await storeSettingsFor(config.store), log);
  // OAuth tokens are cached per server for the life of the process, across MCP reloads.
  const mcpOAuth = createMcpOAuth({ log });
  const mcp = createMcpToolset({
    extensionsConfigPath: env.extensionsConfigPath,
    log,
    httpAuth: (name, server) => mcpOAuth.sourceFor(name, server),
    stdioAllowedCommands: config.mcp.stdio_allowed_commands,
    allowPrivateNetworks: config.mcp.allow_private_networks,
  });
  const mcpSubscriber = redis.subscriber('mcp');
  await watchMcpConfig(mcpSubscriber, mcp, log);
  // A run learns and recalls for the user who owns its thread.
  const memoryUser = async (threadId: string) => memoryUserOf(await stores.threads.ownerOf(threadId), env.memoryUser ?? DEFAULT_MEMORY_USER);
  const tasks = createTaskDispatcher(redis.bullmqOptions, env.queueName, redis.command, log);
  const services = createGraphServices(config, {
    home: env.home,
    skillsDir: resolveSkillsDir(config.skills.path, dir, PROJECT_SKILLS_DIR),
    extensionsConfigPath: env.extensionsConfigPath,
    mcpTools: () => mcp.tools(),
    tasks,
    customAgents: stores.customAgents,
    // setup_agent and update_agent write the agent for the user who owns the run's thread.
    agents: { agents: stores.customAgents, ownerOf: (threadId) => stores.threads.ownerOf(threadId) },
    memory: { read: async (threadId) => stores.memory.read(await memoryUser(threadId)) },
    log,
    ...(bwrapPath !== undefined ? { bwrapPath } : {}),
  });
  const graphs = createGraphRegistry(config.graphs, dir, { checkpointer: stores.checkpointer, store: new RedisStore(stores.items), appConfig: config, services, log });
  const taskWorker = await startTaskWorker({
    runQueueName: env.queueName,
    connection: redis.bullmqOptions,
    concurrency: env.workerConcurrency,
    subscriber: redis.subscriber('tasks'),
    runner: withModelTasks(config, services, createSubagentRunnerFor(config, services)),
    timeoutMs: config.subagents.timeout_seconds * 1000,
    workerName: env.instanceId,
    log,
    // A sub-agent's tokens count for the run that asked for it.
    observe: (task, root) => observeRun({ root, metrics, usage: stores.usage, threadId: task.thread_id, runId: task.run_id, log, caller: 'subagent' }),
  });
  const webhooks = createWebhookDispatcher(
    redis.bullmqOptions,
    env.queueName,
    { maxAttempts: config.webhooks.max_attempts, backoffMs: config.webhooks.backoff_seconds * 1000 },
    log,
  );
  const webhookWorker = await startWebhookWorker({
    runQueueName: env.queueName,
    connection: redis.bullmqOptions,
    config: config.webhooks,
    runs: stores.runs,
    count: (outcome) => metrics.webhookAttempt(outcome),
    log,
  });
  const dispatcher = createRunQueue(redis.bullmqOptions, env.queueName, log);
  const memory = config.memory.enabled ? await startMemoryUpdates() : null;
  const { checkpointer } = stores;
  const threadFiles = createThreadFiles(env.home);
  const uploadsLock = createFileLocks(redis.command).threadUploads;
  const storeSweeper = startStoreSweeper(redis.command, stores.items, config.store.ttl.sweep_interval_minutes * 60_000, env.instanceId, log, {
    home: env.home,
    quietMs: ORPHAN_FOLDER_QUIET_MS,
    ownership: (threadId) => stores.threads.ownership(threadId),
    removeIfUnowned: (threadId) =>
      uploadsLock(threadId).run(async (confirm) => {
        // Checked again under the lock: an upload may have claimed the id since the listing.
        const { owner, exists } = await stores.threads.ownership(threadId);
        if (exists || owner !== null) return false;
        await confirm();
        await threadFiles.removeThread(threadId);
        return true;
      }),
  });
  const lockMs = lockDurationMs ?? config.runtime.lock_seconds * 1000;
  const stalledMs = stalledIntervalMs ?? config.runtime.stalled_check_seconds * 1000;
  const cancelSignals = { publish: (message: CancelMessage) => publishCancel(redis.command, message) };
  const admission = createRunAdmission({
    stores,
    graphs,
    // Cron ticks run the system assistants with LANGGRAPH_CONFIG's defaults, as the API's runs do.
    systemDefaults: readLangGraphConfig(process.env, graphs.ids()),
    dispatcher,
    agents: stores.customAgents,
    cancelSignals,
    webhooksAllowPrivate: config.webhooks.allow_private_networks,
  });
  const cronWorker = await startCronWorker({
    runQueueName: env.queueName,
    connection: redis.bullmqOptions,
    tick: (cronId, tickMs) => runCronTick({ crons: stores.crons, admission, defaultRecursionLimit: SELF_STARTED_RECURSION_LIMIT }, cronId, tickMs),
    lockDurationMs: lockMs,
    stalledIntervalMs: stalledMs,
    log,
  });

  /** The memory update queue and its worker: turns go in, and the model revises the memory. */
  async function startMemoryUpdates() {
    const settings = config.memory;
    const queue = createMemoryUpdateQueue(redis.bullmqOptions, env.queueName, stores.memoryTurns, settings.debounce_seconds * 1000, log);
    const worker = await startMemoryWorker({
      runQueueName: env.queueName,
      connection: redis.bullmqOptions,
      memory: stores.memory,
      turns: stores.memoryTurns,
      queue,
      settings,
      askModel: async (current, turns, signal) =>
        askForRevision(await services.chatModel(pickModel(config.models, settings.model_name), { thinkingEnabled: false }), current, turns, signal),
      log,
    });
    return { queue, worker };
  }

  const worker = await startRunWorker({
    queueName: env.queueName,
    connection: redis.bullmqOptions,
    concurrency: env.workerConcurrency,
    subscriber: redis.subscriber('control'),
    log,
    lockDurationMs: lockMs,
    stalledIntervalMs: stalledMs,
    outage: { holdMs: config.runtime.outage_hold_seconds * 1000, jobLocks: createJobLocks(redis.command) },
    executor: {
      ...stores,
      graphs,
      dispatcher,
      checkpoints: {
        saverFor: (fence, forkFrom) => checkpointer.forRun(fence, forkFrom),
        rollBack: (fence, checkpointId) => checkpointer.rollBack(fence, checkpointId),
        deleteThread: (threadId) => checkpointer.deleteThread(threadId),
      },
      settings: {
        maxAttempts: config.runtime.max_attempts,
        defaultRecursionLimit: config.runtime.default_recursion_limit,
        streamRetentionSeconds: config.runtime.stream_retention_seconds,
        // A hold lasts as long as the job lock; after a Redis restart, its worker has as long again to re-take it.
        lease: { leaseMs: lockMs, graceMs: lockMs },
      },
      log,
      countFinished: (status) => countFinishedRun(redis.command, status),
      metrics,
      webhooks,
      ...(memory
        ? {
            rememberTurn: async (threadId: string, values: Record<string, unknown>) => {
              const turn = turnFromValues(threadId, values, new Date());
              if (turn) await memory.queue.turnEnded(await memoryUser(threadId), turn);
            },
          }
        : {}),
    },
  });
  // After the run worker: a message a channel turns into a run has a worker to take it.
  const channels = await startChannels({ config, home: env.home, stores, admission, cancelSignals, redis, box: createSecretBox(env.channelSecretsKey), holder: env.instanceId, log });
  log.info({ pid: process.pid, queue: env.queueName, concurrency: env.workerConcurrency, graphs: graphs.ids() }, 'worker started');

  let closing: Promise<void> | undefined;
  return {
    worker,
    log,
    metricsPort: metricsServer?.port ?? null,
    close: () =>
      (closing ??= (async () => {
        // Redis away: no run can be handed back and no goodbye reaches it, so waiting for
        // either would only hold the process past its stop deadline.
        const force = redis.command.status !== 'ready';
        if (force) log.warn('redis unreachable at shutdown: runs in progress are left to lapse and be taken over');
        storeSweeper.stop();
        // First: the channel's lease is given back at once, so another worker takes over without waiting it out.
        await channels?.close();
        await worker.close(force);
        await taskWorker.close(force);
        await cronWorker.close(force);
        await webhookWorker.close(force);
        await memory?.worker.close(force);
        await memory?.queue.close(force);
        await webhooks.close(force);
        await tasks.close(force);
        await mcp.close();
        await dispatcher.close(force);
        await redis.close();
        await metricsServer?.close();
        await tracing.shutdown();
      })()),
  };
}
