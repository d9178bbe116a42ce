// /api/threads/{thread_id}/mcp-tasks, in DeerFlow's shapes. Warren runs no MCP background tasks,
// so the list is always empty; the item shape is declared for the OpenAPI document and for the
// day it is not.
import { Type, type Static } from 'typebox';
import { ThreadParamsSchema } from './common.schemas.js';

export const McpTaskListQuerySchema = Type.Object(
  { limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }) },
  { additionalProperties: false },
);
export type McpTaskListQuery = Static<typeof McpTaskListQuerySchema>;

export const McpTaskParamsSchema = Type.Object({
  thread_id: ThreadParamsSchema.properties.thread_id,
  task_id: Type.String({ minLength: 1, maxLength: 256 }),
});
export type McpTaskParams = Static<typeof McpTaskParamsSchema>;

export const McpTaskSchema = Type.Object({
  task_id: Type.String(),
  task_name: Type.String(),
  status: Type.Union([
    Type.Literal('submitted'),
    Type.Literal('working'),
    Type.Literal('input_required'),
    Type.Literal('completed'),
    Type.Literal('failed'),
    Type.Literal('cancelled'),
  ]),
  created_at: Type.String(),
  updated_at: Type.String(),
  error: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
  tracking_degraded: Type.Boolean(),
  cancel_requested: Type.Boolean(),
});
export type McpTask = Static<typeof McpTaskSchema>;

export const McpTaskListSchema = Type.Array(McpTaskSchema);
