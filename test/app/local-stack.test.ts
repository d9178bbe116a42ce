// `npm start`'s local stack: it spawns Redis when none answers, serves /ok, and leaves no
// process behind when it is stopped, even when only its parent shell gets the signal.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/store/redis-process.js';
import { buildDist } from '../support/cluster.js';
import { waitFor } from '../support/wait-for.js';

const root = path.resolve(import.meta.dirname, '..', '..');
let home: string;

beforeAll(() => {
  buildDist();
  home = mkdtempSync(path.join(tmpdir(), 'warren-local-'));
}, 180_000);
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Every live descendant of `pid`, from /proc. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== 'Z';
  } catch {
    return false;
  }
};

async function startLocalStack(): Promise<{ shell: ChildProcess; port: number }> {
  const port = await freePort();
  const redisPort = await freePort();
  // A shell in between, as npm has: it dies on SIGTERM without forwarding it.
  const shell = spawn('sh', ['-c', `"${process.execPath}" dist/src/cli/local-stack.js; true`], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: `redis://127.0.0.1:${redisPort}`, WARREN_HOME: home, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/ok`).catch(() => null))?.ok, 'the stack to answer /ok', 30_000);
  return { shell, port };
}

describe('local stack', () => {
  it('spawns Redis, serves /ok, and leaves nothing behind when its parent is terminated', async () => {
    const { shell, port } = await startLocalStack();
    const body = (await (await fetch(`http://127.0.0.1:${port}/ok`)).json()) as { ok: boolean; redis: boolean };
    expect(body).toEqual({ ok: true, redis: true });
    const tree = descendants(shell.pid as number);
    expect(tree.length).toBeGreaterThanOrEqual(4); // local stack, redis-server, api, worker
    shell.kill('SIGTERM');
    await waitFor(async () => tree.every((pid) => !alive(pid)), 'every process of the stack to exit', 30_000);
  });

  it('stops everything on SIGTERM to the stack itself', async () => {
    const { shell } = await startLocalStack();
    const tree = descendants(shell.pid as number);
    const stackPid = tree[0] as number;
    process.kill(stackPid, 'SIGTERM');
    await waitFor(async () => tree.every((pid) => !alive(pid)), 'every process of the stack to exit', 30_000);
  });
});
