// Redis commands per run (Warren only): what one run's journey asks of Redis, by command, by
// script and by process, counted with MONITOR over a batch of runs. Counts, unlike times, do not
// move with the machine's load, so a change to the run path shows here even on a busy machine.
//
// MONITOR prints each command a client sends (and each command a script calls, marked `lua`,
// which are left out: the script is the round trip). Scripts are named by their SHA-1: Warren's
// own from src/store/scripts (as the store expands them) and BullMQ's from its package. Commands
// are attributed to the API or the worker by the connection names Warren gives its clients.
// Background work over the batch (lock renewals, the hub's blocking reads, BullMQ's polling) is
// included: at this concurrency it is part of what a run costs. Pipelined commands count one
// each; MONITOR cannot show how they were batched, so round trips are not counted here.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchServer } from '../servers/bench-server.ts';
import { measureThroughput } from './throughput.ts';

export interface RedisCommandRow {
  /** A command name, or `EVALSHA <script>`. */
  command: string;
  /** api, worker, or other (a connection without a Warren name). */
  process: string;
  per_run: number;
}

export interface RedisCommandsPoint {
  graph: string;
  runs: number;
  concurrency: number;
  completed: number;
  commands_per_run: number;
  by_process: Record<string, number>;
  rows: RedisCommandRow[];
}

export interface RedisCommandsParams {
  runs: number;
  concurrency: number;
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** SHA-1 → script name, for Warren's scripts and BullMQ's, from the measured checkout. */
async function scriptNames(warrenRoot: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const scripts = (await import(pathToFileURL(path.join(warrenRoot, 'dist', 'src', 'store', 'scripts.js')).href)) as { readScript(file: string): string };
  for (const file of readdirSync(path.join(warrenRoot, 'src', 'store', 'scripts'))) {
    if (file.endsWith('.lua')) names.set(sha1(scripts.readScript(file)), `warren ${file.replace(/-(\d+|n)\.lua$/, '')}`);
  }
  const bullDir = path.join(warrenRoot, 'node_modules', 'bullmq', 'dist', 'esm', 'scripts');
  for (const file of readdirSync(bullDir)) {
    if (!file.endsWith('.js') || file === 'index.js') continue;
    const mod = (await import(pathToFileURL(path.join(bullDir, file)).href)) as Record<string, { name?: string; content?: string }>;
    for (const script of Object.values(mod)) if (script?.content && script.name) names.set(sha1(script.content), `bullmq ${script.name}`);
  }
  return names;
}

/** Connection address → process role, from CLIENT LIST's names (`warren:<role>:…`). */
function clientRoles(redisUrl: string): Map<string, string> {
  const roles = new Map<string, string>();
  const list = execFileSync('redis-cli', ['-u', redisUrl, 'CLIENT', 'LIST'], { encoding: 'utf8' });
  for (const line of list.split('\n')) {
    const addr = /\baddr=(\S+)/.exec(line)?.[1];
    const name = /\bname=(\S*)/.exec(line)?.[1] ?? '';
    if (addr) roles.set(addr, /^warren:([a-z]+)/.exec(name)?.[1] ?? 'other');
  }
  return roles;
}

const LINE = /^\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]+)"(?: "([^"]*)")?/;

export async function measureRedisCommands(server: BenchServer, redisUrl: string, warrenRoot: string, graph: string, params: RedisCommandsParams, deadlineMs: number): Promise<RedisCommandsPoint> {
  const names = await scriptNames(warrenRoot);
  const counts = new Map<string, number>();
  const monitor = spawn('redis-cli', ['-u', redisUrl, 'MONITOR'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let rest = '';
  const ready = new Promise<void>((resolve, reject) => {
    monitor.once('error', reject);
    monitor.stdout.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'OK') resolve();
        const m = LINE.exec(line);
        if (!m || m[1] === 'lua') continue;
        const [, addr, cmd, first] = m as unknown as [string, string, string, string | undefined];
        const upper = cmd.toUpperCase();
        const command = upper === 'EVALSHA' ? `EVALSHA ${names.get(first ?? '') ?? (first ?? '').slice(0, 8)}` : upper;
        const key = `${addr}\t${command}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    });
  });
  try {
    await ready;
    const point = await measureThroughput(server, graph, params, deadlineMs);
    const roles = clientRoles(redisUrl);
    const completed = point.runs - point.errors;
    const merged = new Map<string, number>();
    for (const [key, n] of counts) {
      const [addr, command] = key.split('\t') as [string, string];
      // The MONITOR connection itself, and clients gone before CLIENT LIST, have no Warren name.
      const role = roles.get(addr) ?? 'other';
      if (command === 'MONITOR') continue;
      const k = `${role}\t${command}`;
      merged.set(k, (merged.get(k) ?? 0) + n);
    }
    const perRun = (n: number) => Math.round((n / Math.max(1, completed)) * 100) / 100;
    const rows = [...merged]
      .map(([k, n]) => {
        const [process, command] = k.split('\t') as [string, string];
        return { command, process, per_run: perRun(n) };
      })
      .sort((a, b) => b.per_run - a.per_run);
    const byProcess: Record<string, number> = {};
    for (const r of rows) byProcess[r.process] = Math.round(((byProcess[r.process] ?? 0) + r.per_run) * 100) / 100;
    return {
      graph,
      runs: params.runs,
      concurrency: params.concurrency,
      completed,
      commands_per_run: Math.round(rows.reduce((s, r) => s + r.per_run, 0) * 100) / 100,
      by_process: byProcess,
      rows,
    };
  } finally {
    monitor.kill();
  }
}
