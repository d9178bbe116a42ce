// Where the agent's shell commands run. With a working bubblewrap: in a fresh sandbox per
// command (see bwrap.ts). Without it: on the host, in the thread's workspace with a scrubbed
// environment, and only when the operator said so (`sandbox.allow_host_bash`); otherwise there
// is no runner and the agent gets no `bash` tool. Either way: a time limit and an output cap.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { SandboxConfig } from '../../src/config/app-config.schemas.js';
import type { ThreadFiles } from '../../src/workspace/thread-files.js';
import { bwrapArgs, findBwrap, probeBwrap, readSystemLayout, SANDBOX_DATA_FILES, SANDBOX_PATH, type SystemLayout } from './bwrap.js';
import { runProcess, type ProcessResult } from './run-process.js';

export type BashMode = 'bwrap' | 'host';

export type BashResult = ProcessResult;

export interface BashRunner {
  readonly mode: BashMode;
  /** Whether commands can reach the network (always true on the host). */
  readonly network: boolean;
  readonly timeoutSeconds: number;
  run(threadId: string, command: string, options?: { signal?: AbortSignal }): Promise<BashResult>;
}

export interface BashRunnerDeps {
  files: ThreadFiles;
  skillsDir: string;
  sandbox: SandboxConfig;
  log: Logger;
  /**
   * The bwrap executable. Left out, it is looked for and probed; null means "act as if there
   * were none" (tests of the host fallback, or an operator who wants it off).
   */
  bwrapPath?: string | null;
}

export type BwrapStatus = { available: true; path: string } | { available: false; reason: string };

/** Looks for bwrap and proves it can build a sandbox here. Call once per process. */
export async function detectBwrap(bwrapPath?: string | null): Promise<BwrapStatus> {
  if (bwrapPath === null) return { available: false, reason: 'disabled' };
  const found = bwrapPath ?? (await findBwrap());
  if (!found) return { available: false, reason: 'bwrap is not installed' };
  const failure = await probeBwrap(found);
  return failure === null ? { available: true, path: found } : { available: false, reason: failure };
}

function bwrapRunner(deps: BashRunnerDeps, bwrap: string, layout: SystemLayout): BashRunner {
  const { files, sandbox } = deps;
  const skillsDir = path.resolve(deps.skillsDir);
  return {
    mode: 'bwrap',
    network: sandbox.network,
    timeoutSeconds: sandbox.bash_timeout_seconds,
    async run(threadId, command, options) {
      // ensureArea creates each folder and checks that it is really inside this thread's.
      await files.ensureArea(threadId, 'workspace');
      await files.ensureArea(threadId, 'outputs');
      const uploads = await files.ensureArea(threadId, 'uploads');
      const userData = await realpath(files.userDataDir(threadId));
      // No skills folder: the sandbox simply has no /mnt/skills.
      const skills = await realpath(skillsDir).catch(() => null);
      return runProcess(
        {
          file: bwrap,
          args: bwrapArgs(layout, { userData, uploads, skills, network: sandbox.network }, command),
          env: { PATH: SANDBOX_PATH },
          dataFds: SANDBOX_DATA_FILES.map((f) => f.content),
        },
        { timeoutMs: sandbox.bash_timeout_seconds * 1000, outputLimitBytes: sandbox.bash_output_limit_bytes, signal: options?.signal },
      );
    },
  };
}

function hostRunner(deps: BashRunnerDeps, shell: string): BashRunner {
  const { files, sandbox } = deps;
  return {
    mode: 'host',
    network: true,
    timeoutSeconds: sandbox.bash_timeout_seconds,
    async run(threadId, command, options) {
      const workspace = await files.ensureArea(threadId, 'workspace');
      // Never the worker's environment: it holds API keys and connection strings.
      const env = { PATH: SANDBOX_PATH, HOME: workspace, TMPDIR: '/tmp', LANG: 'C.UTF-8', PYTHONUNBUFFERED: '1' };
      return runProcess(
        { file: shell, args: ['-c', command], cwd: workspace, env },
        { timeoutMs: sandbox.bash_timeout_seconds * 1000, outputLimitBytes: sandbox.bash_output_limit_bytes, signal: options?.signal },
      );
    },
  };
}

/** The runner this process can offer, or null when `bash` must not be offered at all. */
export async function createBashRunner(deps: BashRunnerDeps): Promise<BashRunner | null> {
  const status = await detectBwrap(deps.bwrapPath);
  const layout = await readSystemLayout();
  if (status.available) {
    deps.log.info({ bwrap: status.path, network: deps.sandbox.network }, 'bash tool: commands run under bubblewrap');
    return bwrapRunner(deps, status.path, layout);
  }
  if (!deps.sandbox.allow_host_bash) {
    deps.log.info({ reason: status.reason }, 'bash tool: off (no working bubblewrap, sandbox.allow_host_bash is false)');
    return null;
  }
  deps.log.warn({ reason: status.reason }, 'bash tool: commands run on the host, without isolation (sandbox.allow_host_bash)');
  return hostRunner(deps, layout.shell);
}
