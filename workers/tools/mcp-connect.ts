// Connects one MCP server and loads its tools, within a deadline. Whatever goes wrong with one
// server ends here as a reason string with its secrets masked, so the toolset can skip that
// server without waiting on it past the deadline or touching the others.
import { createInterface } from 'node:readline';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { loadMcpTools } from '@langchain/mcp-adapters';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Logger } from 'pino';
import type { McpServer } from '../../src/config/extensions.js';
import type { HttpAuthSource } from './mcp-http-auth.js';
import { planMcpTransport, type McpTransportPlan } from './mcp-transport.js';
import { McpConnectTimeoutError } from './tools.errors.js';

const CLIENT_INFO = { name: 'warren-worker', version: '1.0.0' };
const STDERR_LINE_MAX = 500;

export interface McpConnection {
  readonly server: string;
  /** The server's tools, still under the names the server gave them. */
  readonly tools: DynamicStructuredTool[];
  /** Ends the session. A stdio child gets EOF on stdin, then SIGTERM, then SIGKILL (the SDK's order). */
  close(): Promise<void>;
}

export type McpConnectResult = { ok: true; connection: McpConnection } | { ok: false; reason: string };

export interface McpConnectOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  stdioAllowedCommands: readonly string[];
  /** An http/sse server may be on loopback or a private network (`mcp.allow_private_networks`). */
  allowPrivateNetworks?: boolean;
  /** Already bound to the server's name. */
  log: Logger;
  auth?: HttpAuthSource | undefined;
}

export function maskSecrets(text: string, secrets: readonly string[]): string {
  // Longest first, so a secret that contains another is masked whole.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  return ordered.reduce((masked, secret) => masked.split(secret).join('***'), text);
}

const STDERR_TAIL_LINES = 3;

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // The SDK's http and SSE errors carry the HTTP status as `code`, but not always in the message.
  const code: unknown = Reflect.get(err, 'code');
  const status = typeof code === 'number' && code >= 100 && code < 600 && !err.message.includes(String(code)) ? ` (HTTP ${code})` : '';
  return `${err.message}${status}`;
}

/** Rejects when `work` has not settled after `ms`; the caller then closes what `work` opened. */
async function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new McpConnectTimeoutError(`did not start and list its tools within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function connectPlanned(
  name: string,
  plan: Extract<McpTransportPlan, { ok: true }>,
  options: McpConnectOptions,
): Promise<McpConnectResult> {
  const { log } = options;
  // The last lines a stdio child wrote to stderr: "Connection closed" alone tells an operator little.
  const stderrTail: string[] = [];
  if (plan.stderr) {
    // Read even when debug is off: an unread pipe fills up and the child blocks on its next write.
    createInterface({ input: plan.stderr }).on('line', (raw) => {
      const line = maskSecrets(raw.slice(0, STDERR_LINE_MAX), plan.secrets);
      log.debug({ line }, 'MCP server stderr');
      if (line.trim()) stderrTail.push(line.trim());
      if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
    });
  }
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  let connected = false;
  let closing: Promise<void> | undefined;
  client.onerror = (err) => log.debug({ reason: maskSecrets(err.message, plan.secrets) }, 'MCP transport error');
  client.onclose = () => {
    if (connected && !closing) log.warn('MCP server closed the connection; its tools fail until the next reload');
  };
  const close = (): Promise<void> =>
    (closing ??= client.close().catch((err: unknown) => {
      log.debug({ reason: maskSecrets(describe(err), plan.secrets) }, 'MCP client did not close cleanly');
    }));

  try {
    const tools = await withinDeadline(
      (async () => {
        await client.connect(plan.transport);
        connected = true;
        // A tool whose schema cannot be converted is dropped; the server's other tools stay.
        return loadMcpTools(name, client, { throwOnLoadError: false, prefixToolNameWithServerName: false });
      })(),
      options.timeoutMs,
    );
    return { ok: true, connection: { server: name, tools, close } };
  } catch (err) {
    await close();
    const tail = stderrTail.length > 0 ? `; stderr: ${stderrTail.join(' | ')}` : '';
    return { ok: false, reason: `${maskSecrets(describe(err), plan.secrets)}${tail}` };
  }
}

/** Never rejects: a server that cannot be used comes back as `{ok: false, reason}`. */
export async function connectMcpServer(name: string, server: McpServer, options: McpConnectOptions): Promise<McpConnectResult> {
  let plan: McpTransportPlan;
  try {
    plan = await planMcpTransport(name, server, options);
  } catch (err) {
    // Only a bug gets here. Its message might quote a resolved value, so it is not passed on.
    return { ok: false, reason: `its transport could not be created (${err instanceof Error ? err.name : typeof err})` };
  }
  return plan.ok ? connectPlanned(name, plan, options) : plan;
}
