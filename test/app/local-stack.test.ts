// `npm start`'s local stack: it spawns Redis when none answers, serves /ok, and leaves no
// process behind when it is stopped, even when only its parent shell gets the signal. Ctrl-C
// (SIGINT to the terminal's whole process group) stops the API and the worker first, so the
// worker hands its run back while Redis still answers, and Redis last. A taken port stops it
// before it starts anything.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { freePort } from '../../src/cli/redis-process.js';
import { buildDist } from '../support/cluster.js';
import { startScriptedOpenAI } from '../support/scripted-openai.js';
import { trackedDir } from '../support/leftovers.js';
import { localStackEnv } from '../support/local-stack-env.js';
import { alive, descendants, killTree } from '../support/process-tree.js';
import { testGraphs } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

/** A start compiles, spawns Redis, the API and a worker: slow on a loaded machine (issue 18). */
const STARTUP_WAIT = 120_000;

const root = path.resolve(import.meta.dirname, '..', '..');
let home: string;

beforeAll(() => {
  buildDist();
  home = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-local-')));
}, 180_000);
afterAll(() => rmSync(home, { recursive: true, force: true }));

async function startLocalStack(): Promise<{ shell: ChildProcess; port: number }> {
  const { port, env } = await localStackEnv(home);
  // A shell in between, as npm has: it dies on SIGTERM without forwarding it.
  const shell = spawn('sh', ['-c', `"${process.execPath}" dist/src/cli/local-stack.js; true`], {
    cwd: root,
    env,
    stdio: 'ignore',
  });
  // Recorded before the wait: a start that never answers is still stopped after the test.
  started.push(shell.pid as number);
  // /ok answers before the API's Redis connection is up (`redis: false`): wait for both.
  const ready = async () => ((await (await fetch(`http://127.0.0.1:${port}/ok`).catch(() => null))?.json()) as { redis?: boolean } | undefined)?.redis === true;
  await waitFor(ready, 'the stack to answer /ok with Redis up', STARTUP_WAIT);
  return { shell, port };
}

/** Stops whatever a test left running: every process of a stack, by its own id. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) killTree(pid);
});

describe('local stack', () => {
  it('spawns Redis, serves /ok, and leaves nothing behind when its parent is terminated', async () => {
    const { shell, port } = await startLocalStack();
    const body = (await (await fetch(`http://127.0.0.1:${port}/ok`)).json()) as { ok: boolean; redis: boolean };
    expect(body).toEqual({ ok: true, redis: true });
    const tree = descendants(shell.pid as number);
    expect(tree.length).toBeGreaterThanOrEqual(4); // local stack, redis-server, api, worker
    shell.kill('SIGTERM');
    await waitFor(async () => tree.every((pid) => !alive(pid)), 'every process of the stack to exit', 30_000);
  }, 300_000);

  it('stops everything on SIGTERM to the stack itself', async () => {
    const { shell } = await startLocalStack();
    const tree = descendants(shell.pid as number);
    const stackPid = tree[0] as number;
    process.kill(stackPid, 'SIGTERM');
    await waitFor(async () => tree.every((pid) => !alive(pid)), 'every process of the stack to exit', 30_000);
  }, 300_000);

  it('on Ctrl-C stops the worker first, which hands its run back, and Redis last; the run completes after a restart', async () => {
    // The first answer streams slowly enough to be cut by the Ctrl-C; the one after the restart is quick.
    const llm = await startScriptedOpenAI((_request, index) =>
      index === 0 ? { content: `${'slow '.repeat(300)}end`, delayMs: 50 } : { content: 'resumed answer', delayMs: 0 },
    );
    try {
      const configFile = path.join(home, 'ctrl-c.yaml');
      writeFileSync(configFile, stringify({ graphs: testGraphs('chat') }));
      const { port, env } = await localStackEnv(home, { WARREN_CONFIG: configFile, WARREN_TEST_OPENAI_URL: llm.url, LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
      const output: string[] = [];
      const start = () => {
        // Its own process group, as a terminal gives `npm start`: the group is what Ctrl-C signals.
        const stack = spawn(process.execPath, ['dist/src/cli/local-stack.js'], {
          cwd: root,
          detached: true,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        started.push(stack.pid as number);
        stack.stdout?.on('data', (b: Buffer) => output.push(b.toString()));
        stack.stderr?.on('data', (b: Buffer) => output.push(b.toString()));
        return stack;
      };
      const api = `http://127.0.0.1:${port}/api/langgraph`;
      const post = async (url: string, body: unknown) =>
        (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) })).json() as Promise<Record<string, string>>;
      const status = async (threadId: string, runId: string) => (await (await fetch(`${api}/threads/${threadId}/runs/${runId}`)).json()) as { status: string };

      let stack = start();
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/ok`).catch(() => null))?.ok, 'the stack to answer /ok', STARTUP_WAIT);
      const { thread_id: threadId } = await post(`${api}/threads`, {});
      const { run_id: runId } = await post(`${api}/threads/${threadId}/runs`, {
        assistant_id: 'chat',
        input: { messages: [{ role: 'user', content: 'question' }] },
      });
      await waitFor(async () => llm.requests.length > 0 && (await status(threadId as string, runId as string)).status === 'running', 'the run to be answering');

      const tree = [stack.pid as number, ...descendants(stack.pid as number)];
      const stoppedAt = performance.now();
      process.kill(-(stack.pid as number), 'SIGINT');
      await waitFor(async () => tree.every((pid) => !alive(pid)), 'every process of the stack to exit', 30_000);
      console.log(`[local stack] Ctrl-C stopped ${tree.length} processes in ${Math.round(performance.now() - stoppedAt)} ms`);
      const log = output.join('');
      expect(log).toContain('run handed back on shutdown');
      expect(log).not.toContain('did not stop within');

      stack = start();
      await waitFor(async () => (await status(threadId as string, runId as string).catch(() => ({ status: '' }))).status === 'success', 'the handed-back run to complete after the restart', 60_000);
      const tree2 = [stack.pid as number, ...descendants(stack.pid as number)];
      process.kill(stack.pid as number, 'SIGTERM');
      await waitFor(async () => tree2.every((pid) => !alive(pid)), 'every process of the restarted stack to exit', 30_000);
    } finally {
      await llm.close();
    }
  }, 420_000);

  it('refuses a taken port in one line before it starts anything', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as net.AddressInfo).port;
      const redisPort = await freePort();
      const stack = spawn(process.execPath, ['dist/src/cli/local-stack.js'], {
        cwd: root,
        env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: `redis://127.0.0.1:${redisPort}`, WARREN_HOME: home },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      started.push(stack.pid as number);
      let stdout = '';
      let stderr = '';
      stack.stdout?.on('data', (b: Buffer) => (stdout += b.toString()));
      stack.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
      const code = await new Promise<number | null>((resolve) => stack.once('exit', resolve));
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr.trim().split('\n')).toEqual([`[warren] Port ${port} on 127.0.0.1 is already in use (another Warren?): stop it or set PORT to a free port.`]);
    } finally {
      taken.close();
    }
  });
});
