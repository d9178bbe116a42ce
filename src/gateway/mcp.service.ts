// MCP configuration. Reads mask literal env and header values as `***` (a `$NAME` reference is
// shown as written, it is no secret) and show a stored oauth client_secret or refresh_token as
// null. Writes turn `***` and null back into the stored value, so a client can send back what
// it read without ever seeing a secret; `$NAME` is stored, never resolved.
// A write is checked whole before anything is stored: the shape of each entry (422) and the
// stdio policy (400). Either failure leaves the file as it was.
import { isDeepStrictEqual } from 'node:util';
import { Value } from 'typebox/value';
import {
  MCP_OAUTH_SECRET_FIELDS,
  mcpServerProblem,
  McpServerTypeSchema,
  type McpOAuth,
  type McpServer,
  type McpServerType,
} from '../config/extensions.js';
import { isEnvRef } from '../config/load-config.js';
import { checkStdioServer } from '../config/mcp-stdio-policy.js';
import type { Success } from './common.schemas.js';
import type { GatewayDeps } from './gateway-deps.js';
import { McpConfigKeyError, McpSecretMissingError, McpServerInvalidError, McpServerNotFoundError, McpStdioRefusedError } from './gateway.errors.js';
import type { McpConfig, McpConfigBody, McpOAuthBody, McpServerBody, McpServerStateBody } from './mcp.schemas.js';

export const MASK = '***';
const SECRET_FIELDS = ['env', 'headers'] as const;

function mask(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, isEnvRef(v) ? v : MASK]));
}

function unmask(
  where: string,
  given: Record<string, string>,
  stored: Record<string, string> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(given)) {
    if (value !== MASK) {
      out[key] = value;
      continue;
    }
    const kept = stored && Object.hasOwn(stored, key) ? stored[key] : undefined;
    if (kept === undefined) throw new McpSecretMissingError(`${where}.${key} is "${MASK}" but no value is stored for it: send the real value.`);
    out[key] = kept;
  }
  return out;
}

/** A stored secret reads as null (even a `$NAME`: the issue asks that these two never show). */
function maskOAuth(oauth: McpOAuth): McpOAuthBody {
  const out: McpOAuthBody = { ...oauth };
  for (const field of MCP_OAUTH_SECRET_FIELDS) {
    if (oauth[field]) out[field] = null;
    else delete out[field];
  }
  return out;
}

/**
 * null keeps the stored value, "" clears it, any other string replaces it. A field left out
 * also keeps it: some JSON serialisers drop null members, and losing a secret that way would
 * only show up later, as a failing token request.
 */
function mergeOAuth(given: McpOAuthBody, stored: McpOAuth | undefined): McpOAuth {
  const { client_secret: _secret, refresh_token: _refresh, ...rest } = given;
  const out: McpOAuth = { ...rest };
  for (const field of MCP_OAUTH_SECRET_FIELDS) {
    const value = given[field];
    const next = value === null || value === undefined ? stored?.[field] : value;
    if (next) out[field] = next;
  }
  return out;
}

const isServerType = (type: string): type is McpServerType => Value.Check(McpServerTypeSchema, type);

function serverType(name: string, type: string | undefined): McpServerType {
  const given = type ?? 'stdio';
  if (isServerType(given)) return given;
  throw new McpServerInvalidError(`mcpServers: server "${name}" has type "${given.slice(0, 40)}", which is not supported (use stdio, http or sse).`);
}

/** The entry to store: defaults filled, secrets restored from `stored`. */
function mergeServer(name: string, server: McpServerBody, stored: McpServer | undefined): McpServer {
  const { oauth, type, ...rest } = server;
  const entry: McpServer = { ...rest, enabled: server.enabled ?? true, type: serverType(name, type) };
  for (const field of SECRET_FIELDS) {
    const values = server[field];
    if (values) entry[field] = unmask(`mcpServers.${name}.${field}`, values, stored?.[field]);
  }
  if (oauth) entry.oauth = mergeOAuth(oauth, stored?.oauth);
  return entry;
}

function maskServer(server: McpServer): McpServerBody {
  const { oauth, ...rest } = server;
  const entry: McpServerBody = { ...rest };
  for (const field of SECRET_FIELDS) {
    const values = server[field];
    if (values) entry[field] = mask(values);
  }
  if (oauth) entry.oauth = maskOAuth(oauth);
  return entry;
}

/**
 * The servers a PUT sends, under one of the two keys. Both keys are taken only when they hold the
 * same servers (a GET answer sent back whole); two different lists are refused, never merged.
 */
function serversOf(body: McpConfigBody): Record<string, McpServerBody> {
  const { mcpServers, mcp_servers: deerflow } = body;
  if (mcpServers && deerflow && !isDeepStrictEqual(mcpServers, deerflow)) {
    throw new McpConfigKeyError('Send the servers under one key, mcpServers or mcp_servers, not both with different servers.');
  }
  const servers = mcpServers ?? deerflow;
  if (!servers) throw new McpConfigKeyError('The servers are missing: send them under mcpServers (or mcp_servers).');
  return servers;
}

type McpDeps = Pick<GatewayDeps, 'extensions' | 'announceExtensionsChanged' | 'stdioPolicy'>;

export function createMcpService(deps: McpDeps) {
  /** Throws the first problem: 422 for a malformed entry, then 400 for a policy breach. */
  async function check(servers: Record<string, McpServer>): Promise<void> {
    for (const [name, server] of Object.entries(servers)) {
      const problem = mcpServerProblem(name, server);
      if (problem) throw new McpServerInvalidError(`mcpServers: ${problem}.`);
    }
    // Disabled entries too: enabling one later must not need a second look.
    for (const [name, server] of Object.entries(servers)) {
      if (server.type !== 'stdio') continue;
      const verdict = await checkStdioServer(name, server, deps.stdioPolicy);
      if (!verdict.ok) throw new McpStdioRefusedError(`mcpServers: ${verdict.reason}.`);
    }
  }

  /** The servers as shown: masked, under both keys. */
  function shown(servers: Record<string, McpServer>): McpConfig {
    const masked = Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, maskServer(server)]));
    return { mcpServers: masked, mcp_servers: masked };
  }

  return {
    async get(): Promise<McpConfig> {
      return shown((await deps.extensions.read()).mcpServers);
    },

    async replace(body: McpConfigBody): Promise<Success> {
      const servers = serversOf(body);
      // Merged inside the update, against what is stored at that moment; a throw writes nothing.
      const count = await deps.extensions.update(async (config) => {
        const next: Record<string, McpServer> = {};
        for (const [name, server] of Object.entries(servers)) next[name] = mergeServer(name, server, config.mcpServers[name]);
        await check(next);
        config.mcpServers = next;
        return Object.keys(next).length;
      });
      await deps.announceExtensionsChanged();
      return { success: true, message: `MCP configuration saved (${count} server${count === 1 ? '' : 's'}).` };
    },

    /** DeerFlow's toggle: one server on or off; the whole masked configuration back. */
    async setEnabled({ server_name: name, enabled }: McpServerStateBody): Promise<McpConfig> {
      const servers = await deps.extensions.update(async (config) => {
        const server = Object.hasOwn(config.mcpServers, name) ? config.mcpServers[name] : undefined;
        if (!server) throw new McpServerNotFoundError(`MCP server '${name}' not found`);
        const next = { ...config.mcpServers, [name]: { ...server, enabled } };
        // Every entry is checked on each write, so enabling one re-checks it against today's policy.
        await check(next);
        config.mcpServers = next;
        return next;
      });
      await deps.announceExtensionsChanged();
      return shown(servers);
    },
  };
}

export type McpService = ReturnType<typeof createMcpService>;
