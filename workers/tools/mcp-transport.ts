// Turns one extensions_config.json server entry into an MCP client transport. `$NAME` values in
// `env` and `headers` are resolved here, from the worker's environment, at load time; a missing
// variable makes the entry unusable rather than sending a literal `$NAME` to the server.
// A stdio entry is checked against the stdio policy first: the gateway refuses a PUT that breaks
// it, but the file can be edited by hand, so no child starts without this second check.
import { Readable } from 'node:stream';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { mcpServerProblem, type McpServer } from '../../src/config/extensions.js';
import { checkStdioServer } from '../../src/config/mcp-stdio-policy.js';
import { resolveEnvRef } from '../../src/config/load-config.js';
import { guardedFetch } from '../../src/net/outbound-guard.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { withHttpAuth, type HttpAuthSource } from './mcp-http-auth.js';

/**
 * What a stdio server inherits from the worker. The worker's environment holds API keys, so a
 * child gets these and its configured `env`, nothing else. (The MCP SDK adds HOME, LOGNAME,
 * PATH, SHELL, TERM and USER from the process when present: identity values, never secrets.)
 */
export const STDIO_BASE_ENV = ['PATH', 'HOME', 'LANG'] as const;

export type McpTransportPlan =
  | {
      ok: true;
      transport: Transport;
      /** The stdio child's stderr, when there is one; it must be read or the child blocks. */
      stderr: Readable | null;
      /** Resolved env and header values, to be masked out of any message that is logged. */
      secrets: string[];
    }
  | { ok: false; reason: string };

export interface McpTransportOptions {
  env: NodeJS.ProcessEnv;
  auth?: HttpAuthSource | undefined;
  /** `mcp.stdio_allowed_commands`; bare names are looked up on the PATH the child gets. */
  stdioAllowedCommands: readonly string[];
  /** `mcp.allow_private_networks`: an http/sse server may be on loopback or a private network. */
  allowPrivateNetworks?: boolean;
}

type Resolved = { values: Record<string, string> } | { reason: string };

/** Resolves every `$NAME` of `given`; the reason names `<field>.<key>` of the first that is not set. */
export function resolveValues(field: string, given: Record<string, string> | undefined, env: NodeJS.ProcessEnv): Resolved {
  const values: Record<string, string> = {};
  for (const [key, raw] of Object.entries(given ?? {})) {
    const { value, missing } = resolveEnvRef(raw, env);
    if (missing !== undefined) return { reason: `${field}.${key} refers to $${missing}, which is not set in the worker's environment` };
    values[key] = value ?? '';
  }
  return { values };
}

function baseEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const base: Record<string, string> = {};
  for (const key of STDIO_BASE_ENV) {
    const value = env[key];
    if (value !== undefined) base[key] = value;
  }
  return base;
}

// Short values ("1", "on") are configuration, not secrets, and masking them would garble messages.
const secretLike = (value: string): boolean => value.length >= 4;
const secretsOf = (map: Record<string, string>): string[] => Object.values(map).filter(secretLike);

export async function planMcpTransport(name: string, server: McpServer, options: McpTransportOptions): Promise<McpTransportPlan> {
  const problem = mcpServerProblem(name, server);
  if (problem) return { ok: false, reason: `invalid config: ${problem}` };
  const type = server.type ?? 'stdio';

  if (type === 'stdio') {
    const base = baseEnv(options.env);
    const verdict = await checkStdioServer(name, server, { allowedCommands: options.stdioAllowedCommands, searchPath: base.PATH });
    if (!verdict.ok) return { ok: false, reason: `refused by the stdio policy: ${verdict.reason}` };
    const env = resolveValues('env', server.env, options.env);
    if ('reason' in env) return { ok: false, reason: env.reason };
    const transport = new StdioClientTransport({
      // The policy's answer: the command as written, or the file it was matched as.
      command: verdict.command,
      args: server.args ?? [],
      env: { ...base, ...env.values },
      stderr: 'pipe',
    });
    const stderr = transport.stderr instanceof Readable ? transport.stderr : null;
    return { ok: true, transport, stderr, secrets: secretsOf(env.values) };
  }

  const headers = resolveValues('headers', server.headers, options.env);
  if ('reason' in headers) return { ok: false, reason: headers.reason };
  const url = new URL(server.url ?? '');
  // Whoever may PUT /api/mcp/config names these URLs: like web_fetch, they reach only public
  // hosts (every redirect checked, the connection pinned to the checked address) unless allowed.
  const guarded = guardedFetch({ what: `MCP server "${name}"`, allowPrivate: options.allowPrivateNetworks ?? false }) as FetchLike;
  const transportOptions = {
    requestInit: { headers: headers.values },
    fetch: options.auth ? withHttpAuth(options.auth, guarded) : guarded,
  };
  const transport =
    type === 'http' ? new StreamableHTTPClientTransport(url, transportOptions) : new SSEClientTransport(url, transportOptions);
  // Credentials can sit in the url too (user:password@, ?key=); they are masked like headers.
  const inUrl = [url.password, ...url.searchParams.values()].filter(secretLike);
  return { ok: true, transport, stderr: null, secrets: [...secretsOf(headers.values), ...inUrl] };
}
