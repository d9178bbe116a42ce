// Tool names the model sees for MCP tools: `<server>_<tool>`. Model APIs accept only
// `^[a-zA-Z0-9_-]{1,64}$`, while MCP allows any string, so names are sanitised and, when too
// long or already taken, shortened with a hash of the original pair. The hash keeps the name the
// same on every worker and across reloads, so a thread's history stays valid.
import { createHash } from 'node:crypto';

export const TOOL_NAME_MAX = 64;
const HASH_LENGTH = 8;
const NOT_ALLOWED = /[^A-Za-z0-9_-]/g;

function hashed(plain: string, server: string, tool: string): string {
  // The separator cannot occur in a server name, so ("a_b", "c") and ("a", "b_c") hash apart.
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, HASH_LENGTH);
  return `${plain.slice(0, TOOL_NAME_MAX - HASH_LENGTH - 1)}_${hash}`;
}

/** The preferred name of `tool` on `server`: sanitised, and hashed only when over the limit. */
export function mcpToolName(server: string, tool: string): string {
  const plain = `${server}_${tool}`.replace(NOT_ALLOWED, '_');
  return plain.length <= TOOL_NAME_MAX ? plain : hashed(plain, server, tool);
}

/**
 * A name not yet in `taken` (which it joins), or null when even the hashed form is taken.
 * The first tool to claim a name keeps it; later ones fall back to the hashed form.
 */
export function claimMcpToolName(server: string, tool: string, taken: Set<string>): string | null {
  const preferred = mcpToolName(server, tool);
  const name = taken.has(preferred) ? hashed(preferred, server, tool) : preferred;
  if (taken.has(name)) return null;
  taken.add(name);
  return name;
}
