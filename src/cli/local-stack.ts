// `npm start`: the whole local stack in one command. Uses the Redis at REDIS_URL (or
// config.yaml's `redis:`, resolved as the API and the worker resolve it), or spawns redis-server
// from the project's redis.conf (data under WARREN_HOME/redis) when none answers; then one API and one worker process. SIGTERM or Ctrl-C stops all of them, leaving no child:
// the API and the worker first (the worker hands its runs back), Redis last.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readEnvConfig } from '../config/env.js';
import { loadAppConfig } from '../config/load-config.js';
import { describeRedisTarget, resolveRedisTarget } from '../config/redis-target.js';
import { ConfigError } from '../errors.js';
import { assertPortFree, redisAnswers, spawnRedis, type RedisProcess } from './redis-process.js';
import { onParentExit } from './parent-watch.js';
import { STOP_DEADLINE_MS } from './process-lifecycle.js';

const distRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A child past its own stop deadline gets SIGKILL this much later. */
const KILL_AFTER_MS = STOP_DEADLINE_MS + 500;

function log(message: string): void {
  process.stdout.write(`[warren] ${message}\n`);
}

/** Resolves when `child` has exited; SIGTERM now, SIGKILL if it is still there after `killAfterMs`. */
function stopChild(child: ChildProcess, killAfterMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), killAfterMs).unref();
  });
}

async function waitForApi(url: string, children: ChildProcess[]): Promise<boolean> {
  while (children.every((c) => c.exitCode === null && c.signalCode === null)) {
    if ((await fetch(url).catch(() => null))?.ok) return true; // not listening yet: ask again
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

async function main(): Promise<void> {
  const env = readEnvConfig();
  // Before anything starts: a taken port is one line, not a half-started stack.
  await assertPortFree(env.host, env.port);
  let redis: RedisProcess | null = null;
  const children: ChildProcess[] = [];
  let stopping = false;

  const stopAll = async (code: number, reason: string) => {
    if (stopping) return;
    stopping = true;
    const startedAt = performance.now();
    log(`stopping (${reason})`);
    await Promise.all(children.map((child) => stopChild(child, KILL_AFTER_MS)));
    await redis?.stop();
    log(`stopped in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
    process.exit(code);
  };
  process.on('SIGTERM', () => void stopAll(0, 'SIGTERM'));
  process.on('SIGINT', () => void stopAll(0, 'SIGINT'));
  process.on('SIGHUP', () => void stopAll(0, 'SIGHUP'));
  onParentExit(() => void stopAll(0, 'parent exited'));

  const target = resolveRedisTarget(env, loadAppConfig().config);
  if (target.kind === 'cluster') {
    // A Redis Cluster is the operator's to run: `npm start` never makes one.
    log(`using the Redis Cluster at ${describeRedisTarget(target)}`);
  } else if (!(await redisAnswers(target.url))) {
    const url = new URL(target.url);
    if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname)) {
      throw new ConfigError(`Nothing answers at ${describeRedisTarget(target)} (REDIS_URL, or config.yaml's redis:), and it is not local, so Warren will not start one.`);
    }
    redis = await spawnRedis({ dataDir: path.join(env.home, 'redis'), port: Number(url.port || 6379), detached: true });
    log(`started redis-server on ${redis.url} (data in ${path.join(env.home, 'redis')})`);
    redis.child.once('exit', (code) => {
      if (!stopping) {
        log(`redis-server exited (${code}); stopping`);
        void stopAll(1, 'redis-server exited');
      }
    });
  } else {
    log(`using Redis at ${describeRedisTarget(target)}`);
  }
  if (stopping) return;

  // Only a Redis started here is handed down: otherwise the children resolve the same target.
  const childEnv = { ...process.env, ...(redis ? { REDIS_URL: redis.url } : {}), WARREN_WATCH_PARENT: '1' };
  for (const [name, entry] of [
    ['api', path.join(distRoot, 'src', 'main.js')],
    ['worker', path.join(distRoot, 'workers', 'main.js')],
  ] as const) {
    const child = spawn(process.execPath, [entry], { env: childEnv, stdio: 'inherit' });
    children.push(child);
    child.once('exit', (code, signal) => {
      if (!stopping) {
        log(`${name} exited (${signal ?? code}); stopping the stack`);
        void stopAll(1, `${name} exited`);
      }
    });
  }
  const base = `http://${env.host === '0.0.0.0' ? '127.0.0.1' : env.host}:${env.port}`;
  if (await waitForApi(`${base}/ok`, children)) log(`API ready on ${base} (docs at /api/docs)`);
}

main().catch((err: unknown) => {
  process.stderr.write(`[warren] ${err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
