// The `bash` tool: one shell command in the thread's sandbox (bash-runner.ts decides where).
// The reply always carries the exit status, so the model can tell a failing command from a
// silent one; a time-out or the output cap is said in plain words.
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Type } from 'typebox';
import { isWarrenError } from '../../src/errors.js';
import type { BashResult, BashRunner } from '../sandbox/bash-runner.js';
import { SandboxCommandFailedError } from '../sandbox/sandbox.errors.js';
import { defineTool, StepDescription, threadIdOf } from './define-tool.js';
import { ToolArgumentInvalidError } from './tools.errors.js';

function describeRunner(runner: BashRunner): string {
  const where =
    runner.mode === 'bwrap'
      ? 'in an isolated sandbox: /mnt/user-data (uploads read-only) and /mnt/skills (read-only) are the only files you can see'
      : 'on the host, in the thread workspace';
  const network = runner.network ? 'Network access is available.' : 'There is no network access.';
  return `Run a shell command (bash -c) ${where}. The working directory is /mnt/user-data/workspace; save files for the user in /mnt/user-data/outputs. ${network} Each command is a fresh shell: nothing carries over except files. Commands are killed after ${runner.timeoutSeconds} s, and long output is cut in the middle.`;
}

/** The text the model gets back for one command. */
export function formatBashResult(result: BashResult, timeoutSeconds: number): string {
  const status = result.timedOut
    ? `killed: the command ran longer than the ${timeoutSeconds} s limit`
    : result.aborted
      ? 'killed: the run was cancelled'
      : result.signal
        ? `killed by ${result.signal}`
        : `exit code ${result.exitCode ?? 'unknown'}`;
  const parts = [status];
  if (result.stdout) parts.push(`stdout:\n${result.stdout}`);
  if (result.stderr) parts.push(`stderr:\n${result.stderr}`);
  if (!result.stdout && !result.stderr) parts.push('(no output)');
  if (result.truncated) parts.push('[output was longer than the limit; the middle was left out]');
  return parts.join('\n');
}

export function createBashTool(runner: BashRunner): StructuredToolInterface {
  const schema = Type.Object({ description: StepDescription, command: Type.String({ description: 'The shell command to run.' }) });
  return defineTool({ name: 'bash', description: describeRunner(runner), schema }, async ({ command }, config) => {
    if (command.trim() === '') throw new ToolArgumentInvalidError('The command is empty.');
    if (command.includes('\u0000')) throw new ToolArgumentInvalidError('The command contains a NUL character.');
    let result: BashResult;
    try {
      result = await runner.run(threadIdOf(config), command, { signal: config.signal });
    } catch (err) {
      if (isWarrenError(err)) throw err;
      // Raw errors (spawn, mkdir) carry host paths; the model gets the code, the logs the cause.
      const code = (err as NodeJS.ErrnoException).code;
      throw new SandboxCommandFailedError(`The sandbox could not run the command${code ? ` (${code})` : ''}.`, { cause: err });
    }
    return formatBashResult(result, runner.timeoutSeconds);
  });
}
