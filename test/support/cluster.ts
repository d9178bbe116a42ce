// A real multi-process deployment on loopback: Redis (AOF on), N API processes and M workers
// from the built dist/, and nginx with deploy/nginx.conf pointed at the API processes. With
// WARREN_TEST_REDIS=cluster (or `redis: 'cluster'`) its Redis is a local 3-master Redis Cluster.
// startApiReplicas starts only the API processes, on a Redis and a home the caller owns.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort, redisAnswers, spawnRedis, spawnRedisCluster, type RedisClusterProcess, type RedisProcess } from '../../src/cli/redis-process.js';
import { tracked, trackedDir } from './leftovers.js';
import { waitFor } from './wait-for.js';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');

export function buildDist(): void {
  // `npm test` builds once before the suite; a single file run on its own builds here.
  if (process.env.WARREN_TEST_BUILT === '1') return;
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(ROOT, 'tsconfig.json')], {
    stdio: 'inherit',
  });
}

export interface ClusterProcess {
  name: string;
  port?: number;
  child: ChildProcess;
  /** What the process has logged on stdout so far, a line each (also passed on to ours). */
  lines: string[];
}

export interface Cluster {
  /** nginx's base URL. */
  url: string;
  apis: ClusterProcess[];
  workers: ClusterProcess[];
  /** The deployment's Redis: `url` is its REDIS_URL (`redis+cluster://…` on a Cluster). */
  redis: { readonly url: string };
  home: string;
  startWorker(): Promise<ClusterProcess>;
  /** Starts API process `index` again on its port (after a test killed it), once it answers. */
  restartApi(index: number): Promise<ClusterProcess>;
  /**
   * Stops Redis (SIGTERM; `kill`: SIGKILL, losing what AOF had not written yet), leaves it down
   * for `downMs` (an outage of that length), and starts it again.
   */
  restartRedis(downMs?: number, how?: 'stop' | 'kill'): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  apis: number;
  workers: number;
  config: Record<string, unknown>;
  workerConcurrency?: number;
  /** More environment for every process. */
  env?: Record<string, string>;
  /** More environment for the worker of that index (its own metrics port, say). */
  workerEnv?: (index: number) => Record<string, string>;
  /** One redis-server, or a 3-master Redis Cluster; by default as WARREN_TEST_REDIS says. */
  redis?: 'single' | 'cluster';
  /** nginx's port (default: a free one), for a config that names the deployment's own URL. */
  nginxPort?: number;
  /**
   * The REDIS_URL the processes use, given the single Redis's own URL (a proxy the test puts
   * in between, say); the Redis keeps its port across restarts.
   */
  redisVia?: (redisUrl: string) => Promise<string>;
}

function nginxConfig(template: string, listen: number, upstreams: number[], dir: string): string {
  const servers = upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n');
  return `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;\n${template}`
    .replace(/^\s*resolver .*$/m, '')
    .replace(/^\s*server api:2026[^\n]*$/m, servers)
    .replace(/listen 2026;/, `listen 127.0.0.1:${listen};`)
    .replace(/events \{/, `events {\n  accept_mutex off;`)
    .replace(/http \{/, `http {\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;`)
    .replace(/worker_processes auto;/, 'worker_processes 2;');
}

async function exitOf(child: ChildProcess, signal: NodeJS.Signals, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
    setTimeout(() => child.kill('SIGKILL'), graceMs).unref();
  });
}

type NodeEnv = Record<string, string | undefined>;

/** Starts a process from dist/; its stdout lines are kept (and passed on to ours). */
function spawnNode(name: string, entry: string, env: NodeEnv): ClusterProcess {
  const child = tracked(spawn(process.execPath, [path.join(ROOT, 'dist', entry)], { env, stdio: ['ignore', 'pipe', 'inherit'] }));
  const lines: string[] = [];
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  return { name, child, lines };
}

/**
 * True once the process answering /ok at `base` is the one named `name` (its x-warren-instance).
 * A port picked by freePort can be taken by another test file's process before ours binds it; that
 * process would answer /ok as well, and our requests would silently land in its deployment.
 */
async function answersAs(base: string, name: string): Promise<boolean> {
  const res = await fetch(`${base}/ok`).catch(() => null);
  if (!res?.ok) return false;
  const instance = res.headers.get('x-warren-instance');
  if (instance !== name) throw new PortTakenError(`${base} is answered by ${instance ?? 'another server'}, not ${name}`);
  return true;
}

class PortTakenError extends Error {}

/** Waits until `api` answers as itself; throws PortTakenError if it lost its port to another process. */
async function untilAnswering(api: ClusterProcess & { port: number }, what: string, timeoutMs: number): Promise<void> {
  await waitFor(async () => {
    if (await answersAs(`http://127.0.0.1:${api.port}`, api.name)) return true;
    if (api.child.exitCode !== null) throw new PortTakenError(`${api.name} exited (code ${api.child.exitCode}) before answering on port ${api.port}`);
    return false;
  }, what, timeoutMs);
}

/** One API process on a free port, once it answers as itself; a port lost to another process is picked again. */
async function spawnApi(name: string, env: NodeEnv): Promise<ClusterProcess & { port: number }> {
  for (let tries = 1; ; tries++) {
    const port = await freePort();
    const api = { ...spawnNode(name, 'src/main.js', { ...env, PORT: String(port), WARREN_INSTANCE_ID: name }), port };
    try {
      await untilAnswering(api, `${name} to answer`, 180_000);
      return api;
    } catch (err) {
      await exitOf(api.child, 'SIGTERM');
      if (!(err instanceof PortTakenError) || tries === 3) throw err;
    }
  }
}

/**
 * Spawns `count` API processes and waits until each answers; if one never does, stops them all.
 * Names carry a tag of this deployment, so that each answers under a name no other one uses.
 */
async function spawnApis(count: number, env: NodeEnv): Promise<ClusterProcess[]> {
  const tag = randomUUID().slice(0, 8);
  const started = await Promise.allSettled(Array.from({ length: count }, (_, i) => spawnApi(`api-${i}.${tag}`, env)));
  const apis = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(apis.map((a) => exitOf(a.child, 'SIGTERM')));
    throw failed.reason;
  }
  return apis;
}

/** The environment every process of one deployment shares; no REDIS_URL without a `redisUrl`. */
function deploymentEnv(redisUrl: string | undefined, home: string, configFile: string, extra: NodeEnv = {}): NodeEnv {
  return {
    ...process.env,
    REDIS_URL: redisUrl,
    WARREN_HOME: home,
    WARREN_CONFIG: configFile,
    WARREN_QUEUE: `cluster-${randomUUID().slice(0, 8)}`,
    WARREN_MEMORY_USER: `cluster-${randomUUID().slice(0, 8)}`,
    LOG_LEVEL: process.env.WARREN_TEST_LOG_LEVEL ?? 'warn',
    HOST: '127.0.0.1',
    // A test runner killed outright takes its API processes with it.
    WARREN_WATCH_PARENT: '1',
    ...extra,
  };
}

export interface ApiReplicas {
  /** http://127.0.0.1:<port> of each API process. */
  urls: string[];
  apis: ClusterProcess[];
  /** Worker processes on the same queue, when asked for. */
  workers: ClusterProcess[];
  stop(): Promise<void>;
}

/**
 * `count` API processes from dist/ on one Redis and one WARREN_HOME that the caller owns (and
 * removes): replicas as nginx would see them, without nginx, and `workers` worker processes
 * (none unless asked for). Without `redisUrl` they get no REDIS_URL, and find Redis in the
 * config file's `redis:` block.
 */
export async function startApiReplicas(options: { apis: number; workers?: number; redisUrl?: string; home: string; configFile: string }): Promise<ApiReplicas> {
  const env = deploymentEnv(options.redisUrl, options.home, options.configFile);
  const apis = await spawnApis(options.apis, env);
  const workers = Array.from({ length: options.workers ?? 0 }, (_, i) => spawnNode(`worker-${i}`, 'workers/main.js', { ...env, WARREN_INSTANCE_ID: `worker-${i}` }));
  return {
    urls: apis.map((a) => `http://127.0.0.1:${a.port}`),
    apis,
    workers,
    stop: async () => {
      await Promise.all([...apis, ...workers].map((p) => exitOf(p.child, 'SIGTERM')));
    },
  };
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const home = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-cluster-')));
  const configFile = path.join(home, 'config.yaml');
  writeFileSync(configFile, stringify(options.config));
  const redisDir = path.join(home, 'redis');
  const onCluster = (options.redis ?? (process.env.WARREN_TEST_REDIS === 'cluster' ? 'cluster' : 'single')) === 'cluster';
  let redis: RedisProcess | RedisClusterProcess;
  if (onCluster) {
    try {
      redis = await spawnRedisCluster({ dataDir: redisDir });
    } catch (err) {
      rmSync(home, { recursive: true, force: true });
      throw err;
    }
    for (const node of redis.nodes) tracked(node.child);
  } else {
    redis = await spawnRedis({ dataDir: redisDir });
    tracked(redis.child);
  }
  const processRedisUrl = options.redisVia && !onCluster ? await options.redisVia(redis.url) : redis.url;
  const env = deploymentEnv(processRedisUrl, home, configFile, { WARREN_WORKER_CONCURRENCY: String(options.workerConcurrency ?? 16), ...options.env });

  const apis: ClusterProcess[] = [];
  const workers: ClusterProcess[] = [];
  let nginx: ChildProcess | undefined;
  const stop = async () => {
    if (nginx) await exitOf(nginx, 'SIGQUIT');
    // A test may have left a process paused (SIGSTOP): it must wake to hear SIGTERM.
    for (const p of [...apis, ...workers]) if (p.child.exitCode === null) p.child.kill('SIGCONT');
    await Promise.all([...apis, ...workers].map((p) => exitOf(p.child, 'SIGTERM')));
    await redis.stop();
    rmSync(home, { recursive: true, force: true });
  };
  const startWorker = async () => {
    const w = spawnNode(`worker-${workers.length}`, 'workers/main.js', { ...env, WARREN_INSTANCE_ID: `worker-${workers.length}`, ...options.workerEnv?.(workers.length) });
    workers.push(w);
    return w;
  };
  const restartApi = async (index: number) => {
    const old = apis[index];
    if (!old?.port) throw new Error(`no API process ${index}`);
    await exitOf(old.child, 'SIGKILL');
    const api = { ...spawnNode(old.name, 'src/main.js', { ...env, PORT: String(old.port), WARREN_INSTANCE_ID: old.name }), port: old.port };
    apis[index] = api;
    await untilAnswering(api, `${api.name} to answer again`, 120_000);
    return api;
  };
  let url: string;
  try {
    apis.push(...(await spawnApis(options.apis, env)));
    for (let i = 0; i < options.workers; i++) await startWorker();

    const nginxDir = path.join(home, 'nginx');
    mkdirSync(nginxDir, { recursive: true });
    const listen = options.nginxPort ?? (await freePort());
    const conf = path.join(nginxDir, 'nginx.conf');
    writeFileSync(conf, nginxConfig(readFileSync(path.join(ROOT, 'deploy', 'nginx.conf'), 'utf8'), listen, apis.map((a) => a.port as number), nginxDir));
    let nginxFailed: Error | undefined;
    nginx = tracked(spawn('nginx', ['-p', nginxDir, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'inherit', 'inherit'] }));
    nginx.once('error', (err) => (nginxFailed = err));
    url = `http://127.0.0.1:${listen}`;
    await waitFor(async () => {
      if (nginxFailed) throw new Error(`nginx did not start: ${nginxFailed.message}`);
      if (nginx?.exitCode !== null) throw new Error(`nginx exited (code ${nginx?.exitCode}): is port ${listen} taken?`);
      const res = await fetch(`${url}/ok`).catch(() => null);
      // Through our nginx, /ok is answered by one of our API processes.
      return res?.ok && apis.some((a) => a.name === res.headers.get('x-warren-instance'));
    }, 'nginx to answer', 20_000);
  } catch (err) {
    // Nothing the cluster started outlives a failed start.
    await stop();
    throw err;
  }

  return {
    url,
    apis,
    workers,
    get redis() {
      return redis;
    },
    home,
    startWorker,
    restartApi,
    async restartRedis(downMs = 0, how = 'stop') {
      if (how === 'kill') {
        const children = 'nodes' in redis ? redis.nodes.map((node) => node.child) : [redis.child];
        await Promise.all(children.map((child) => exitOf(child, 'SIGKILL')));
      } else await redis.stop();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      if ('nodes' in redis) {
        await redis.start();
        for (const node of redis.nodes) tracked(node.child);
        return;
      }
      // Back on the same port, where the processes look for it.
      redis = await spawnRedis({ dataDir: redisDir, port: redis.port });
      tracked(redis.child);
      const { url } = redis;
      await waitFor(() => redisAnswers(url), 'redis to answer again');
    },
    stop,
  };
}
