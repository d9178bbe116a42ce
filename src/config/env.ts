// The process configuration from the environment: read once, validated, frozen.
import { hostname } from 'node:os';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { ConfigError } from '../errors.js';
import { ApiKeySchema } from './app-config.schemas.js';

export const EnvConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65_535 }),
  host: Type.String({ minLength: 1 }),
  /**
   * Connections the kernel queues for the API before it accepts them: a burst past this is
   * dropped or reset. Node's default is 511; Linux clamps the value to net.core.somaxconn.
   */
  listenBacklog: Type.Integer({ minimum: 1, maximum: 65_535 }),
  /**
   * REDIS_URL: `redis://`/`rediss://` for one Redis, `redis+cluster://h1:p1,h2:p2` for a Redis
   * Cluster. Absent when unset, so config.yaml's `redis:` block may name it (redis-target.ts).
   */
  redisUrl: Type.Optional(Type.String({ pattern: '^rediss?(\\+cluster)?://' })),
  /** Absolute path of WARREN_HOME, which holds `threads/`. */
  home: Type.String({ minLength: 1 }),
  /** Absolute path of extensions_config.json. */
  extensionsConfigPath: Type.String({ minLength: 1 }),
  logLevel: Type.Union([
    Type.Literal('fatal'),
    Type.Literal('error'),
    Type.Literal('warn'),
    Type.Literal('info'),
    Type.Literal('debug'),
    Type.Literal('trace'),
    Type.Literal('silent'),
  ]),
  /** BullMQ queue for runs; separate names let several deployments share one Redis. */
  queueName: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  /** Runs one worker process executes at once. */
  workerConcurrency: Type.Integer({ minimum: 1, maximum: 256 }),
  /** This process's name in logs and the X-Warren-Instance header. */
  instanceId: Type.String({ pattern: '^[A-Za-z0-9._:-]{1,128}$' }),
  /**
   * API keys from WARREN_API_KEYS (comma-separated). Absent or empty, with no `auth.api_keys` in
   * config.yaml either, the API is open, as the spec's default is.
   */
  apiKeys: Type.Optional(Type.Array(ApiKeySchema)),
  /** WARREN_WORKER_METRICS_PORT: a worker's metrics port, over config.yaml's `metrics.worker_port`. */
  workerMetricsPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 65_535 })),
  /**
   * WARREN_MEMORY_USER: whose memory (`/api/memory`) this deployment keeps, until authentication
   * has users; absent, DeerFlow's `default`. Deployments sharing one Redis may each name their own.
   */
  memoryUser: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' })),
  /** WARREN_API_URL: the deployment's root URL for its own processes, over config.yaml's `api_url`. */
  apiUrl: Type.Optional(Type.String({ pattern: '^https?://\\S+$' })),
  /** LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS (LangGraph's name): how long deriving a graph file's schemas from its types may take. */
  schemaResolveTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  /**
   * WARREN_SESSION_SECRET: the key that signs people's session cookies (`auth.accounts`), at
   * least 32 characters; every API replica needs the same one. Required when accounts are on.
   */
  sessionSecret: Type.Optional(Type.String({ minLength: 32, maxLength: 1024 })),
  /**
   * WARREN_CHANNEL_SECRETS_KEY: the AES-256-GCM key that encrypts chat-channel credentials saved
   * from the UI (POST /api/channels/{provider}/runtime-config), 32 bytes as 64 hex digits or
   * base64. Absent: such credentials cannot be saved (config.yaml channels work as before).
   */
  channelSecretsKey: Type.Optional(Type.String({ pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=?)$' })),
});
export type EnvConfig = Static<typeof EnvConfigSchema>;

export function readEnvConfig(env: NodeJS.ProcessEnv = process.env): Readonly<EnvConfig> {
  const configDir = path.dirname(path.resolve(env.WARREN_CONFIG ?? 'config.yaml'));
  const candidate = {
    port: Number(env.PORT ?? 2026),
    // Loopback unless told: a first `npm start` is not reachable from the network. Containers
    // (docker-compose.yml, the Dockerfile) set HOST=0.0.0.0.
    host: env.HOST ?? '127.0.0.1',
    listenBacklog: Number(env.WARREN_LISTEN_BACKLOG ?? 4096),
    home: path.resolve(env.WARREN_HOME ?? '.warren'),
    extensionsConfigPath: path.resolve(env.WARREN_EXTENSIONS_CONFIG ?? path.join(configDir, 'extensions_config.json')),
    logLevel: env.LOG_LEVEL ?? 'info',
    queueName: env.WARREN_QUEUE ?? 'runs',
    workerConcurrency: Number(env.WARREN_WORKER_CONCURRENCY ?? 8),
    instanceId: env.WARREN_INSTANCE_ID ?? `${hostname()}-${process.pid}`,
    apiKeys: (env.WARREN_API_KEYS ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter((key) => key !== ''),
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
    ...(env.WARREN_WORKER_METRICS_PORT ? { workerMetricsPort: Number(env.WARREN_WORKER_METRICS_PORT) } : {}),
    ...(env.WARREN_MEMORY_USER ? { memoryUser: env.WARREN_MEMORY_USER } : {}),
    ...(env.WARREN_API_URL ? { apiUrl: env.WARREN_API_URL } : {}),
    ...(env.LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS ? { schemaResolveTimeoutMs: Number(env.LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS) } : {}),
    ...(env.WARREN_SESSION_SECRET ? { sessionSecret: env.WARREN_SESSION_SECRET } : {}),
    ...(env.WARREN_CHANNEL_SECRETS_KEY ? { channelSecretsKey: env.WARREN_CHANNEL_SECRETS_KEY } : {}),
  };
  if (!Value.Check(EnvConfigSchema, candidate)) {
    const names: Record<string, string> = {
      port: 'PORT',
      host: 'HOST',
      listenBacklog: 'WARREN_LISTEN_BACKLOG',
      redisUrl: 'REDIS_URL',
      home: 'WARREN_HOME',
      extensionsConfigPath: 'WARREN_EXTENSIONS_CONFIG',
      logLevel: 'LOG_LEVEL',
      queueName: 'WARREN_QUEUE',
      workerConcurrency: 'WARREN_WORKER_CONCURRENCY',
      instanceId: 'WARREN_INSTANCE_ID',
      apiKeys: 'WARREN_API_KEYS',
      workerMetricsPort: 'WARREN_WORKER_METRICS_PORT',
      memoryUser: 'WARREN_MEMORY_USER',
      apiUrl: 'WARREN_API_URL',
      schemaResolveTimeoutMs: 'LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS',
      sessionSecret: 'WARREN_SESSION_SECRET',
      channelSecretsKey: 'WARREN_CHANNEL_SECRETS_KEY',
    };
    // Only the variable's name and the rule: a rejected value may be a key, and is never echoed.
    const problems = [...Value.Errors(EnvConfigSchema, candidate)].map((e) => {
      const key = e.instancePath.split('/')[1] ?? '';
      return `${names[key] ?? key} ${e.message}`;
    });
    throw new ConfigError(`Invalid environment: ${problems.join('; ')}`);
  }
  return Object.freeze(candidate);
}
