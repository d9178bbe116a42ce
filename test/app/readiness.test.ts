// Readiness and Redis failure, on real processes: /ok stays liveness while /ready answers 503
// when Redis is unreachable; requests that need Redis fail with 503 {detail} instead of hanging;
// each process logs losing Redis once at warn and getting it back once at info; and SIGTERM
// stops an API or a worker promptly even while Redis is down.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnRedis, type RedisProcess } from '../../src/cli/redis-process.js';
import { buildDist, ROOT, startApiReplicas, type ApiReplicas } from '../support/cluster.js';
import { startGatewayApp } from '../gateway/gateway-app.js';
import { tracked, trackedDir } from '../support/leftovers.js';
import { waitFor } from '../support/wait-for.js';

interface Proc {
  child: ChildProcess;
  lines: string[];
}

let home: string;
let configFile: string;
const procs: Proc[] = [];
const cleanups: (() => Promise<void>)[] = [];

beforeAll(() => {
  buildDist();
  home = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-readiness-')));
  configFile = path.join(home, 'config.yaml');
  writeFileSync(configFile, '{}\n');
}, 180_000);
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const p of procs.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** A process from dist/ with JSON logs at info, its stdout kept a line each. */
function spawnProcess(entry: string, env: Record<string, string>): Proc {
  const child = tracked(spawn(process.execPath, [path.join(ROOT, 'dist', entry)], {
    env: { ...process.env, WARREN_HOME: home, WARREN_CONFIG: configFile, LOG_LEVEL: 'info', LOG_FORMAT: 'json', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  }));
  const proc: Proc = { child, lines: [] };
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    proc.lines.push(...parts);
  });
  procs.push(proc);
  return proc;
}

const messages = (lines: string[], msg: string) => lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.msg === msg);

/** SIGTERM, then the exit code; the time it took is printed, not asserted. */
async function terminate(proc: Proc, what: string): Promise<number | null> {
  const startedAt = performance.now();
  const exited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
  proc.child.kill('SIGTERM');
  const code = await exited;
  console.log(`[readiness] ${what} stopped on SIGTERM in ${Math.round(performance.now() - startedAt)} ms (exit ${code})`);
  return code;
}

describe('with nothing listening at REDIS_URL', () => {
  it('stays live, is not ready, answers 503 {detail} to a request that needs Redis, and stops on SIGTERM', async () => {
    const port = await freePort();
    const api = spawnProcess('src/main.js', { PORT: String(port), REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${base}/ok`).catch(() => null))?.ok, 'the API to answer /ok', 60_000);
    expect(await (await fetch(`${base}/ok`)).json()).toEqual({ ok: true, redis: false });
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ ok: true, redis: false });
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ detail: 'Not ready: Redis is unreachable.' });

    const created = await fetch(`${base}/api/langgraph/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(created.status).toBe(503);
    expect(((await created.json()) as { detail: string }).detail).toMatch(/Redis is unreachable/);

    // The outage is news once, however many connections and reconnect attempts report it.
    expect(messages(api.lines, 'redis connection error')).toHaveLength(1);
    expect(await terminate(api, 'API (Redis never up)')).toBe(0);
    expect(messages(api.lines, 'api started')).toHaveLength(1);
    expect(messages(api.lines, 'api stopped')).toHaveLength(1);
  });
});

describe('with a Redis that goes away and comes back', () => {
  let redis: RedisProcess;
  let redisDir: string;
  let redisPort: number;
  let replicas: ApiReplicas | undefined;
  const startRedis = async () => {
    const started = await spawnRedis({ dataDir: redisDir, port: redisPort, overrides: { appendonly: 'no', save: '' } });
    tracked(started.child);
    return started;
  };

  beforeAll(async () => {
    redisDir = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-readiness-redis-')));
    redisPort = await freePort();
    redis = await startRedis();
  });
  afterAll(async () => {
    await replicas?.stop();
    await redis.stop();
    rmSync(redisDir, { recursive: true, force: true });
  });

  it('two API replicas turn unready and ready again, each logging the loss at warn and the return at info once', async () => {
    const level = process.env.WARREN_TEST_LOG_LEVEL;
    process.env.WARREN_TEST_LOG_LEVEL = 'info';
    try {
      replicas = await startApiReplicas({ apis: 2, redisUrl: redis.url, home, configFile });
    } finally {
      if (level === undefined) delete process.env.WARREN_TEST_LOG_LEVEL;
      else process.env.WARREN_TEST_LOG_LEVEL = level;
    }
    const readiness = async () => Promise.all((replicas as ApiReplicas).urls.map(async (u) => (await fetch(`${u}/ready`)).status));
    // Answering is not ready yet: each connection Redis readiness counts may still be connecting.
    await waitFor(async () => (await readiness()).every((s) => s === 200), 'both replicas to be ready');

    await redis.stop();
    await waitFor(async () => (await readiness()).every((s) => s === 503), 'both replicas to turn unready');
    const [first] = replicas.urls;
    const refused = await fetch(`${first}/api/langgraph/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(503);

    redis = await startRedis();
    await waitFor(async () => (await readiness()).every((s) => s === 200), 'both replicas to be ready again');
    const created = await fetch(`${first}/api/langgraph/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(created.status).toBe(200);
    for (const api of replicas.apis) {
      await waitFor(async () => messages(api.lines, 'redis connection recovered').length > 0, `${api.name} to log the recovery`);
      expect(messages(api.lines, 'redis connection error').map((l) => l.level), api.name).toEqual([40]);
      expect(messages(api.lines, 'redis connection recovered').map((l) => l.level), api.name).toEqual([30]);
    }
  });

  it('a worker stops on SIGTERM while Redis is down, with its stop line', async () => {
    const worker = spawnProcess('workers/main.js', { REDIS_URL: redis.url, WARREN_QUEUE: `readiness-${redisPort}` });
    await waitFor(async () => messages(worker.lines, 'worker started').length > 0, 'the worker to start', 60_000);
    await redis.stop();
    await waitFor(async () => messages(worker.lines, 'redis connection error').length > 0, 'the worker to notice the outage');
    expect(await terminate(worker, 'worker (Redis down)')).toBe(0);
    expect(messages(worker.lines, 'worker stopped')).toHaveLength(1);
    redis = await startRedis();
  });

  it('an API stops on SIGTERM while Redis is down, with its stop line', async () => {
    const port = await freePort();
    const api = spawnProcess('src/main.js', { PORT: String(port), REDIS_URL: redis.url, WARREN_QUEUE: `readiness-${redisPort}` });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/ready`).catch(() => null))?.ok, 'the API to be ready', 60_000);
    await redis.stop();
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/ready`)).status === 503, 'the API to turn unready');
    expect(await terminate(api, 'API (Redis down)')).toBe(0);
    expect(messages(api.lines, 'api stopped')).toHaveLength(1);
    redis = await startRedis();
  });
});

describe('an API whose port is taken', () => {
  it('exits with one clear line', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as net.AddressInfo).port;
      const child = tracked(
        spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], {
          env: { ...process.env, WARREN_HOME: home, WARREN_CONFIG: configFile, HOST: '127.0.0.1', PORT: String(port), REDIS_URL: `redis://127.0.0.1:${await freePort()}`, LOG_LEVEL: 'silent' },
          stdio: ['ignore', 'ignore', 'pipe'],
        }),
      );
      let stderr = '';
      child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
      expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(1);
      expect(stderr.trim().split('\n')).toEqual([
        `warren api failed to start: port ${port} on 127.0.0.1 is already in use (another Warren?); stop it or set PORT to a free port.`,
      ]);
    } finally {
      taken.close();
    }
  });
});

describe('a draining API', () => {
  it('answers /ready with 503 {detail} once its close has begun', async () => {
    const gw = await startGatewayApp();
    try {
      // Not ready until its Redis connection is up.
      await waitFor(async () => (await gw.api.app.inject({ method: 'GET', url: '/ready' })).statusCode === 200, 'the API to be ready');
      const closing = gw.api.close();
      const res = await gw.api.app.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      await closing;
    } finally {
      await gw.close();
    }
  });
});
