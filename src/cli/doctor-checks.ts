// `warren doctor`'s checks of the process itself: Node, the environment and config.yaml (read as
// the start reads them), Redis, the model endpoints and the disk under WARREN_HOME. Each answers
// one line: ok, a warning (something will not work) or a fault (the start fails, or nothing
// works), with the fix. A check never throws: what goes wrong is its answer.
import { accessSync, constants, existsSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { Cluster, Redis } from 'ioredis';
import type { ModelConfig } from '../config/app-config.schemas.js';
import { readEnvConfig, type EnvConfig } from '../config/env.js';
import { loadAppConfig, resolveEnvRef, type LoadedConfig } from '../config/load-config.js';
import { describeRedisTarget, resolveRedisTarget, type RedisTarget } from '../config/redis-target.js';
import { redisOptionsFromUrl } from '../store/redis.js';

export type CheckStatus = 'ok' | 'warn' | 'fault' | 'skip';

export interface CheckResult {
  /** Short name of what was checked (`redis`, `model gpt-4o`). */
  name: string;
  status: CheckStatus;
  /** What was found. */
  found: string;
  /** What to do about it; absent when nothing needs doing. */
  fix?: string;
}

/** What the checks share: the environment the start would see and what it made of it. */
export interface DoctorContext {
  env: NodeJS.ProcessEnv;
  /** The process environment as the start validates it; null when it is invalid. */
  envConfig: Readonly<EnvConfig> | null;
  /** config.yaml as the start loads it; null when it does not load. */
  loaded: LoadedConfig | null;
  /** How long a network probe (Redis, a model endpoint) may take. */
  timeoutMs: number;
}

export const ok = (name: string, found: string): CheckResult => ({ name, status: 'ok', found });
export const warn = (name: string, found: string, fix: string): CheckResult => ({ name, status: 'warn', found, fix });
export const fault = (name: string, found: string, fix: string): CheckResult => ({ name, status: 'fault', found, fix });
const skip = (name: string, found: string): CheckResult => ({ name, status: 'skip', found });

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** package.json's `engines.node`: the oldest Node the code is built for (test/cli checks they agree). */
export const MIN_NODE_MAJOR = 24;

export function checkNode(version: string = process.versions.node): CheckResult {
  const major = Number(version.split('.')[0]);
  if (major >= MIN_NODE_MAJOR) return ok('node', `Node.js ${version}`);
  return fault('node', `Node.js ${version} is older than ${MIN_NODE_MAJOR}`, `install Node.js ${MIN_NODE_MAJOR} or later (nvm install ${MIN_NODE_MAJOR}), or run through npx in the project, which uses the Node it pins`);
}

/** The environment and config.yaml, read exactly as the API and the workers read them at start. */
export function loadForDoctor(env: NodeJS.ProcessEnv): { envConfig: Readonly<EnvConfig> | null; loaded: LoadedConfig | null; results: CheckResult[] } {
  const results: CheckResult[] = [];
  let envConfig: Readonly<EnvConfig> | null = null;
  try {
    envConfig = readEnvConfig(env);
    results.push(ok('environment', 'PORT, HOST, REDIS_URL, WARREN_* are valid'));
  } catch (err) {
    results.push(fault('environment', messageOf(err), 'correct the variable it names (README "Configuration")'));
  }
  let loaded: LoadedConfig | null = null;
  try {
    loaded = loadAppConfig(env);
    const models = loaded.config.models.length;
    results.push(ok('config', loaded.file ? `${loaded.file} is valid (${models} model${models === 1 ? '' : 's'})` : 'no config.yaml: defaults apply (no models)'));
  } catch (err) {
    results.push(fault('config', messageOf(err), 'correct the key it names (config.example.yaml documents every key)'));
  }
  return { envConfig, loaded, results };
}

/** Redis 7 is what Warren is built and tested against (README "Quick start"). */
const MIN_REDIS_MAJOR = 7;

export async function checkRedis(ctx: DoctorContext): Promise<CheckResult> {
  let target: RedisTarget;
  try {
    // As the start resolves it: REDIS_URL, else config.yaml's `redis:`, else 127.0.0.1:6379.
    target = resolveRedisTarget({ ...(ctx.envConfig?.redisUrl ? { redisUrl: ctx.envConfig.redisUrl } : {}) }, ctx.loaded?.config ?? {});
  } catch (err) {
    return fault('redis', messageOf(err), 'correct REDIS_URL or config.yaml\'s redis: block');
  }
  const where = describeRedisTarget(target);
  const unreachable = (err: unknown) =>
    fault('redis', `${where} does not answer: ${messageOf(err)}`, target.kind === 'cluster' ? 'start the cluster\'s nodes, or name reachable ones' : 'start redis-server (npm start spawns one on a local address), or point REDIS_URL at a running Redis 7');
  try {
    return target.kind === 'single' ? await probeSingle(target.url, where, ctx.timeoutMs) : await probeCluster(target, where, ctx.timeoutMs);
  } catch (err) {
    if (/NOAUTH|WRONGPASS|invalid password|invalid username/i.test(messageOf(err))) {
      return fault('redis', `${where} refused the credentials: ${messageOf(err)}`, 'set the right user name and password in REDIS_URL or redis.username / redis.password');
    }
    return unreachable(err);
  }
}

/** What INFO says that matters here: the version, whether it is a Cluster node, the eviction policy. */
function readInfo(info: string): { version: string; clusterEnabled: boolean; evictionPolicy: string | null } {
  return {
    version: /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown',
    clusterEnabled: /^cluster_enabled:1/m.test(info),
    evictionPolicy: /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? null,
  };
}

function judgeInfo(where: string, info: ReturnType<typeof readInfo>, extra = ''): CheckResult {
  const major = Number(info.version.split('.')[0]);
  if (!(major >= MIN_REDIS_MAJOR)) return fault('redis', `${where} is Redis ${info.version}${extra}`, `upgrade to Redis ${MIN_REDIS_MAJOR} or later`);
  // An evicting Redis may drop queue and run keys under memory pressure: runs would vanish.
  if (info.evictionPolicy !== null && info.evictionPolicy !== 'noeviction') {
    return warn('redis', `${where} is Redis ${info.version}${extra}, with maxmemory-policy ${info.evictionPolicy}`, 'set maxmemory-policy noeviction: an evicted queue or run key loses runs');
  }
  return ok('redis', `${where} is Redis ${info.version}${extra}`);
}

async function probeSingle(url: string, where: string, timeoutMs: number): Promise<CheckResult> {
  const client = new Redis({ ...redisOptionsFromUrl(url), lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: timeoutMs, commandTimeout: timeoutMs, enableAutoPipelining: false });
  client.on('error', () => undefined); // the failed command below is the answer; this only keeps the event handled
  try {
    await client.connect();
    const info = readInfo(await client.info());
    if (info.clusterEnabled) {
      return fault('redis', `${where} is a node of a Redis Cluster, named as one Redis`, 'name the cluster: REDIS_URL=redis+cluster://host:port[,host:port…] (or config.yaml\'s redis.cluster.nodes)');
    }
    return judgeInfo(where, info);
  } finally {
    client.disconnect();
  }
}

async function probeCluster(target: Extract<RedisTarget, { kind: 'cluster' }>, where: string, timeoutMs: number): Promise<CheckResult> {
  const redisOptions = {
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.tls ? { tls: {} } : {}),
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
  };
  const cluster = new Cluster(target.nodes, { lazyConnect: true, clusterRetryStrategy: () => null, enableOfflineQueue: false, redisOptions });
  cluster.on('error', () => undefined); // as in probeSingle: the rejected call is the answer
  try {
    await cluster.connect();
    const state = /^cluster_state:(\S+)/m.exec(String(await cluster.call('CLUSTER', 'INFO')))?.[1] ?? 'unknown';
    const masters = cluster.nodes('master');
    const info = readInfo(await (masters[0] ?? cluster).info());
    if (state !== 'ok') return fault('redis', `${where}: cluster_state is ${state}`, 'bring the cluster to cluster_state:ok (every slot served: redis-cli --cluster check host:port)');
    return judgeInfo(where, info, `, a Cluster of ${masters.length} masters`);
  } finally {
    cluster.disconnect();
  }
}

/** Where each provider's API is when a model names no base_url. */
const PROVIDER_ENDPOINTS: Record<string, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  deepseek: 'https://api.deepseek.com',
  ollama: 'http://127.0.0.1:11434',
};

/** The provider a model's `use` names (`openai`, or a class path such as `langchain_openai:ChatOpenAI`). */
function providerOf(use: string): string | undefined {
  const lower = use.toLowerCase();
  return Object.keys(PROVIDER_ENDPOINTS).find((name) => lower === name || lower.includes(name));
}

/** One line per configured model: does anything answer HTTP at its endpoint? No token is spent. */
export async function checkModels(ctx: DoctorContext): Promise<CheckResult[]> {
  if (!ctx.loaded) return [skip('models', 'not checked: config.yaml did not load')];
  const { models } = ctx.loaded.config;
  if (models.length === 0) {
    return [warn('models', 'no model in config.yaml: graphs that call a model (lead_agent) cannot run', 'add one under models: (copy config.example.yaml and set its key)')];
  }
  return Promise.all(models.map((model, i) => checkModel(model, i, ctx)));
}

async function checkModel(model: ModelConfig, index: number, ctx: DoctorContext): Promise<CheckResult> {
  const name = `model ${model.name}`;
  const provider = providerOf(model.use);
  const endpoint = model.base_url ?? (provider ? PROVIDER_ENDPOINTS[provider] : undefined);
  if (!endpoint) return warn(name, `"${model.use}" names no provider Warren knows the address of`, `set models[${index}].base_url`);
  const key = resolveEnvRef(model.api_key, ctx.env);
  const keyProblem = key.missing ? `; its api_key refers to $${key.missing}, which is not set` : '';
  let status: number;
  try {
    // A GET of the base URL, with no credentials: any HTTP answer (even 401 or 404) is a server there.
    const res = await fetch(endpoint, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(ctx.timeoutMs) });
    await res.body?.cancel();
    status = res.status;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = (err as Error).name === 'TimeoutError' ? `no answer within ${ctx.timeoutMs} ms` : (cause?.code ?? cause?.message ?? messageOf(err));
    return warn(name, `${endpoint} is not reachable (${why})${keyProblem}`, `start the model server, allow this host to reach it, or correct models[${index}].base_url; runs that use it fail until then`);
  }
  if (key.missing) return warn(name, `${endpoint} answers (HTTP ${status})${keyProblem}`, `set ${key.missing} in the environment of the workers`);
  return ok(name, `${endpoint} answers (HTTP ${status})`);
}

/** Below this, uploads and Redis's own files (a local Redis keeps them under WARREN_HOME) soon fail. */
export const LOW_DISK_BYTES = 1024 ** 3;

/** Free space and write access where WARREN_HOME is (or would be created). */
export function checkDisk(ctx: DoctorContext, lowBytes = LOW_DISK_BYTES): CheckResult {
  const home = ctx.envConfig?.home ?? path.resolve(ctx.env.WARREN_HOME ?? '.warren');
  // The start creates WARREN_HOME: until then, its nearest existing parent is what holds it.
  let probe = home;
  while (!existsSync(probe) && path.dirname(probe) !== probe) probe = path.dirname(probe);
  try {
    accessSync(probe, constants.W_OK);
  } catch {
    return fault('disk', `${probe} is not writable by this user (WARREN_HOME is ${home})`, 'point WARREN_HOME at a folder this user may write, or give it the folder');
  }
  const stats = statfsSync(probe);
  const free = stats.bavail * stats.bsize;
  const shown = `${(free / 1024 ** 3).toFixed(1)} GiB free at ${home}`;
  if (free < lowBytes) return warn('disk', shown, `free some space, or point WARREN_HOME at a larger disk: uploads and thread files fail with 507 once it is full`);
  return ok('disk', shown);
}

