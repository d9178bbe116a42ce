// Warren as it is deployed: its own Redis, one API process and one worker process, started from
// the built dist/ with a config.yaml that hosts the bench graph next to the built-in lead_agent.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { collectGarbage, GC_HOOK_ARGS, type GcReport } from '../lib/gc.ts';
import { freePort, startChild, stopChild, type Child } from '../lib/processes.ts';
import { waitFor } from '../lib/wait.ts';
import type { BenchServer } from './bench-server.ts';
import { startRedis, startRedisCluster } from './redis.ts';
import { scrapeOpenStreams, scrapeRelayLag } from './warren-metrics.ts';

export interface WarrenOptions {
  projectRoot: string;
  /** `<absolute module path>:<export>` of the bench graph. */
  graphSpec: string;
  modelUrl: string;
  gatedModelUrl: string;
  /** WARREN_WORKER_CONCURRENCY: runs each worker process executes at once. */
  workerConcurrency: number;
  /** Worker processes (1 unless scaling out is what is measured). */
  workers?: number;
  /** API processes on the same Redis (1 unless the soak's two replicas are measured). */
  apis?: number;
  /** Write V8 CPU profiles of the API and workers here when they stop. */
  cpuProfDir?: string | null;
  /** Each forced GC of a process (the API's in the bench; every process's in the soak) writes a heap snapshot here instead. */
  heapSnapshotDir?: string | null;
  /** A local 3-master Redis Cluster instead of one redis-server. */
  redisCluster?: boolean;
}

export interface WarrenServer extends BenchServer {
  /** Base URL of the gateway (`/api/...`) and `/ok`. */
  readonly baseUrl: string;
  /** Its Redis (the first node of a cluster). */
  readonly redisUrl: string;
  readonly onCluster: boolean;
  /** Base URL of each API process, the first being `baseUrl`. */
  readonly apiBaseUrls: readonly string[];
  /** Every Node process (APIs, then workers) by role, each able to run a forced GC (../lib/gc.ts). */
  readonly nodeProcesses: readonly NodeProcess[];
}

export interface NodeProcess {
  name: string;
  pid: number;
  collectGarbage(): Promise<GcReport>;
}

function configYaml(options: WarrenOptions): string {
  // JSON is YAML: no YAML library needed in the bench package.
  return JSON.stringify(
    {
      models: [{ name: 'bench', display_name: 'Bench scripted model', use: 'openai', model: 'bench-model', base_url: options.modelUrl, api_key: 'not-needed' }],
      graphs: { chat: options.graphSpec },
    },
    null,
    2,
  );
}

export async function startWarren(options: WarrenOptions): Promise<WarrenServer> {
  const home = mkdtempSync(path.join(tmpdir(), 'warren-bench-'));
  const redis = options.redisCluster ? await startRedisCluster(options.projectRoot, home) : await startRedis(options.projectRoot, home);
  const configFile = path.join(home, 'config.yaml');
  writeFileSync(configFile, configYaml(options));
  const ports = await Promise.all(Array.from({ length: options.apis ?? 1 }, () => freePort()));
  const env = {
    ...process.env,
    REDIS_URL: redis.url,
    HOST: '127.0.0.1',
    WARREN_HOME: home,
    WARREN_CONFIG: configFile,
    WARREN_QUEUE: `bench-${randomUUID().slice(0, 8)}`,
    WARREN_WORKER_CONCURRENCY: String(options.workerConcurrency),
    LOG_LEVEL: 'warn',
    BENCH_MODEL_URL: options.modelUrl,
    BENCH_GATED_MODEL_URL: options.gatedModelUrl,
    // Written when each process exits, which it does on the SIGTERM that stops the bench.
    ...(options.cpuProfDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${options.cpuProfDir}` } : {}),
    ...(options.heapSnapshotDir ? { BENCH_HEAP_SNAPSHOT_DIR: options.heapSnapshotDir } : {}),
  };
  const dist = path.join(options.projectRoot, 'dist');
  const apis: Child[] = ports.map((port, i) =>
    startChild(ports.length === 1 ? 'warren-api' : `warren-api-${i}`, process.execPath, [...GC_HOOK_ARGS, path.join(dist, 'src', 'main.js')], { cwd: options.projectRoot, env: { ...env, PORT: String(port) } }),
  );
  const api = apis[0] as Child;
  const workers: Child[] = Array.from({ length: options.workers ?? 1 }, (_, i) =>
    startChild(`warren-worker-${i}`, process.execPath, [...GC_HOOK_ARGS, path.join(dist, 'workers', 'main.js')], { cwd: options.projectRoot, env }),
  );
  const apiBaseUrls = ports.map((port) => `http://127.0.0.1:${port}`);
  const baseUrl = apiBaseUrls[0] as string;

  const stop = async () => {
    await Promise.all([...apis, ...workers].map((p) => stopChild(p.child)));
    await redis.stop();
    rmSync(home, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => {
        for (const p of [...apis, ...workers]) if (p.child.exitCode !== null) throw new Error(`${p.name} exited: ${p.tail()}`);
        const answers = await Promise.all(apiBaseUrls.map((url) => fetch(`${url}/ok`).catch(() => null)));
        return answers.every((answer) => answer?.ok === true);
      },
      'the Warren API to answer /ok',
      60_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    name: 'warren',
    apiUrl: `${baseUrl}/api/langgraph`,
    baseUrl,
    redisUrl: redis.url.split(',')[0] as string,
    onCluster: options.redisCluster === true,
    apiPid: api.child.pid as number,
    processes: {
      ...Object.fromEntries(apis.map((a, i) => [i === 0 ? 'api' : `api-${i}`, a.child.pid as number])),
      ...Object.fromEntries(workers.map((w, i) => [workers.length === 1 ? 'worker' : `worker-${i}`, w.child.pid as number])),
      ...redis.processes,
    },
    idsCarryAppendTime: true,
    relayLag: () => scrapeRelayLag(baseUrl),
    openStreams: () => scrapeOpenStreams(baseUrl),
    collectGarbage: () => collectGarbage(api.child),
    apiBaseUrls,
    nodeProcesses: [...apis, ...workers].map((p) => ({ name: p.name, pid: p.child.pid as number, collectGarbage: () => collectGarbage(p.child) })),
    stop,
  };
}
