// Runs one child process under a time limit and an output cap. The child leads its own process
// group, so a time-out, an abort or its own exit kills everything it started: a background job
// left running could otherwise hold the output pipes open, or outlive the run. (Under bwrap the
// whole PID namespace dies with bwrap anyway, through --die-with-parent.)
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { OutputCapture, shareBudget } from './output-capture.js';

export interface ProcessLimits {
  timeoutMs: number;
  /** Bytes of stdout and stderr together that the result keeps. */
  outputLimitBytes: number;
  signal?: AbortSignal;
}

export interface ProcessSpec {
  file: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  /** Written to fds 3, 4, … of the child (bwrap's `--ro-bind-data`), then closed. */
  dataFds?: readonly string[];
}

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
  durationMs: number;
}

// After the child exits, how long its pipes may stay open (held by an escaped grandchild).
const DRAIN_GRACE_MS = 1000;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone, which is what we wanted.
  }
}

export function runProcess(spec: ProcessSpec, limits: ProcessLimits): Promise<ProcessResult> {
  const started = performance.now();
  const extra = (spec.dataFds ?? []).map(() => 'pipe' as const);
  const child = spawn(spec.file, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', ...extra],
  });
  const stdout = new OutputCapture(limits.outputLimitBytes);
  const stderr = new OutputCapture(limits.outputLimitBytes);
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  for (const [i, content] of (spec.dataFds ?? []).entries()) {
    const pipe = child.stdio[3 + i] as Writable | null;
    // EPIPE when the child never reads it (it failed to start): the exit code says why.
    pipe?.on('error', () => {});
    pipe?.end(content);
  }

  let timedOut = false;
  let aborted = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, limits.timeoutMs);
  const onAbort = () => {
    aborted = true;
    killGroup(child.pid);
  };
  limits.signal?.addEventListener('abort', onAbort, { once: true });
  if (limits.signal?.aborted) onAbort();

  return new Promise((resolve, reject) => {
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(drainTimer);
      limits.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (err) => {
      finish();
      reject(err);
    });
    child.on('exit', () => {
      killGroup(child.pid);
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, DRAIN_GRACE_MS);
    });
    child.on('close', (exitCode, signal) => {
      finish();
      const budget = shareBudget(limits.outputLimitBytes, stdout.totalBytes, stderr.totalBytes);
      const out = stdout.render(budget.stdout);
      const err = stderr.render(budget.stderr);
      resolve({
        exitCode,
        signal,
        stdout: out.text,
        stderr: err.text,
        timedOut,
        aborted,
        truncated: out.truncated || err.truncated,
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}
