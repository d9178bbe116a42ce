// Shared pieces of the MCP tool tests: a temp extensions_config.json, a log that can be read
// back, the stdio fixture's entry, and process checks.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { pino, type Logger } from 'pino';
import { writeExtensionsConfig, type McpServer } from '../../src/config/extensions.js';
import { DEFAULT_STDIO_ALLOWED_COMMANDS } from '../../src/config/mcp-stdio-policy.js';

export const FIXTURE_SERVER = fileURLToPath(new URL('../fixtures/mcp/fixture-server.ts', import.meta.url));

/** The default allowlist plus the node running the tests, whatever `node` on PATH is. */
export const TEST_STDIO_COMMANDS: readonly string[] = [...DEFAULT_STDIO_ALLOWED_COMMANDS, process.execPath];

export type LogLine = Record<string, unknown> & { level: number; msg: string };

export interface Workspace {
  readonly dir: string;
  readonly configPath: string;
  readonly log: Logger;
  readonly lines: LogLine[];
  writeServers(servers: Record<string, McpServer>): Promise<void>;
  pidFile(name: string): string;
  remove(): void;
}

export function createWorkspace(): Workspace {
  const dir = mkdtempSync(path.join(tmpdir(), 'warren-mcp-'));
  const configPath = path.join(dir, 'extensions_config.json');
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return {
    dir,
    configPath,
    log,
    lines,
    writeServers: (servers) => writeExtensionsConfig(configPath, { mcpServers: servers, skills: {} }),
    pidFile: (name) => path.join(dir, `${name}.pids`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The stdio fixture server, with `env` as its configured environment. */
export function stdioServer(env: Record<string, string> = {}, extra: Partial<McpServer> = {}): McpServer {
  return { enabled: true, type: 'stdio', command: process.execPath, args: [FIXTURE_SERVER], env, ...extra };
}

/** Pids the fixture wrote to `file`, one per start. */
export function pidsIn(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: no such process.
    return false;
  }
}

export const names = (tools: StructuredToolInterface[]): string[] => tools.map((t) => t.name).sort();

export async function callTool(tools: StructuredToolInterface[], name: string, args: Record<string, unknown>): Promise<unknown> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${names(tools).join(', ')}`);
  return tool.invoke(args);
}

export const warnings = (lines: LogLine[], msg: string): LogLine[] => lines.filter((l) => l.level >= 40 && l.msg === msg);
