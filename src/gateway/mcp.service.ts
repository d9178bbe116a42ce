// MCP configuration. Reads mask literal env and header values as `***` (a `$NAME` reference is
// shown as written, it is no secret). Writes turn `***` back into the stored value, so a client
// can send back what it read without ever seeing a secret; `$NAME` is stored, never resolved.
import { mcpServerProblem, type McpServer } from '../config/extensions.js';
import { BadRequestError, ValidationError } from '../errors.js';
import type { GatewayDeps } from './gateway-deps.js';
import type { McpConfig } from './mcp.schemas.js';
import type { Success } from './common.schemas.js';

export const MASK = '***';
const ENV_REF = /^\$[A-Za-z_][A-Za-z0-9_]*$/;
const SECRET_FIELDS = ['env', 'headers'] as const;

function mask(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, ENV_REF.test(v) ? v : MASK]));
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
    if (kept === undefined) throw new BadRequestError(`${where}.${key} is "${MASK}" but no value is stored for it: send the real value.`);
    out[key] = kept;
  }
  return out;
}

export function createMcpService(deps: Pick<GatewayDeps, 'extensions' | 'announceExtensionsChanged'>) {
  return {
    async get(): Promise<McpConfig> {
      const { mcpServers } = await deps.extensions.read();
      const masked: Record<string, McpServer> = {};
      for (const [name, server] of Object.entries(mcpServers)) {
        const entry: McpServer = { ...server };
        for (const field of SECRET_FIELDS) {
          const values = server[field];
          if (values) entry[field] = mask(values);
        }
        masked[name] = entry;
      }
      return { mcpServers: masked };
    },

    async replace(body: McpConfig): Promise<Success> {
      for (const [name, server] of Object.entries(body.mcpServers)) {
        const problem = mcpServerProblem(name, server);
        if (problem) throw new ValidationError(`mcpServers: ${problem}.`);
      }
      const count = await deps.extensions.update((config) => {
        const next: Record<string, McpServer> = {};
        for (const [name, server] of Object.entries(body.mcpServers)) {
          const stored = config.mcpServers[name];
          const entry: McpServer = { ...server, enabled: server.enabled ?? true, type: server.type ?? 'stdio' };
          for (const field of SECRET_FIELDS) {
            const values = server[field];
            if (values) entry[field] = unmask(`mcpServers.${name}.${field}`, values, stored?.[field]);
          }
          next[name] = entry;
        }
        config.mcpServers = next;
        return Object.keys(next).length;
      });
      await deps.announceExtensionsChanged();
      return { success: true, message: `MCP configuration saved (${count} server${count === 1 ? '' : 's'}).` };
    },
  };
}
