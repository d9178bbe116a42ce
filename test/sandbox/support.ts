// A throw-away WARREN_HOME with a skills folder, shared by the sandbox and tool tests.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { pino, type Logger } from 'pino';
import type { SandboxConfig } from '../../src/config/app-config.schemas.js';
import { createThreadFiles, type ThreadFiles } from '../../src/workspace/thread-files.js';

export interface TestHome {
  root: string;
  home: string;
  skillsDir: string;
  files: ThreadFiles;
  log: Logger;
  cleanup(): Promise<void>;
}

export async function createTestHome(prefix: string): Promise<TestHome> {
  const root = await mkdtemp(path.join(tmpdir(), `warren-${prefix}-`));
  const home = path.join(root, 'home');
  const skillsDir = path.join(root, 'skills');
  await mkdir(path.join(skillsDir, 'public', 'demo'), { recursive: true });
  await mkdir(path.join(skillsDir, 'custom'), { recursive: true });
  await writeFile(path.join(skillsDir, 'public', 'demo', 'SKILL.md'), '---\nname: demo\ndescription: A demo skill.\n---\n# Demo\n');
  return {
    root,
    home,
    skillsDir,
    files: createThreadFiles(home),
    log: pino({ level: 'silent' }),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

export function sandboxConfig(overrides: Partial<SandboxConfig> = {}): SandboxConfig {
  return { allow_host_bash: false, network: false, bash_timeout_seconds: 20, bash_output_limit_bytes: 65_536, ...overrides };
}

/** Invokes a tool with plain arguments, as the given thread. */
export function callTool(tool: StructuredToolInterface, args: Record<string, unknown>, threadId: string): Promise<unknown> {
  return tool.invoke(args, { configurable: { thread_id: threadId } });
}

/** Invokes a tool the way ToolNode does: with a ToolCall, so the result is a ToolMessage or a Command. */
export function callToolWithId(tool: StructuredToolInterface, args: Record<string, unknown>, threadId: string, id = 'call_1'): Promise<unknown> {
  return tool.invoke({ id, name: tool.name, args, type: 'tool_call' }, { configurable: { thread_id: threadId } });
}

export function findTool(tools: StructuredToolInterface[], name: string): StructuredToolInterface {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}
