// /api/threads/{thread_id}/mcp-tasks: DeerFlow's MCP background tasks of a thread. Warren has no
// task runtime (GET /api/features says `mcp_tasks: false`, and the UI then never asks), so it
// answers as DeerFlow does with the runtime off: no tasks in the list, and no task by any id.
// The record gate has already refused another user's thread (404), as on every thread route.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses, ThreadParamsSchema } from './common.schemas.js';
import { McpTaskNotFoundError } from './gateway.errors.js';
import { McpTaskListQuerySchema, McpTaskListSchema, McpTaskParamsSchema, McpTaskSchema, type McpTask } from './mcp-tasks.schemas.js';

const tags = ['mcp-tasks'];
const notFound = async (): Promise<never> => {
  throw new McpTaskNotFoundError('MCP task not found');
};

export async function mcpTaskRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/threads/:thread_id/mcp-tasks',
    { schema: { tags, params: ThreadParamsSchema, querystring: McpTaskListQuerySchema, response: { 200: McpTaskListSchema, ...errorResponses } } },
    async (): Promise<McpTask[]> => [],
  );
  r.get('/threads/:thread_id/mcp-tasks/:task_id', { schema: { tags, params: McpTaskParamsSchema, response: { 200: McpTaskSchema, ...errorResponses } } }, notFound);
  r.post('/threads/:thread_id/mcp-tasks/:task_id/cancel', { schema: { tags, params: McpTaskParamsSchema, response: { 200: McpTaskSchema, ...errorResponses } } }, notFound);
}
