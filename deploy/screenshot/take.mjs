// Takes deploy/queue-dashboard.png and deploy/queue-dashboard-runs.png: Bull Board at
// /admin/queues of a local Warren (a private redis-server, one API and one worker from dist/)
// while a load of runs goes through it, in headless Chromium.
//   npm run build && npm --prefix deploy/screenshot install && node deploy/screenshot/take.mjs
// CHROMIUM names the browser (default /usr/bin/chromium, Debian's). Everything it starts, it stops.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const OUT = path.join(ROOT, 'deploy');
const QUEUE = 'runs';
const THREADS = 40;
const DELAYED = 6;

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const children = [];
function start(command, args, env) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

async function until(probe, what, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const home = mkdtempSync(path.join(tmpdir(), 'warren-screenshot-'));
try {
  const redisPort = await freePort();
  const apiPort = await freePort();
  start('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', home]);
  const configFile = path.join(home, 'config.yaml');
  // The test suite's counter graph: one step per count, tick_ms apart: runs that take a while.
  const graphs = path.join(ROOT, 'test', 'fixtures', 'graphs', 'test-graphs.ts');
  writeFileSync(configFile, `graphs:\n  counter: "${graphs}:counter"\nadmin:\n  queues: true\n`);
  const env = { REDIS_URL: `redis://127.0.0.1:${redisPort}`, WARREN_HOME: home, WARREN_CONFIG: configFile, WARREN_QUEUE: QUEUE, LOG_LEVEL: 'warn', WARREN_WORKER_CONCURRENCY: '4' };
  start(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], { ...env, PORT: String(apiPort), WARREN_INSTANCE_ID: 'api-0' });
  start(process.execPath, [path.join(ROOT, 'dist', 'workers', 'main.js')], { ...env, WARREN_INSTANCE_ID: 'worker-0' });
  const api = `http://127.0.0.1:${apiPort}`;
  await until(async () => (await fetch(`${api}/ready`)).ok, 'the API to be ready', 180_000);

  const post = async (url, body) => {
    const res = await fetch(`${api}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  // The load: runs of 2–6 s on a worker that takes four at once, and a few waiting out a delay.
  for (let i = 0; i < THREADS + DELAYED; i++) {
    const { thread_id } = await post('/api/langgraph/threads', {});
    await post(`/api/langgraph/threads/${thread_id}/runs`, {
      assistant_id: 'counter',
      input: { count: 0 },
      config: { configurable: { target: 8 + (i % 5) * 4, tick_ms: 250 } },
      ...(i >= THREADS ? { after_seconds: 3600 } : {}),
    });
  }
  // Until some have finished while others run and wait.
  await until(async () => {
    const { queues } = await (await fetch(`${api}/admin/queues/api/queues`)).json();
    const counts = queues.find((q) => q.name === QUEUE)?.counts ?? {};
    return counts.completed >= 8 && counts.active > 0 && counts.waiting > 0;
  }, 'a queue with finished, running and waiting runs', 120_000);

  // A fresh profile (Playwright passes it as --user-data-dir) in the temp folder removed below.
  const browser = await chromium.launchPersistentContext(path.join(home, 'chromium'), {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1440, height: 900 },
  });
  try {
    const page = await browser.newPage();
    // The board links a web font; offline, its request would only delay the page.
    await page.route(/fonts\.(googleapis|gstatic)\.com/, (route) => route.abort());
    await page.goto(`${api}/admin/queues`, { waitUntil: 'networkidle' });
    await page.getByText(`${QUEUE}-tasks`).first().waitFor();
    await page.screenshot({ path: path.join(OUT, 'queue-dashboard.png') });
    await page.goto(`${api}/admin/queues/queue/${QUEUE}?status=active`, { waitUntil: 'networkidle' });
    // A job card shows its data: the run it points at.
    await page.getByText('jobData').first().waitFor();
    await page.screenshot({ path: path.join(OUT, 'queue-dashboard-runs.png') });
  } finally {
    await browser.close();
  }
  process.stdout.write(`wrote ${path.join(OUT, 'queue-dashboard.png')} and queue-dashboard-runs.png\n`);
} finally {
  for (const child of children.reverse()) {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve)));
  }
  rmSync(home, { recursive: true, force: true });
}
