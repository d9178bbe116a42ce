// A private redis-server for Warren, from the project's redis.conf (so durability settings are
// the ones production uses), on a free port in a temp dir. Never 6379: the bench must not touch a
// Redis someone else is using.
import net from 'node:net';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { freePort, startChild, stopChild, type Child } from '../lib/processes.ts';
import { waitFor } from '../lib/wait.ts';

export interface BenchRedis {
  url: string;
  pid: number;
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

export async function startRedis(projectRoot: string, dir: string): Promise<BenchRedis> {
  const port = await freePort();
  const dataDir = path.join(dir, 'redis');
  mkdirSync(dataDir, { recursive: true });
  const redis: Child = startChild('redis', 'redis-server', [path.join(projectRoot, 'redis.conf'), '--port', String(port), '--dir', dataDir], {
    cwd: dir,
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
  return { url: `redis://127.0.0.1:${port}`, pid: redis.child.pid as number, stop: () => stopChild(redis.child) };
}
