// Child processes of the converters (LibreOffice, Tesseract): each in its own process group
// with a hard time limit that kills the whole group, reported to a listener so that a sandbox
// tearing down the thread that started one can still kill it and remove its work directory.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Told about every converter process group and its temp directory, so a sandbox that tears
 * down the thread running it can still kill the group and remove the directory.
 */
export interface ProcessListener {
  spawned(pid: number, workDir: string): void;
  exited(pid: number): void;
}

let listener: ProcessListener | null = null;

export function setProcessListener(next: ProcessListener | null): void {
  listener = next;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    // Missing or not executable: not a program we can run.
    return false;
  }
}

/** The first of `names` found as an executable on PATH. */
export function onPath(names: readonly string[]): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return null;
}

/** Kills a process group started by runInGroup; a no-op if it is gone. */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export interface RunResult {
  code: number | null;
  timedOut: boolean;
  /** The tail of stdout and stderr together (both, unless stdout is kept apart). */
  output: string;
  /** All of stdout, up to MAX_STDOUT, when asked for with `keepStdout`. */
  stdout?: string;
}

/** More standard output than this is cut: no page of text comes near it. */
const MAX_STDOUT = 4 * 1024 * 1024;

/**
 * Wraps the command in coreutils `timeout` when there is one: its kill timer lives outside this
 * thread, so it still fires if the worker that started the program is torn down first.
 */
function withBackstop(command: string, args: string[], timeoutMs: number): [string, string[]] {
  const timeout = onPath(['timeout']);
  if (!timeout) return [command, args];
  const seconds = Math.ceil(timeoutMs / 1000) + 5;
  return [timeout, ['-s', 'KILL', String(seconds), command, ...args]];
}

/** Runs a program in its own process group, killed when it outlives `timeoutMs`. */
export function runInGroup(
  program: string,
  programArgs: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  workDir: string,
  { keepStdout = false }: { keepStdout?: boolean } = {},
): Promise<RunResult> {
  const [command, args] = withBackstop(program, programArgs, timeoutMs);
  return new Promise((resolve, reject) => {
    // Its own process group, so one kill takes the program and any helper it forked.
    const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    const pid = child.pid;
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
    };
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      if (!keepStdout) return collect(chunk);
      if (stdoutBytes < MAX_STDOUT) stdout.push(chunk.subarray(0, MAX_STDOUT - stdoutBytes));
      stdoutBytes += chunk.length;
    });
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (pid !== undefined) killGroup(pid);
    }, timeoutMs);
    if (pid !== undefined) listener?.spawned(pid, workDir);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (pid !== undefined) {
        killGroup(pid); // Reap any straggler left in the group.
        listener?.exited(pid);
      }
      resolve({ code, timedOut, output, ...(keepStdout ? { stdout: Buffer.concat(stdout).toString('utf8') } : {}) });
    });
  });
}

/** Work directories of converter processes start with these, in the temp folder. */
const WORK_DIR_PREFIXES = ['warren-soffice-', 'warren-ocr-'];

/** True for a temp directory made for a converter process (and so safe to delete). */
export function isConverterWorkDir(dir: string): boolean {
  return path.dirname(dir) === tmpdir() && WORK_DIR_PREFIXES.some((p) => path.basename(dir).startsWith(p));
}
