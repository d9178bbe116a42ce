// /api/mcp/config: read (masked) and replace the MCP server configuration.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, lockedWriteResponses, SuccessSchema } from './common.schemas.js';
import { McpConfigSchema } from './mcp.schemas.js';
import type { McpService } from './mcp.service.js';

const tags = ['mcp'];

export async function mcpRoutes(app: FastifyInstance, deps: { mcp: McpService }): Promise<void> {
  const { mcp } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/mcp/config', { schema: { tags, response: { 200: McpConfigSchema } } }, async () => mcp.get());

  r.put(
    '/mcp/config',
    { config: { admin: true }, schema: { tags, body: McpConfigSchema, response: { 200: SuccessSchema, 403: ErrorSchema, ...lockedWriteResponses } } },
    async (req) => mcp.replace(req.body),
  );
}
