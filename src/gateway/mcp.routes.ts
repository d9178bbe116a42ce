// /api/mcp/config: read (masked), replace, and switch one server on or off (DeerFlow's PATCH).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, lockedWriteResponses, SuccessSchema } from './common.schemas.js';
import { McpConfigBodySchema, McpConfigSchema, McpServerStateBodySchema } from './mcp.schemas.js';
import type { McpService } from './mcp.service.js';

const tags = ['mcp'];

export async function mcpRoutes(app: FastifyInstance, deps: { mcp: McpService }): Promise<void> {
  const { mcp } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/mcp/config', { schema: { tags, response: { 200: McpConfigSchema } } }, async () => mcp.get());

  r.put(
    '/mcp/config',
    { config: { admin: true }, schema: { tags, body: McpConfigBodySchema, response: { 200: SuccessSchema, 403: ErrorSchema, ...lockedWriteResponses } } },
    async (req) => mcp.replace(req.body),
  );

  r.patch(
    '/mcp/config',
    { config: { admin: true }, schema: { tags, body: McpServerStateBodySchema, response: { 200: McpConfigSchema, 403: ErrorSchema, ...lockedWriteResponses } } },
    async (req) => mcp.setEnabled(req.body),
  );
}
