// /api/mcp/config: the MCP servers of extensions_config.json, with secrets masked on the way out.
import { Type, type Static } from 'typebox';
import { McpServerSchema } from '../config/extensions.js';

export const McpConfigSchema = Type.Object(
  { mcpServers: Type.Record(Type.String(), McpServerSchema) },
  { additionalProperties: false },
);
export type McpConfig = Static<typeof McpConfigSchema>;
