// The sandbox's tools for one worker process: the file tools, glob, grep and present_files always, `bash`
// only when a runner exists (a working bubblewrap, or allow_host_bash). Built once; every call
// reads its thread from the run config.
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { Logger } from 'pino';
import type { SandboxConfig } from '../../src/config/app-config.schemas.js';
import type { ThreadFiles } from '../../src/workspace/thread-files.js';
import { createBashRunner, type BashMode } from '../sandbox/bash-runner.js';
import { createVirtualFs } from '../sandbox/virtual-fs.js';
import { createBashTool } from './bash-tool.js';
import { createFileTools } from './file-tools.js';
import { createPresentFilesTool } from './present-files.js';
import { createSearchTools } from './search-tools.js';

export interface SandboxToolsDeps {
  files: ThreadFiles;
  /** The folder holding `public/` and `custom/` skills (seen as /mnt/skills). */
  skillsDir: string;
  sandbox: SandboxConfig;
  log: Logger;
  /** Left out: look for bwrap and probe it. null: behave as if it were absent (tests). */
  bwrapPath?: string | null;
}

export interface SandboxTools {
  tools: StructuredToolInterface[];
  /** Whether `bash` is among the tools. */
  bash: boolean;
  /** Where `bash` runs, or null when it is not offered. */
  bashMode: BashMode | null;
}

export async function createSandboxTools(deps: SandboxToolsDeps): Promise<SandboxTools> {
  const vfs = createVirtualFs({ files: deps.files, skillsDir: deps.skillsDir });
  // DeerFlow's order: ls and read_file, then glob and grep (file:read), then the writers.
  const [ls, readFile, ...writers] = createFileTools(vfs);
  const tools = [ls, readFile, ...createSearchTools(vfs), ...writers, createPresentFilesTool(vfs)].filter((t) => t !== undefined);
  const runner = await createBashRunner(deps);
  if (runner) tools.push(createBashTool(runner));
  return { tools, bash: runner !== null, bashMode: runner?.mode ?? null };
}
