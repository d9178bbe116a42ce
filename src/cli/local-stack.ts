// `npm start`: the whole local stack in one command. Uses the Redis at REDIS_URL, or spawns
// redis-server from the project's redis.conf (data under WARREN_HOME/redis) when none answers;
// then one API and one worker process. SIGTERM or Ctrl-C stops all of them, leaving no child.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readEnvConfig } from '../config/env.js';
import { ConfigError } from '../errors.js';
import { redisAnswers, spawnRedis, type RedisProcess } from '../store/redis-process.js';
import { onParentExit } from './parent-watch.js';

const distRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function log(message: string): void {
  process.stdout.write(`[warren] ${message}\n`);
}

async function main(): Promise<void> {
  const env = readEnvConfig();
  let redis: RedisProcess | null = null;
  const children: ChildProcess[] = [];
  let stopping = false;

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
          }),
      ),
    );
    await redis?.stop();
    process.exit(code);
  };
  process.on('SIGTERM', () => void stopAll(0));
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGHUP', () => void stopAll(0));
  onParentExit(() => void stopAll(0));

  if (!(await redisAnswers(env.redisUrl))) {
    const url = new URL(env.redisUrl);
    if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname)) {
      throw new ConfigError(`Nothing answers at REDIS_URL=${env.redisUrl}, and it is not local, so Warren will not start one.`);
    }
    redis = await spawnRedis({ dataDir: path.join(env.home, 'redis'), port: Number(url.port || 6379) });
    log(`started redis-server on ${redis.url} (data in ${path.join(env.home, 'redis')})`);
    redis.child.once('exit', (code) => {
      if (!stopping) {
        log(`redis-server exited (${code}); stopping`);
        void stopAll(1);
      }
    });
  } else {
    log(`using Redis at ${env.redisUrl}`);
  }

  const childEnv = { ...process.env, REDIS_URL: redis?.url ?? env.redisUrl, WARREN_WATCH_PARENT: '1' };
  for (const [name, entry] of [
    ['api', path.join(distRoot, 'src', 'main.js')],
    ['worker', path.join(distRoot, 'workers', 'main.js')],
  ] as const) {
    const child = spawn(process.execPath, [entry], { env: childEnv, stdio: 'inherit' });
    children.push(child);
    child.once('exit', (code, signal) => {
      if (!stopping) {
        log(`${name} exited (${signal ?? code}); stopping the stack`);
        void stopAll(1);
      }
    });
  }
  log(`API on http://${env.host === '0.0.0.0' ? '127.0.0.1' : env.host}:${env.port} (docs at /api/docs)`);
}

main().catch((err: unknown) => {
  process.stderr.write(`[warren] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
