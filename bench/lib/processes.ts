// Child processes of the bench: start, watch memory and CPU through /proc, stop.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';

export interface Child {
  name: string;
  child: ChildProcess;
  /** The last few KiB of its output (stdout and stderr), for error messages. */
  tail(): string;
}

export interface ChildOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Open an IPC channel (the anchor and the served floors report readiness through it: `readyOverIpc`). */
  ipc?: boolean;
}

export function startChild(name: string, command: string, args: readonly string[], options: ChildOptions): Child {
  const stdio: SpawnOptions['stdio'] = options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'];
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { name, child, tail: () => output };
}

/** Resolves on the child's first IPC message (its "ready"); rejects, with its output, if it exits first. */
export function readyOverIpc(child: Child): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    child.child.once('message', () => resolve());
    child.child.once('exit', () => reject(new Error(`${child.name} exited: ${child.tail()}`)));
  });
}

/** Resolves when the child is gone; SIGKILL after the grace period. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill(signal);
  });
}

/** Resident set size in MiB (VmRSS of /proc/<pid>/status). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN);
  return kib / 1024;
}

/** CPU seconds (user + system) the process has used, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at index 2 (state).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100; // USER_HZ is 100 on Linux
}

/** CPU seconds the whole machine has been busy (all cores), from the first line of /proc/stat. */
export function machineBusySeconds(): number {
  const [, ...fields] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields.map(Number);
  return (user + nice + system + irq + softirq + steal) / 100;
}

/**
 * Measures what else ran on the machine during a workload: busy CPU of the whole machine minus
 * the server's processes and this bench process. Other people's test runs on a shared box show
 * up here, so a disturbed figure can be recognised as such.
 */
export function foreignCpuMeter(processes: Readonly<Record<string, number>>): () => number {
  const start = { machine: machineBusySeconds(), server: cpuByProcess(processes).total, bench: process.cpuUsage(), at: performance.now() };
  return () => {
    const bench = process.cpuUsage(start.bench);
    const foreign = machineBusySeconds() - start.machine - (cpuByProcess(processes).total - start.server) - (bench.user + bench.system) / 1e6;
    return Number(((Math.max(0, foreign) / ((performance.now() - start.at) / 1000)) * 100).toFixed(0));
  };
}

export interface CpuUse {
  byName: Record<string, number>;
  total: number;
}

/** CPU seconds of each named process, and their total. */
export function cpuByProcess(processes: Readonly<Record<string, number>>): CpuUse {
  const byName = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)]));
  return { byName, total: Object.values(byName).reduce((sum, s) => sum + s, 0) };
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
