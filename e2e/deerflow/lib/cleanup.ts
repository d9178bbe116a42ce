// Everything the run starts or creates is registered here and undone on the way out, in reverse
// order, whether the walk passed, failed, threw or was interrupted (Ctrl-C, SIGTERM, SIGHUP).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

type Undo = { what: string; run: () => Promise<void> | void };

const undos: Undo[] = [];
/** Process groups still alive, for the last-resort kill in the 'exit' handler. */
const groups = new Set<number>();
let cleaning: Promise<void> | null = null;

export function onCleanup(what: string, run: () => Promise<void> | void): void {
  undos.push({ what, run });
}

/** A fresh temp folder, removed on the way out. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  onCleanup(`remove ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Child {
  name: string;
  child: ChildProcess;
  /** The last few KiB of its output, for error messages. */
  tail(): string;
  /** Resolves when it has exited. */
  exited: Promise<void>;
}

/**
 * Starts a program in its own process group (so what it spawns in turn, as pnpm and Next.js do,
 * is stopped with it) and registers its stop. Output is kept, and echoed when `echo` is set.
 */
export function startChild(name: string, command: string, args: readonly string[], options: { cwd?: string; env: NodeJS.ProcessEnv; echo?: boolean }): Child {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-16_000);
    if (options.echo) process.stdout.write(chunk);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const pid = child.pid;
  if (pid !== undefined) {
    groups.add(pid);
    void exited.then(() => groups.delete(pid));
  }
  onCleanup(`stop ${name}`, () => stopGroup(child, exited));
  return { name, child, tail: () => output, exited };
}

/** SIGTERM to the child's group, SIGKILL after a grace period; resolves when the child is gone. */
async function stopGroup(child: ChildProcess, exited: Promise<void>, graceMs = 10_000): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) {
    if (pid !== undefined) killGroup(pid, 'SIGKILL'); // the leader is gone; its group may not be
    return;
  }
  killGroup(pid, 'SIGTERM');
  const force = setTimeout(() => killGroup(pid, 'SIGKILL'), graceMs);
  await exited;
  clearTimeout(force);
  killGroup(pid, 'SIGKILL'); // anything the leader left behind in its group
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already empty, which is what we want.
  }
}

/** Runs every registered undo, newest first; a failing one does not stop the others. */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    while (undos.length > 0) {
      const undo = undos.pop() as Undo;
      try {
        await undo.run();
      } catch (err) {
        process.stderr.write(`cleanup: ${undo.what}: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    }
  })();
  return cleaning;
}

/** Cleans up on a signal, and kills any group left if the process exits without cleaning up. */
export function installSignalHandlers(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping everything the run started\n`);
      void cleanup().then(() => process.exit(130));
    });
  }
  process.on('exit', () => {
    for (const pid of groups) killGroup(pid, 'SIGKILL');
  });
}
