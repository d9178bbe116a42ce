// Boots a real API and a real worker in this process, against the test Redis, with a fresh
// WARREN_HOME, config and queue name, so test files never share jobs.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import type { DestinationStream } from 'pino';
import { inject } from 'vitest';
import { stringify } from 'yaml';
import { createApiServer, type ApiServer, type ApiServerOptions } from '../../src/api-server.js';
import type { EnvConfig } from '../../src/config/env.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { createWorkerProcess, type WorkerProcess } from '../../workers/worker-process.js';
import { trackedDir } from './leftovers.js';

export const GRAPHS_MODULE = fileURLToPath(new URL('../fixtures/graphs/test-graphs.ts', import.meta.url));

/** The test graphs by id: `<id>` → `test-graphs.ts:<id>`. */
export const testGraphs = (...ids: string[]) => Object.fromEntries(ids.map((id) => [id, `${GRAPHS_MODULE}:${id}`]));

export interface Stack {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The runtime API base, for the LangGraph SDK. */
  apiUrl: string;
  client: Client;
  api: ApiServer;
  worker: WorkerProcess;
  home: string;
  env: EnvConfig;
  /** Starts one more worker process on the same queue. */
  addWorker(): Promise<WorkerProcess>;
  close(): Promise<void>;
}

export interface StackOptions {
  config?: Record<string, unknown>;
  heartbeatMs?: number;
  keepAliveMs?: number;
  workers?: number;
  /** Runs (and sub-agent tasks) one worker executes at once. */
  workerConcurrency?: number;
  /** Runs on the app before it listens (to add test-only routes). */
  beforeListen?: (app: ApiServer['app']) => void;
  /** Shorter HTTP timeouts (slow-client tests). */
  timeouts?: ApiServerOptions['timeouts'];
  /** How long the stream hub's shared read blocks. */
  streamBlockMs?: number;
  /** Log lines of the API and the workers go here, at `logLevel` (default: silent, nowhere). */
  logStream?: DestinationStream;
  logLevel?: EnvConfig['logLevel'];
  /** null: the workers act as if bubblewrap were not installed. */
  bwrapPath?: string | null;
}

/**
 * The test Redis with its own logical database `db` (1–15), for a deployment whose
 * deployment-wide state (people's accounts: the first admin, emails) must start empty while other
 * test files run on the same Redis. A Cluster has only database 0: there the shared one is used,
 * and such files must run alone (`WARREN_TEST_REDIS=cluster npx vitest run <file>`).
 */
export function testRedisDatabase(db: number): string {
  const url = inject('redisUrl');
  if (url.includes('+cluster://')) return url;
  const own = new URL(url);
  own.pathname = `/${db}`;
  return own.toString();
}

/** The process environment of a test API or worker: the test Redis, its own home and queue. */
export function testEnv(home: string, overrides: Partial<EnvConfig> = {}): EnvConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    listenBacklog: 4096,
    redisUrl: inject('redisUrl'),
    home,
    extensionsConfigPath: path.join(home, 'extensions_config.json'),
    logLevel: (process.env.WARREN_TEST_LOG_LEVEL ?? 'silent') as EnvConfig['logLevel'],
    queueName: `test-${randomUUID().slice(0, 8)}`,
    // Its own memory too: test files share Redis, and a stack must not see another's facts.
    memoryUser: `test-${randomUUID().slice(0, 8)}`,
    workerConcurrency: 4,
    instanceId: 'test-api',
    ...overrides,
  };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const home = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-stack-')));
  const configFile = path.join(home, 'config.yaml');
  writeFileSync(configFile, stringify(options.config ?? {}));
  const env = testEnv(home, {
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
    ...(options.workerConcurrency ? { workerConcurrency: options.workerConcurrency } : {}),
  });
  const loaded = loadAppConfig({ WARREN_CONFIG: configFile });
  const api = await createApiServer({
    env,
    loaded,
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
    ...(options.keepAliveMs ? { keepAliveMs: options.keepAliveMs } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ...(options.streamBlockMs ? { streamBlockMs: options.streamBlockMs } : {}),
  });
  options.beforeListen?.(api.app);
  const address = await api.app.listen({ port: 0, host: '127.0.0.1', backlog: env.listenBacklog });
  const workers: WorkerProcess[] = [];
  const addWorker = async () => {
    const w = await createWorkerProcess({
      env: { ...env, instanceId: `worker-${workers.length}` },
      loaded,
      ...(options.logStream ? { logStream: options.logStream } : {}),
      ...(options.bwrapPath !== undefined ? { bwrapPath: options.bwrapPath } : {}),
    });
    workers.push(w);
    return w;
  };
  for (let i = 0; i < (options.workers ?? 1); i++) await addWorker();
  const apiUrl = `${address}/api/langgraph`;
  return {
    url: address,
    apiUrl,
    client: new Client({ apiUrl }),
    api,
    worker: workers[0] as WorkerProcess,
    home,
    env,
    addWorker,
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await api.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
