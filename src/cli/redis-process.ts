// Spawns a private redis-server from the project's redis.conf. Used by the local stack
// (`npm start`) when nothing answers at REDIS_URL, and by the test setup.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
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
  // A port picked here may be taken by someone else before redis-server binds it: then another
  // one is picked. A port the caller chose is theirs to sort out.
  for (let tries = 1; ; tries++) {
    const started = await startRedisOn(options.port ?? (await freePort()), options);
    if (started !== 'port-taken') return started;
    if (options.port !== undefined || tries === 3) throw new ConfigError(`redis-server could not bind port ${options.port ?? 'after 3 tries'}: another Redis answers there.`);
  }
}

/** `process_id` of the Redis answering at `url` (one without a password), or null when none answers. */
export async function redisProcessId(url: string, timeoutMs = 500): Promise<number | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
    let text = '';
    const done = (pid: number | null) => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(timeoutMs, () => done(null));
    socket.on('error', () => done(null));
    socket.on('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (buf) => {
      text += buf.toString();
      if (text.startsWith('-')) return done(null);
      const found = /\bprocess_id:(\d+)\r?\n/.exec(text);
      if (found) done(Number(found[1]));
    });
  });
}

/**
 * Starts redis-server on `port` and waits until it answers. It counts as started only when the
 * Redis answering there is this very process: another one already on the port would otherwise
 * pass for it, and its callers would share that Redis with whoever started it.
 */
async function startRedisOn(port: number, options: SpawnRedisOptions): Promise<RedisProcess | 'port-taken'> {
  const args = [options.confPath ?? PROJECT_REDIS_CONF, '--port', String(port), '--dir', options.dataDir];
  for (const [name, value] of Object.entries(options.overrides ?? {})) args.push(`--${name}`, value);
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-4000)));
  child.stderr?.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-4000)));
  const url = `redis://127.0.0.1:${port}`;

  const deadline = Date.now() + 10_000;
  for (;;) {
    const pid = await redisProcessId(url, 200);
    if (pid !== null && pid === child.pid) break;
    if (pid !== null) {
      child.kill('SIGKILL');
      return 'port-taken';
    }
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

export interface RedisClusterProcess {
  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,…`: every master, as REDIS_URL. */
  readonly url: string;
  /** One per master, each its own redis-server in its own folder under `dataDir`. */
  readonly nodes: RedisProcess[];
  stop(): Promise<void>;
  /**
   * Starts every stopped node again on its port and folder (each keeps its nodes.conf, so the
   * cluster forms again as it was) and returns once every node says `cluster_state:ok`.
   */
  start(): Promise<void>;
}

export interface SpawnRedisClusterOptions extends Omit<SpawnRedisOptions, 'port' | 'detached'> {
  /** How many masters (no replicas); at least 3, as `redis-cli --cluster create` wants. */
  masters?: number;
  /** `cluster-node-timeout` in ms: how soon a stopped master makes the cluster's state `fail`. */
  nodeTimeoutMs?: number;
}

/** Runs a command to the end; its output when it fails. */
function run(command: string, args: string[]): { ok: boolean; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error?.message ?? ''}` };
}

/**
 * A local Redis Cluster of `masters` redis-servers (cluster-enabled, no replicas) on free ports,
 * made with `redis-cli --cluster create` and returned once every node says `cluster_state:ok`.
 * For tests and benchmarks; every node is stopped by `stop()`, and by a failed start.
 */
export async function spawnRedisCluster(options: SpawnRedisClusterOptions): Promise<RedisClusterProcess> {
  const masters = options.masters ?? 3;
  if (masters < 3) throw new ConfigError(`A Redis Cluster needs at least 3 masters, not ${masters}.`);
  if (spawnSync('redis-cli', ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new ConfigError('redis-cli was not found on PATH; it makes the cluster (Debian/Ubuntu: `apt-get install redis-tools`).');
  }
  const nodes: RedisProcess[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
  };
  const spawnNode = (i: number, port?: number) =>
    spawnRedis({
      ...options,
      dataDir: path.join(options.dataDir, `node-${i}`),
      ...(port !== undefined ? { port } : {}),
      overrides: {
        ...options.overrides,
        'cluster-enabled': 'yes',
        'cluster-config-file': 'nodes.conf',
        'cluster-node-timeout': String(options.nodeTimeoutMs ?? 2_000),
      },
    });
  const addresses = () => nodes.map((node) => `127.0.0.1:${node.port}`);
  const untilOk = async () => {
    const deadline = Date.now() + 30_000;
    for (const node of nodes) {
      for (;;) {
        const info = run('redis-cli', ['-p', String(node.port), 'cluster', 'info']);
        if (info.output.includes('cluster_state:ok')) break;
        if (Date.now() > deadline) throw new ConfigError(`The Redis Cluster on ${addresses().join(',')} did not reach cluster_state:ok:\n${info.output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  const start = async () => {
    for (const [i, node] of nodes.entries()) {
      if (node.child.exitCode === null && node.child.signalCode === null) continue;
      nodes[i] = await spawnNode(i, node.port);
    }
    await untilOk();
  };
  try {
    for (let i = 0; i < masters; i++) nodes.push(await spawnNode(i));
    const created = run('redis-cli', ['--cluster', 'create', ...addresses(), '--cluster-replicas', '0', '--cluster-yes']);
    if (!created.ok) throw new ConfigError(`redis-cli --cluster create failed:\n${created.output.slice(-2000)}`);
    await untilOk();
    return { url: `redis+cluster://${addresses().join(',')}`, nodes, stop, start };
  } catch (err) {
    await stop();
    throw err;
  }
}
