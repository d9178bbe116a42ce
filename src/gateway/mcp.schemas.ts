// /api/mcp/config: the MCP servers of extensions_config.json as the API shows and takes them.
// Derived from the file's schema with two differences: `type` is any string, so an unknown type
// gets a 422 naming its server rather than a schema message, and the oauth secrets may be null
// (read: "a value is stored"; written: "keep the stored value").
import { Type, type Static } from 'typebox';
import { McpOAuthSchema, McpServerSchema } from '../config/extensions.js';

/**
 * `type: [string, null]` rather than a union: the app's ajv coerces types, and inside an anyOf
 * it would turn null into "" (or "" into null), swapping "keep" and "clear".
 */
const MaskedSecretSchema = Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'] }));

export const McpOAuthBodySchema = Type.Object(
  { ...McpOAuthSchema.properties, client_secret: MaskedSecretSchema, refresh_token: MaskedSecretSchema },
  { additionalProperties: false },
);
export type McpOAuthBody = Static<typeof McpOAuthBodySchema>;

export const McpServerBodySchema = Type.Object(
  { ...McpServerSchema.properties, type: Type.Optional(Type.String()), oauth: Type.Optional(McpOAuthBodySchema) },
  { additionalProperties: false },
);
export type McpServerBody = Static<typeof McpServerBodySchema>;

export const McpConfigSchema = Type.Object(
  { mcpServers: Type.Record(Type.String(), McpServerBodySchema) },
  { additionalProperties: false },
);
export type McpConfig = Static<typeof McpConfigSchema>;
