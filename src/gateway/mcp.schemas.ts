// /api/mcp/config: the MCP servers of extensions_config.json as the API shows and takes them,
// under our key (`mcpServers`) and DeerFlow's (`mcp_servers`).
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

const McpServersSchema = Type.Record(Type.String(), McpServerBodySchema);

/**
 * What GET (and PATCH) answer: the servers under our name (`mcpServers`, as in
 * extensions_config.json) and under DeerFlow's (`mcp_servers`, which its UI reads): the same object.
 */
export const McpConfigSchema = Type.Object({ mcpServers: McpServersSchema, mcp_servers: McpServersSchema }, { additionalProperties: false });
export type McpConfig = Static<typeof McpConfigSchema>;

/** What a PUT takes: the servers under either name; both, or neither, is a 422 (the service's check). */
export const McpConfigBodySchema = Type.Object(
  { mcpServers: Type.Optional(McpServersSchema), mcp_servers: Type.Optional(McpServersSchema) },
  { additionalProperties: false },
);
export type McpConfigBody = Static<typeof McpConfigBodySchema>;

/** DeerFlow's toggle of one server (PATCH), which its settings page sends. */
export const McpServerStateBodySchema = Type.Object(
  { server_name: Type.String({ minLength: 1, maxLength: 256 }), enabled: Type.Boolean() },
  { additionalProperties: false },
);
export type McpServerStateBody = Static<typeof McpServerStateBodySchema>;
