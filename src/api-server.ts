// Builds the API process from its configuration: connections → stores → graphs → services → app.
// Each service is built here once; the raw Redis client never leaves this file and the stores.
// src/main.ts listens with it; the tests build it the same way.
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { queueBoardRoutes, queueBoardSettings } from './admin/queue-board.js';
import { createRecordAccess } from './auth/record-access.js';
import { buildApp, type HttpTimeouts } from './app.js';
import { authenticatorFor } from './auth/authenticator.js';
import { createRequestOrigins } from './auth/request-origin.js';
import { createSessions, requireSessionSecret, withSessions } from './auth/sessions.js';
import { accountsRoutes } from './accounts/accounts.routes.js';
import { createAccountsService } from './accounts/accounts.service.js';
import { createOidcSignIn } from './accounts/oidc-signin.js';
import type { AppConfig } from './config/app-config.schemas.js';
import type { EnvConfig } from './config/env.js';
import type { LoadedConfig } from './config/load-config.js';
import { createExtensionsStore, resolveSkillsDir } from './config/extensions.js';
import { PROJECT_SKILLS_DIR } from './config/paths.js';
import { resolveRedisTarget } from './config/redis-target.js';
import { configSecrets } from './config/secrets.js';
import { createSandbox } from './convert/sandbox.js';
import type { GatewaySettings } from './gateway/gateway-deps.js';
import { createArtifactsService } from './gateway/artifacts.service.js';
import { gatewayRoutes, type GatewayServices } from './gateway/gateway.plugin.js';
import { createMcpService } from './gateway/mcp.service.js';
import { createMemoryService } from './memory/memory.service.js';
import { createModelsService } from './gateway/models.service.js';
import { createAgentsService } from './agents/agents.service.js';
import { createSkillsService } from './skills/skills.service.js';
import { createSuggestionsService } from './suggestions/suggestions.service.js';
import { createInputPolishService } from './input-polish/input-polish.service.js';
import { createThreadCleanupService } from './gateway/threads.service.js';
import { createTokenUsageService } from './gateway/token-usage.service.js';
import { createThreadMessagesService } from './gateway/thread-messages.service.js';
import { createCustomSkillsService } from './skills/custom-skills.service.js';
import { createDeerFlowThreadsService } from './gateway/deerflow-threads.service.js';
import { createSkillHistoryStore } from './skills/skills.js';
import { createFeedbackService } from './gateway/feedback.service.js';
import { createThreadGoalService } from './gateway/thread-goal.service.js';
import { createThreadBranchesService } from './gateway/thread-branches.service.js';
import { createRunReplayService } from './gateway/run-replay.service.js';
import { createThreadCompactService } from './gateway/thread-compact.service.js';
import { createDeerFlowRunsService } from './gateway/deerflow-runs.service.js';
import { createDeerFlowAssistantsService } from './gateway/deerflow-assistants.service.js';
import { createConsoleService } from './gateway/console.service.js';
import { createUploadsService } from './uploads/uploads.service.js';
import { createChannelsService } from './channels/channels.service.js';
import { createChannelConnectionsService } from './channels/channel-connections.service.js';
import { createLarkIntegrationService } from './channels/lark-integration.service.js';

import { createLarkAccounts, createSecretBox } from './channels/channels.js';
import { createSlackEventsService } from './channels/slack-events.service.js';
import { createFeishuEventsService } from './channels/feishu-events.service.js';
import { conversionLimits } from './uploads/uploads.js';
import { isRedisUnreachable } from './errors.js';
import { createGraphRegistry, DEFAULT_GRAPH_ID } from '../graphs/registry.js';
import { createLogger } from './logger.js';
import { createWarrenMetrics } from './metrics/warren-metrics.js';
import { publishCancel, publishChannelRestart, publishChannelConfigChanged, publishConfigChanged } from './queue/control.js';
import { createRunQueue } from './queue/run-queue.js';
import { createTaskDispatcher, type TaskDispatcher } from './queue/task-queue.js';
import { createFileLocks, type FileLockSettings } from './store/file-locks.js';
import { connectionErrorLog, connectRedis } from './store/redis.js';
import { createRunFollow } from './streams/run-follow.js';
import { createAssistantsService } from './runtime/assistants.service.js';
import { createTypeSchemas } from './runtime/type-schemas/type-schemas.js';
import { createRunAdmission, SELF_STARTED_RECURSION_LIMIT, type RunAdmissionDeps } from './admission/admit-run.js';
import { triggerCron } from './admission/cron-tick.js';
import type { CancelSignals } from './admission/cancel-run.js';
import { createCronScheduler } from './crons/crons.js';
import { createCronsService } from './crons/crons.service.js';
import { createScheduledTasksService } from './crons/scheduled-tasks.service.js';
import { createRunsService } from './runtime/runs.service.js';
import { createStateService } from './runtime/state.service.js';
import { createTruncateService } from './runtime/truncate.service.js';
import { assistantGraphConfig } from './admission/run-assistant.js';
import { readLangGraphConfig } from './config/langgraph-config.js';
import { deploymentApiKey, pointSdkAt, sdkDefaultUrl } from './config/sdk-default-url.js';
import { createStoreService } from './runtime/store.service.js';
import { createThreadsService } from './runtime/threads.service.js';
import { createRunStreamHub, hubListener } from './streams/run-stream-hub.js';
import { isRunSettled } from './store/records.js';
import { DEFAULT_MEMORY_USER } from './memory/memory.js';
import { rateLimitBacking } from './store/rate-limit.js';
import { createStores } from './stores.js';
import { RedisStore } from './store/langgraph-store.js';
import { storeSettingsFor } from './store/store-embeddings.js';
import { createThreadFiles } from './workspace/thread-files.js';
import { startTracing } from './tracing/tracing.js';
import { bundleUi } from './ui/ui-bundles.js';
import { uiRoutes } from './ui/ui.routes.js';
import { createUiService } from './ui/ui.service.js';
import { createCustomHttp } from './custom-http/custom-http.plugin.js';
import { loadCustomApp } from './custom-http/custom-app.js';
import { projectCorsOptions } from './http/plugins/cors.js';

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
  /** Test hook: other upload limits or conversion settings. */
  gateway?: Partial<GatewaySettings>;
  /** Test hook: shorter HTTP timeouts. */
  timeouts?: Partial<HttpTimeouts>;
  /** Test hook: where the log lines go (instead of stdout). */
  logStream?: DestinationStream;
  /** Test hook: shorter waits for, and leases of, the locks on shared files. */
  fileLocks?: Partial<FileLockSettings>;
  /** Test hook: how long the stream hub's shared read blocks (and a quiet run waits for its settled check). */
  streamBlockMs?: number;
}

const MIB = 1024 * 1024;

function uploadSettings(uploads: AppConfig['uploads']): GatewaySettings {
  return {
    uploads: {
      maxFiles: uploads.max_files,
      maxFileBytes: Math.floor(uploads.max_file_mb * MIB),
      maxRequestBytes: Math.floor(uploads.max_request_mb * MIB),
    },
    conversion: conversionLimits(uploads),
    maxConcurrentConversions: uploads.max_concurrent_conversions,
  };
}

export async function createApiServer({ env, loaded, heartbeatMs, keepAliveMs, gateway, timeouts, logStream, fileLocks, streamBlockMs }: ApiServerOptions): Promise<ApiServer> {
  const { config, dir } = loaded;
  // Before any graph module loads: one may make its SDK client at import.
  pointSdkAt(sdkDefaultUrl({ configured: config.api_url, fromEnv: env.apiUrl, port: env.port, host: env.host }), process.env, deploymentApiKey(env.apiKeys ?? [], config.auth.api_keys));
  const secrets = configSecrets(config, process.env, env.apiKeys ?? []);
  // Before Redis: a custom auth module that fails to load stops the start with nothing to close.
  const baseAuth = await authenticatorFor(config.auth, env.apiKeys ?? [], dir);
  const accountsConfig = config.auth.accounts;
  const origins = createRequestOrigins(accountsConfig.trusted_proxies, config.cors.origins);
  // Checked before Redis too: accounts without a signing key stop the start with nothing to close.
  if (accountsConfig.enabled) requireSessionSecret(env.sessionSecret);
  // Before Redis too: a component that fails to bundle stops the start naming its file.
  const ui = createUiService(await bundleUi(loaded.ui));
  // The same: a project's `http.app` that fails to load stops the start before any connection.
  const projectHttp = loaded.http;
  const customApp = projectHttp?.app === undefined ? undefined : await loadCustomApp(projectHttp.app, dir);
  const log = createLogger(env.logLevel, 'warren-api', { ...(logStream ? { stream: logStream } : {}), secrets });
  const redis = connectRedis(resolveRedisTarget(env, config), 'api', log, { failFast: true });
  // Collectors read Redis: while it is away, every scrape would fail the same way.
  const collectorErrors = connectionErrorLog(log, {}, { what: 'metrics collector' });
  const redisErrors = connectionErrorLog(log, { connection: 'api:stream-hub' });
  const stores = createStores(redis.command, await storeSettingsFor(config.store), log);
  const sessions = accountsConfig.enabled ? createSessions(env.sessionSecret, stores.accounts) : undefined;
  const auth = sessions ? withSessions(baseAuth, sessions, origins) : baseAuth;
  const accounts = createAccountsService({ config: accountsConfig, store: stores.accounts, ...(sessions ? { sessions } : {}) });
  const oidc = createOidcSignIn({ config: accountsConfig, store: stores.accounts, startSession: accounts.startSession });
  const graphs = createGraphRegistry(config.graphs, dir, { checkpointer: stores.checkpointer, store: new RedisStore(stores.items), appConfig: config, log });
  const systemDefaults = readLangGraphConfig(process.env, graphs.ids());
  const recordAccess = createRecordAccess({ ...stores, isSystemAssistant: (id) => graphs.has(id), policy: auth.policy });
  const dispatcher = createRunQueue(redis.queueOptions, env.queueName, log);
  // Suggestions and input polish are worker tasks; the queue and its event reader are opened on the first one.
  let taskQueue: TaskDispatcher | undefined;
  const tasks: Pick<TaskDispatcher, 'run'> = {
    run: (job, options) => (taskQueue ??= createTaskDispatcher(redis.bullmqOptions, env.queueName, redis.command, log)).run(job, options),
  };
  const hub = createRunStreamHub({
    streams: stores.streams,
    listener: hubListener(redis),
    isSettled: async (threadId, runId) => isRunSettled(await stores.runs.get(threadId, runId)),
    // A Redis outage is logged once, with the connections' own lines; other faults each time.
    onError: (err) => (isRedisUnreachable(err) ? redisErrors.error(err) : log.warn({ err }, 'run stream reader error')),
    ...(streamBlockMs ? { blockMs: streamBlockMs } : {}),
  });

  const tracing = startTracing(config.tracing, 'api', env.instanceId);
  const metrics = createWarrenMetrics({ redis: redis.command, queue: dispatcher.jobCounts, hub, onCollectorError: collectorErrors.error });
  const cancelSignals: CancelSignals = { publish: (message) => publishCancel(redis.command, message) };
  // Every replica shares extensions_config.json and the threads' files: their read-modify-writes
  // are serialised in Redis, not in this process.
  const locks = createFileLocks(redis.command, fileLocks);
  const gatewaySettings = { ...uploadSettings(config.uploads), ...gateway };
  // As many warm sandbox workers as conversions the limiter lets through, so none waits twice.
  const conversionPool = createSandbox({
    ...gatewaySettings.conversion,
    maxWorkers: gatewaySettings.conversion.maxWorkers ?? gatewaySettings.maxConcurrentConversions,
  });
  const gatewayDeps = {
    config,
    files: createThreadFiles(env.home),
    uploadsLock: locks.threadUploads,
    extensions: createExtensionsStore(env.extensionsConfigPath, locks.extensionsConfig),
    skillsDir: resolveSkillsDir(config.skills.path, dir, PROJECT_SKILLS_DIR),
    // Bare names are looked up on the PATH a worker would give the child: the process's own.
    stdioPolicy: { allowedCommands: config.mcp.stdio_allowed_commands, searchPath: process.env.PATH },
    announceExtensionsChanged: () => publishConfigChanged(redis.command, { what: 'extensions' }),
    settings: gatewaySettings,
    conversionPool,
    onConversion: (format: string, seconds: number) => metrics.conversionSeconds.observe({ format }, seconds),
  };
  const state = createStateService({
    stores,
    graphs,
    assistantConfig: (assistantId) => assistantGraphConfig({ assistants: stores.assistants, graphs, systemDefaults }, assistantId),
  });
  const history = createThreadMessagesService({ state, threads: stores.threads, runs: stores.runs, checkpointer: stores.checkpointer, feedback: stores.feedback });
  const customSkills = createCustomSkillsService(
    { ...gatewayDeps, history: createSkillHistoryStore(redis.command, (key) => log.warn({ key }, 'damaged custom skill history entry skipped')), lock: locks.customSkills },
    log,
  );
  const channelSecrets = createSecretBox(env.channelSecretsKey);
  const channelConnections = createChannelConnectionsService({
    config: config.channels,
    store: stores.channelConnections,
    channels: stores.channels,
    box: channelSecrets,
    announce: (channel) => publishChannelConfigChanged(redis.command, { channel }),
  });
  const gatewayServices: Omit<GatewayServices, 'scheduledTasks' | 'threads' | 'runHandling' | 'dfRuns' | 'dfAssistants' | 'console'> = {
    models: createModelsService(gatewayDeps),
    mcp: createMcpService(gatewayDeps),
    skills: createSkillsService({ ...gatewayDeps, onInstalled: (name, text) => customSkills.recordInstall(name, text) }, log),
    customSkills,
    uploads: createUploadsService({ ...gatewayDeps, claimThread: recordAccess.claimThread }, log),
    uploadLimits: gatewayDeps.settings.uploads,
    // `threads` is made below (it needs the crons); the gateway's delete is the runtime's.
    cleanup: createThreadCleanupService((threadId) => threads.erase(threadId)),
    tokenUsage: createTokenUsageService(stores),
    history,
    feedback: createFeedbackService({ feedback: stores.feedback, runs: stores.runs }),
    goal: createThreadGoalService({ goals: stores.goals, runs: stores.runs, claimThread: recordAccess.claimThread }),
    branches: createThreadBranchesService({ threads: stores.threads, checkpointer: stores.checkpointer, state, files: gatewayDeps.files }, log),
    replay: createRunReplayService({ threads: stores.threads, runs: stores.runs, checkpointer: stores.checkpointer, goals: stores.goals, history }),
    compaction: createThreadCompactService({ state, runs: stores.runs, agents: stores.customAgents, tasks, config: config.summarization }, log),
    artifacts: createArtifactsService(gatewayDeps.files),
    agents: createAgentsService({ agents: stores.customAgents, config }),
    suggestions: createSuggestionsService({ tasks, config: config.suggestions }, log),
    inputPolish: createInputPolishService({ tasks, config: config.input_polish }, log),
    memory: createMemoryService({ memory: stores.memory, config: config.memory, anonymousUser: env.memoryUser ?? DEFAULT_MEMORY_USER }),
    channels: createChannelsService({
      config: config.channels,
      channels: stores.channels,
      requestRestart: (name) => publishChannelRestart(redis.command, { channel: name }),
    }),
    channelConnections,
    lark: createLarkIntegrationService({
      config: config.channels.feishu,
      store: stores.channelConnections,
      box: channelSecrets,
      accounts: createLarkAccounts(config.channels.feishu),
      channels: channelConnections,
    }),
    slackEvents: createSlackEventsService({ config: config.channels.slack, inbox: stores.channels }),
    feishuEvents: createFeishuEventsService({ config: config.channels.feishu, inbox: stores.channels }),
  };
  const admissionDeps: RunAdmissionDeps = {
    stores,
    graphs,
    systemDefaults,
    dispatcher,
    cancelSignals,
    agents: stores.customAgents,
    webhooksAllowPrivate: config.webhooks.allow_private_networks,
  };
  const cronScheduler = createCronScheduler(redis.queueOptions, env.queueName, log);
  const cronAdmission = createRunAdmission(admissionDeps);
  const crons = createCronsService({ stores, admission: cronAdmission, scheduler: cronScheduler, access: auth.policy });
  // DeerFlow's scheduled tasks are these crons; a manual trigger is admitted as a tick is.
  const scheduledTasks = createScheduledTasksService({
    crons,
    stores,
    requireThread: (identity, threadId) => recordAccess.requireThread(identity, threadId),
    trigger: (cronId, triggerId) => triggerCron({ crons: stores.crons, admission: cronAdmission, defaultRecursionLimit: SELF_STARTED_RECURSION_LIMIT }, cronId, triggerId),
  });
  const threads = createThreadsService({
    stores,
    cancelSignals,
    state,
    removeCrons: (threadId) => crons.removeForThread(threadId),
    access: auth.policy,
    // Under the uploads lock, so no upload renames a file into a folder on its way out.
    removeFiles: (threadId) =>
      locks.threadUploads(threadId).run(async (confirm) => {
        await confirm();
        await gatewayDeps.files.removeThread(threadId);
      }),
  });
  const typeSchemas = createTypeSchemas({
    ids: () => graphs.ids(),
    typeSource: (graphId) => graphs.typeSource(graphId),
    log,
    ...(env.schemaResolveTimeoutMs ? { timeoutMs: env.schemaResolveTimeoutMs } : {}),
    onDerived: (outcome, seconds) => metrics.typeSchemaSeconds.observe({ outcome }, seconds),
  });
  const assistants = createAssistantsService({ stores, graphs, removeThread: (threadId) => threads.remove(threadId), access: auth.policy, systemDefaults, typeSchemas });
  const runs = createRunsService({ ...admissionDeps, access: recordAccess, policy: auth.policy });
  const follow = createRunFollow({ hub, metrics });
  const runtimeSettings = {
    heartbeatMs: heartbeatMs ?? config.runtime.heartbeat_seconds * 1000,
    keepAliveMs: keepAliveMs ?? 1000,
  };
  const queueBoard = queueBoardSettings(config.admin.queues);
  // Set once close() starts: /ready answers 503 from then on.
  let closing: Promise<void> | undefined;
  const app = await buildApp({
    config,
    recordAccess,
    metrics: () => metrics.render(),
    observability: { observeRequest: metrics.observeRequest, tracing: tracing.enabled },
    instanceId: env.instanceId,
    logLevel: env.logLevel,
    ...(logStream ? { logStream } : {}),
    ...(timeouts ? { timeouts } : {}),
    auth,
    ...(projectHttp ? { customHttp: createCustomHttp(projectHttp, customApp) } : {}),
    ...(projectHttp?.cors ? { cors: projectCorsOptions(projectHttp.cors) } : {}),
    rateLimits: { config: config.rate_limits, backing: rateLimitBacking(redis.command) },
    logSecrets: secrets,
    redisReady: () => redis.ready(),
    redisNotReadyReason: () => redis.notReadyReason(),
    draining: () => closing !== undefined,
    gateway: (scope) =>
      gatewayRoutes(scope, {
        ...gatewayServices,
        scheduledTasks,
        threads: createDeerFlowThreadsService({ threads, state, requireThread: (identity, threadId) => recordAccess.requireThread(identity, threadId) }),
        runHandling: { runs, follow, settings: runtimeSettings },
        dfRuns: createDeerFlowRunsService({ runs, usage: stores.usage, history, feedback: gatewayServices.feedback, claimThread: recordAccess.claimThread }),
        dfAssistants: createDeerFlowAssistantsService({ assistants, agents: stores.customAgents, agentGraph: DEFAULT_GRAPH_ID }),
        console: createConsoleService({
          threads,
          runs: stores.runs,
          usage: stores.usage,
          history,
          config,
          countAgents: async (identity) => (await gatewayServices.agents.list(identity)).agents.length,
        }),
      }),
    ui: (scope) => uiRoutes(scope, { ui }),
    accounts: (scope) => accountsRoutes(scope, { accounts, oidc, origins }),
    ...(queueBoard
      ? {
          queueBoard: (scope: FastifyInstance) =>
            queueBoardRoutes(scope, { ...queueBoard, connection: redis.queueOptions, runQueueName: env.queueName, log, redisAway: () => redis.command.status !== 'ready' }),
        }
      : {}),
    runtime: {
      assistants,
      threads,
      state,
      runs,
      crons,
      follow,
      store: createStoreService(stores.items, auth.policy),
      graphs,
      ...(config.dev ? { truncate: createTruncateService({ stores, removeThread: (threadId) => threads.remove(threadId) }) } : {}),
      settings: runtimeSettings,
    },
  });

  return {
    app,
    close: () =>
      (closing ??= (async () => {
        await hub.close();
        await app.close();
        // After the app: uploads in flight have had their answers, so no conversion is cut short.
        await conversionPool.close();
        await typeSchemas.close();
        const redisAway = redis.command.status !== 'ready';
        await dispatcher.close(redisAway);
        await cronScheduler.close(redisAway);
        // Its goodbye would wait for a Redis that is not there; the process is leaving anyway.
        if (!redisAway) await taskQueue?.close();
        await redis.close();
        await tracing.shutdown();
      })()),
  };
}
