// The system under test: a private Redis, Warren's API and worker from the project's built dist/
// on a scripted model, DeerFlow's Next.js server, and the proxy in front. Each piece registers
// its own stop, so a failure half-way leaves nothing running.
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { onCleanup, startChild, tempDir, type Child } from './cleanup.ts';
import { startModel } from './model.ts';
import { startProxy } from './proxy.ts';
import { say } from './say.ts';

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

export interface Stack {
  /** The proxy: the one origin the browser uses. */
  url: string;
  warrenUrl: string;
  children: Child[];
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers below 500, or the child exits, or the deadline passes. */
async function waitForHttp(url: string, child: Child, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (Date.now() < until) {
    if (exited) throw new Error(`${child.name} exited before answering at ${url}:\n${child.tail()}`);
    const answer = await fetch(url, { redirect: 'manual' }).catch(() => null); // not listening yet: ask again
    if (answer && answer.status < 500) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${child.name} did not answer at ${url} within ${deadlineMs / 1000} s:\n${child.tail()}`);
}

async function waitForRedis(port: number, child: Child): Promise<void> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const pong = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
    });
    if (pong) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`redis-server did not answer on ${port}:\n${child.tail()}`);
}

/** `accounts`: Warren's accounts on and DeerFlow's sign-in with them (issue #31); else DeerFlow's single local user. */
export async function startStack(frontend: string, options: { verbose: boolean; accounts?: boolean; deerflowNginx?: boolean }): Promise<Stack> {
  const children: Child[] = [];
  const dist = path.join(PROJECT_ROOT, 'dist');
  if (!existsSync(path.join(dist, 'src', 'main.js'))) throw new Error(`no ${dist}/src/main.js: run \`npm run build\` first (npm run e2e:deerflow does)`);
  const home = tempDir('warren-e2e-home-');

  const redisPort = await freePort();
  const redis = startChild('redis', 'redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', home], { env: process.env });
  children.push(redis);
  await waitForRedis(redisPort, redis);

  const model = await startModel();
  onCleanup('stop the scripted model', () => model.close());

  // config.yaml as JSON (YAML reads it as is). Skills are a copy, since custom skills and
  // setup_agent write under them.
  const skills = path.join(home, 'skills');
  cpSync(path.join(PROJECT_ROOT, 'skills'), skills, { recursive: true });
  const config = {
    models: [{ name: 'scripted', display_name: 'Scripted model', use: 'openai', model: 'scripted-1', base_url: model.url, api_key: 'e2e', supports_thinking: false, supports_vision: false }],
    skills: { path: skills, container_path: '/mnt/skills' },
    // On, as in DeerFlow's config.example.yaml: the composer's /compact needs it.
    summarization: { enabled: true },
    // The proxy in front (loopback) says which origin the browser used.
    ...(options.accounts ? { auth: { accounts: { enabled: true, trusted_proxies: ['127.0.0.1'] } } } : {}),
  };
  const configFile = path.join(home, 'config.yaml');
  writeFileSync(configFile, JSON.stringify(config, null, 2));

  const warrenPort = await freePort();
  const warrenEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(warrenPort),
    HOST: '127.0.0.1',
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    WARREN_HOME: home,
    WARREN_CONFIG: configFile,
    WARREN_EXTENSIONS_CONFIG: path.join(home, 'extensions_config.json'),
    LOG_LEVEL: options.verbose ? 'info' : 'warn',
    LOG_FORMAT: 'json',
    WARREN_WATCH_PARENT: '1',
    ...(options.accounts ? { WARREN_SESSION_SECRET: randomBytes(32).toString('base64url') } : {}),
  };
  const api = startChild('warren-api', process.execPath, [path.join(dist, 'src', 'main.js')], { env: warrenEnv, echo: options.verbose });
  const worker = startChild('warren-worker', process.execPath, [path.join(dist, 'workers', 'main.js')], { env: warrenEnv, echo: options.verbose });
  children.push(api, worker);
  const warrenUrl = `http://127.0.0.1:${warrenPort}`;
  await waitForHttp(`${warrenUrl}/ok`, api, 60_000);
  say(`Warren: ${warrenUrl} (Redis on ${redisPort}, model at ${model.url})`);

  const nextPort = await freePort();
  const nextBin = path.join(frontend, 'node_modules', 'next', 'dist', 'bin', 'next');
  const next = startChild('next', process.execPath, [nextBin, 'start', '-p', String(nextPort), '-H', '127.0.0.1'], {
    cwd: frontend,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      // Without accounts, DeerFlow's own switch for a single local user (its UI then asks no /api/v1/auth).
      ...(options.accounts ? {} : { DEER_FLOW_AUTH_DISABLED: '1' }),
      DEER_FLOW_INTERNAL_GATEWAY_BASE_URL: warrenUrl,
    },
    echo: options.verbose,
  });
  children.push(next);
  const nextUrl = `http://127.0.0.1:${nextPort}`;
  await waitForHttp(nextUrl, next, 60_000);

  const proxy = await startProxy(warrenUrl, nextUrl, { deerflowNginx: options.deerflowNginx ?? false });
  onCleanup('stop the proxy', () => proxy.close());
  say(`DeerFlow UI: ${proxy.url} (Next.js on ${nextPort})`);
  return { url: proxy.url, warrenUrl, children };
}
