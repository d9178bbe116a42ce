// Spawns a private redis-server from the project's redis.conf. Used by the local stack
// (`npm start`) when nothing answers at REDIS_URL, and by the test setup.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import { PROJECT_REDIS_CONF } from '../config/paths.js';
import { ConfigError } from '../errors.js';

export interface RedisProcess {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export interface SpawnRedisOptions {
  /** Where the AOF and RDB files go. Created when missing. */
  dataDir: string;
  /** A port to use; a free one is picked when left out (`--port 0` would disable TCP). */
  port?: number;
  confPath?: string;
  /** Extra `--name value` overrides, e.g. `{appendonly: 'no'}` for throwaway test servers. */
  overrides?: Record<string, string>;
  /**
   * Its own process group: a Ctrl-C in the terminal then reaches the API and the workers but not
   * Redis, which must outlive them so that they can hand their runs back.
   */
  detached?: boolean;
}

export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Throws a ConfigError in one line when something already listens on host:port. */
export async function assertPortFree(host: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new ConfigError(`Port ${port} on ${host} is already in use (another Warren?): stop it or set PORT to a free port.`)
          : err,
      ),
    );
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** True when something accepts a TCP connection and answers PING at host:port. */
export async function redisAnswers(url: string, timeoutMs = 500): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    // Refused or reset: nothing usable answers there, which is the probe's answer.
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    // A password-protected server answers -NOAUTH: it is still a Redis that answers.
    socket.on('data', (buf) => done(buf.toString().startsWith('+PONG') || buf.toString().startsWith('-NOAUTH')));
  });
}

export async function spawnRedis(options: SpawnRedisOptions): Promise<RedisProcess> {
  if (!hasRedisServer()) {
    throw new ConfigError(
      'redis-server was not found on PATH and nothing answers at REDIS_URL. Install Redis 7 ' +
        '(Debian/Ubuntu: `apt-get install redis-server`; macOS: `brew install redis`) or set ' +
        'REDIS_URL to a running server.',
    );
  }
  mkdirSync(options.dataDir, { recursive: true });
  const port = options.port ?? (await freePort());
  const args = [options.confPath ?? PROJECT_REDIS_CONF, '--port', String(port), '--dir', options.dataDir];
  for (const [name, value] of Object.entries(options.overrides ?? {})) args.push(`--${name}`, value);
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-4000)));
  child.stderr?.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-4000)));
  const url = `redis://127.0.0.1:${port}`;

  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(url, 200))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new ConfigError(`redis-server did not start on port ${port}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    }));
  return { url, port, child, stop };
}
