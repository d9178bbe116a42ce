// What a stdio MCP server may start. `PUT /api/mcp/config` writes a command line that a worker
// then runs, so without a policy that endpoint is remote code execution. The gateway checks every
// PUT with this module and every worker checks again before it starts a child, because the file
// can also be edited by hand. Both sides run the same code.
//
// The policy, in three parts:
// - the command must be on the allowlist (`mcp.stdio_allowed_commands`): a bare name as written,
//   or an absolute path that is the same file as an allowed entry on this host's PATH;
// - no argument may run code given inline (`-e`, `-c`, `--eval`, `data:` URLs, ...) or open
//   node's inspector (`--inspect`), anywhere in the line, since `npx` and `uvx` pass what
//   follows on to another program;
// - `env` may not set variables that change which program starts or inject code into it.
// What it does not do: an allowed command still runs whatever package or script its arguments
// name. It narrows what a configuration can express; keeping the endpoint behind authentication
// is what stops a stranger from writing one.
import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

export const DEFAULT_STDIO_ALLOWED_COMMANDS: readonly string[] = Object.freeze(['npx', 'uvx', 'node']);

export interface StdioPolicy {
  /** Bare names (found on `searchPath` when the child starts) or absolute paths. */
  readonly allowedCommands: readonly string[];
  /** The PATH that bare names are looked up on: the one the stdio child is given. */
  readonly searchPath: string | undefined;
}

export interface StdioLaunch {
  command?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
}

/** `command` is what to spawn: as written, or the resolved file when it matched by identity. */
export type StdioVerdict = { ok: true; command: string } | { ok: false; reason: string };

// ── inline code in arguments ───────────────────────────────────────────────────────────────

/**
 * Long flags that take code: node (`--eval`, `--print`), npx (`--call`, and `--node-options`,
 * which can carry `--import=data:...`). Matched as `--flag` and `--flag=value`, with `_` read
 * as `-` (node accepts both) and any abbreviation refused too (npm expands `--cal` to `--call`).
 */
const INLINE_LONG_FLAGS = ['--eval', '--print', '--call', '--node-options'];

/**
 * One-letter flags that take code: `-e` (node, perl, ruby), `-E` (perl), `-p` (node's print),
 * `-c` (python, sh, bash, npx). A single-dash word is read as a cluster of letters whose code
 * may follow attached, so `-pe`, `bash -lc` and `python -cimport os` are caught too; the price
 * is that single-dash words such as `-verbose` are refused as well. `-m` (python's module
 * runner) is allowed: it names an installed module, as `uvx` names a package, not code.
 */
const INLINE_SHORT_FLAG = /^-[A-Za-z]*?[ceEp]/;

/** node's inspector: whoever reaches its port runs code in the process. */
const INSPECTOR_FLAG = /^--(inspect|debug)([-=]|$)/;

/** Subcommands that take code: `deno eval`, `bun eval`-style runners. */
const INLINE_WORDS = new Set(['eval']);

/** A module specifier that is the code itself (`node --import data:text/javascript,...`). */
const DATA_URL = /(^|[=\s,])data:/i;

function inlineCodeProblem(arg: string): string | null {
  if (DATA_URL.test(arg)) return 'is a data: URL, which carries code inline';
  const flag = arg.split('=', 1)[0] ?? arg;
  if (flag.startsWith('--')) {
    const long = flag.replace(/_/g, '-');
    if (long.length > 2 && INLINE_LONG_FLAGS.some((refused) => refused.startsWith(long))) return `"${flag}" runs code given inline`;
    if (INSPECTOR_FLAG.test(long)) return `"${flag}" opens a debugger, through which code can be run`;
    return null;
  }
  // Quoted only up to the offending letter: what follows may be the code itself.
  const short = INLINE_SHORT_FLAG.exec(arg);
  if (short) return `"${short[0]}" runs code given inline`;
  if (INLINE_WORDS.has(arg)) return `"${arg}" runs code given inline`;
  return null;
}

// ── environment ────────────────────────────────────────────────────────────────────────────

/**
 * Variables a configuration may not set: PATH (a bare name would start another program),
 * NODE_OPTIONS (`--import=data:...`), npm's `npm_config_*` (`npm_config_call` is `npx -c`),
 * loader and shell start-up hooks. Compared case-insensitively, as npm reads them.
 */
const REFUSED_ENV = new Set(['PATH', 'NODE_OPTIONS', 'BASH_ENV', 'ENV']);
const REFUSED_ENV_PREFIXES = ['NPM_CONFIG_', 'LD_', 'DYLD_'];

function envProblem(key: string): boolean {
  const upper = key.toUpperCase();
  return REFUSED_ENV.has(upper) || REFUSED_ENV_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

// ── the command ────────────────────────────────────────────────────────────────────────────

async function executableFile(file: string): Promise<string | null> {
  try {
    const real = await realpath(file);
    await access(real, constants.X_OK);
    return (await stat(real)).isFile() ? real : null;
  } catch {
    // Missing, unreadable or not executable: it cannot match anything.
    return null;
  }
}

/** The real file a command starts: an absolute path as is, a bare name on `searchPath`. */
async function resolveCommand(command: string, searchPath: string | undefined): Promise<string | null> {
  if (path.isAbsolute(command)) return executableFile(command);
  if (command.includes('/')) return null;
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    // A relative PATH entry would depend on the working directory.
    if (!path.isAbsolute(dir)) continue;
    const found = await executableFile(path.join(dir, command));
    if (found) return found;
  }
  return null;
}

async function allowedCommand(command: string, policy: StdioPolicy): Promise<string | null> {
  if (policy.allowedCommands.includes(command)) return command;
  // `/usr/bin/node` is allowed when `node` is, provided it is the very file `node` starts here.
  // The resolved file is what gets spawned, so a symlink swapped after the check changes nothing.
  const target = await resolveCommand(command, policy.searchPath);
  if (!target) return null;
  for (const entry of policy.allowedCommands) {
    if ((await resolveCommand(entry, policy.searchPath)) === target) return target;
  }
  return null;
}

/** Checks one stdio server against the policy. The reason names the server and the field. */
export async function checkStdioServer(name: string, server: StdioLaunch, policy: StdioPolicy): Promise<StdioVerdict> {
  const command = server.command?.trim() ?? '';
  const allowed = await allowedCommand(command, policy);
  if (allowed === null) {
    const list = policy.allowedCommands.length > 0 ? policy.allowedCommands.join(', ') : 'none';
    return {
      ok: false,
      reason: `server "${name}": command "${command}" is not allowed for stdio servers (allowed: ${list}; an operator widens mcp.stdio_allowed_commands in config.yaml)`,
    };
  }
  for (const [i, arg] of (server.args ?? []).entries()) {
    const problem = inlineCodeProblem(arg);
    if (problem) return { ok: false, reason: `server "${name}": args[${i}] ${problem}, which stdio servers may not do` };
  }
  for (const key of Object.keys(server.env ?? {})) {
    if (envProblem(key)) {
      return { ok: false, reason: `server "${name}": env.${key} may not be set, since it changes which program starts or what code it runs` };
    }
  }
  return { ok: true, command: allowed };
}
