// A private redis-server for Warren, from the project's redis.conf (so durability settings are
// the ones production uses), on a free port in a temp dir. Never 6379: the bench must not touch a
// Redis someone else is using. Or (`--redis-cluster`) a local 3-master Redis Cluster of such
// servers, made with `redis-cli --cluster create`.
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { freePort, startChild, stopChild, type Child } from '../lib/processes.ts';
import { waitFor } from '../lib/wait.ts';

export interface BenchRedis {
  url: string;
  /** Every redis-server, by name, for CPU accounting. */
  processes: Record<string, number>;
  stop(): Promise<void>;
}

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(300, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (buf) => done(buf.toString().startsWith('+PONG')));
  });
}

async function startServer(name: string, projectRoot: string, dataDir: string, extra: string[] = []): Promise<{ child: Child; port: number }> {
  const port = await freePort();
  mkdirSync(dataDir, { recursive: true });
  const redis: Child = startChild(name, 'redis-server', [path.join(projectRoot, 'redis.conf'), '--port', String(port), '--dir', dataDir, ...extra], {
    cwd: dataDir,
    env: process.env,
  });
  await waitFor(
    async () => {
      if (redis.child.exitCode !== null) throw new Error(`redis-server exited: ${redis.tail()}`);
      return answersPing(port);
    },
    'redis-server to answer',
    10_000,
  );
  return { child: redis, port };
}

export async function startRedis(projectRoot: string, dir: string): Promise<BenchRedis> {
  const { child, port } = await startServer('redis', projectRoot, path.join(dir, 'redis'));
  return { url: `redis://127.0.0.1:${port}`, processes: { redis: child.child.pid as number }, stop: () => stopChild(child.child) };
}

/** Three cluster-enabled redis-servers, no replicas, made one cluster; its REDIS_URL names them all. */
export async function startRedisCluster(projectRoot: string, dir: string): Promise<BenchRedis> {
  const nodes: { child: Child; port: number }[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => stopChild(node.child.child)));
  };
  try {
    for (let i = 0; i < 3; i++) {
      nodes.push(await startServer(`redis-${i}`, projectRoot, path.join(dir, `redis-${i}`), ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf']));
    }
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    execFileSync('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], { stdio: 'ignore' });
    for (const node of nodes) {
      await waitFor(
        async () => execFileSync('redis-cli', ['-p', String(node.port), 'cluster', 'info'], { encoding: 'utf8' }).includes('cluster_state:ok'),
        'the Redis Cluster to be ok',
        30_000,
      );
    }
    return {
      url: `redis+cluster://${addresses.join(',')}`,
      processes: Object.fromEntries(nodes.map((node, i) => [`redis-${i}`, node.child.child.pid as number])),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
