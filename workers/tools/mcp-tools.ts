// The MCP tools of one worker: every enabled server of extensions_config.json, connected once and
// cached until the configuration changes. Servers connect in parallel and each one on its own
// deadline, so a server that fails, hangs or is misconfigured is logged and left out while the
// others load; tools() never fails because of one server.
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { Logger } from 'pino';
import { readExtensionsConfig, type ExtensionsConfig, type McpServer } from '../../src/config/extensions.js';
import { DEFAULT_STDIO_ALLOWED_COMMANDS } from '../../src/config/mcp-stdio-policy.js';
import { connectMcpServer, type McpConnectResult, type McpConnection } from './mcp-connect.js';
import type { HttpAuthSource } from './mcp-http-auth.js';
import { claimMcpToolName } from './mcp-names.js';

export interface McpToolset {
  /** The cached tools, named `<server>_<tool>`; the first call loads them, and concurrent callers share that load. */
  tools(): Promise<StructuredToolInterface[]>;
  /** Re-reads the file, connects anew, swaps, then closes the old connections. Never rejects. */
  reload(): Promise<void>;
  /** Closes every connection (stdio children exit). Idempotent; later tools() calls return []. */
  close(): Promise<void>;
}

export interface McpToolsetOptions {
  extensionsConfigPath: string;
  log: Logger;
  /**
   * Where `$NAME` references and the stdio base variables are read.
   * @defaultValue process.env
   */
  env?: NodeJS.ProcessEnv;
  /**
   * How long one server may take to start, connect and list its tools.
   * @defaultValue 30_000 (an `npx` server may download its package on first start)
   */
  connectTimeoutMs?: number;
  /** Authorization for an http or sse server, or undefined for none (mcp-oauth.ts provides one). */
  httpAuth?: (serverName: string, server: McpServer) => HttpAuthSource | undefined;
  /**
   * Commands a stdio server may start (config.yaml `mcp.stdio_allowed_commands`).
   * @defaultValue DEFAULT_STDIO_ALLOWED_COMMANDS (npx, uvx, node)
   */
  stdioAllowedCommands?: readonly string[];
  /** Let http/sse servers be on loopback or private networks (config.yaml `mcp.allow_private_networks`). */
  allowPrivateNetworks?: boolean;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

interface LoadedSet {
  readonly tools: StructuredToolInterface[];
  readonly connections: McpConnection[];
}

const EMPTY: LoadedSet = { tools: [], connections: [] };

// JSON.parse quotes a snippet of the file, which may hold env or header values; the message is
// cut at its first quote, so the file and the kind of fault remain but no quoted content does.
const beforeQuotes = (message: string): string => message.replace(/["'`].*$/s, '…');

export function createMcpToolset(options: McpToolsetOptions): McpToolset {
  const { extensionsConfigPath, log } = options;
  const env = options.env ?? process.env;
  const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const stdioAllowedCommands = options.stdioAllowedCommands ?? DEFAULT_STDIO_ALLOWED_COMMANDS;

  /** The cached set (or its load in progress); undefined until first used. */
  let active: Promise<LoadedSet> | undefined;
  /** The last reload in the chain; reloads run one at a time. */
  let running: Promise<void> = Promise.resolve();
  /** A reload that waits for the one running; later requests join it, since it reads the file when it starts. */
  let queued: Promise<void> | undefined;
  let closing: Promise<void> | undefined;

  async function readConfig(): Promise<ExtensionsConfig | null> {
    try {
      return await readExtensionsConfig(extensionsConfigPath);
    } catch (err) {
      const reason = beforeQuotes(err instanceof Error ? err.message : String(err));
      log.error({ reason }, 'extensions config unreadable; MCP tools left as they were');
      return null;
    }
  }

  async function connectOne(name: string, server: McpServer): Promise<McpConnectResult> {
    let auth: HttpAuthSource | undefined;
    try {
      auth = options.httpAuth?.(name, server);
    } catch (err) {
      // The auth source is the caller's code; its failure costs this server only.
      return { ok: false, reason: `its auth source failed (${err instanceof Error ? err.name : typeof err})` };
    }
    return connectMcpServer(name, server, {
      env,
      timeoutMs,
      stdioAllowedCommands,
      allowPrivateNetworks: options.allowPrivateNetworks ?? false,
      log: log.child({ mcp_server: name }),
      auth,
    });
  }

  async function connectAll(config: ExtensionsConfig): Promise<LoadedSet> {
    const started = Date.now();
    const entries = Object.entries(config.mcpServers).filter(([name, server]) => {
      if (server.enabled !== false) return true;
      log.debug({ mcp_server: name }, 'MCP server disabled');
      return false;
    });
    const results = await Promise.all(entries.map(([name, server]) => connectOne(name, server)));
    // Names are claimed in config order, so every worker gives the same tool the same name.
    const taken = new Set<string>();
    const tools: StructuredToolInterface[] = [];
    const connections: McpConnection[] = [];
    results.forEach((result, i) => {
      const name = entries[i]?.[0] ?? '';
      if (!result.ok) {
        log.warn({ mcp_server: name, reason: result.reason }, 'MCP server skipped');
        return;
      }
      connections.push(result.connection);
      for (const tool of result.connection.tools) {
        const claimed = claimMcpToolName(name, tool.name, taken);
        if (claimed === null) {
          log.warn({ mcp_server: name, mcp_tool: tool.name }, 'MCP tool skipped: its name collides with another tool');
          continue;
        }
        tool.name = claimed;
        tools.push(tool);
      }
    });
    log.info(
      { mcp_servers: connections.length, mcp_skipped: entries.length - connections.length, mcp_tools: tools.length, load_ms: Date.now() - started },
      'MCP tools loaded',
    );
    return { tools, connections };
  }

  async function closeSet(set: LoadedSet): Promise<void> {
    await Promise.all(set.connections.map((connection) => connection.close()));
  }

  async function load(): Promise<LoadedSet> {
    const config = await readConfig();
    return config ? connectAll(config) : EMPTY;
  }

  async function swap(): Promise<void> {
    // Nothing loaded yet: the first tools() call reads the file as it is then.
    if (closing || !active) return;
    const config = await readConfig();
    if (!config) return;
    const next = await connectAll(config);
    // Taken only now, so a set that tools() started meanwhile is the one replaced and closed.
    const previous = active;
    active = Promise.resolve(next);
    // Callers that already hold old tools see their calls fail as tool errors from here on.
    if (previous) await closeSet(await previous);
  }

  return {
    async tools() {
      if (closing) return [];
      active ??= load();
      return [...(await active).tools];
    },

    reload() {
      if (closing) return Promise.resolve();
      if (queued) return queued;
      const step = running.then(async () => {
        queued = undefined;
        try {
          await swap();
        } catch (err) {
          // Only a bug gets here; the chain must survive it, or no reload would ever run again.
          log.error({ reason: beforeQuotes(err instanceof Error ? err.message : String(err)) }, 'MCP reload failed');
        }
      });
      queued = step;
      running = step;
      return step;
    },

    close() {
      closing ??= (async () => {
        await running;
        const last = active;
        active = undefined;
        if (last) await closeSet(await last);
      })();
      return closing;
    },
  };
}
