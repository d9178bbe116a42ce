// /api/scheduled-tasks: DeerFlow's scheduled tasks, which are Warren's crons (scheduled-tasks.service.ts).
// The task's path parameter is `cron_id`, so the record gate answers 404 for another user's.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses, ThreadParamsSchema } from '../gateway/common.schemas.js';
import {
  ScheduledTaskCreateSchema,
  ScheduledTaskListSchema,
  ScheduledTaskPatchSchema,
  ScheduledTaskRunListSchema,
  ScheduledTaskSchema,
  TaskDeletedSchema,
  TaskParamsSchema,
  TaskRunsQuerySchema,
  TaskTriggeredSchema,
} from './scheduled-tasks.schemas.js';
import type { ScheduledTasksService } from './scheduled-tasks.service.js';

const tags = ['scheduled tasks'];
const task = { 200: ScheduledTaskSchema, ...errorResponses };
const list = { 200: ScheduledTaskListSchema, ...errorResponses };
const params = TaskParamsSchema;

export async function scheduledTaskRoutes(app: FastifyInstance, deps: { tasks: ScheduledTasksService }): Promise<void> {
  const { tasks } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/scheduled-tasks', { schema: { tags, response: list } }, (req) => tasks.list(req.identity));
  r.post('/scheduled-tasks', { schema: { tags, body: ScheduledTaskCreateSchema, response: task } }, (req) => tasks.create(req.body, req.identity));
  r.get('/scheduled-tasks/:cron_id', { schema: { tags, params, response: task } }, (req) => tasks.get(req.params.cron_id));
  r.patch('/scheduled-tasks/:cron_id', { schema: { tags, params, body: ScheduledTaskPatchSchema, response: task } }, (req) =>
    tasks.update(req.params.cron_id, req.body, req.identity),
  );
  r.delete('/scheduled-tasks/:cron_id', { schema: { tags, params, response: { 200: TaskDeletedSchema, ...errorResponses } } }, (req) => tasks.remove(req.params.cron_id));
  r.post('/scheduled-tasks/:cron_id/pause', { schema: { tags, params, response: task } }, (req) => tasks.pause(req.params.cron_id, req.identity));
  r.post('/scheduled-tasks/:cron_id/resume', { schema: { tags, params, response: task } }, (req) => tasks.resume(req.params.cron_id, req.identity));
  r.post('/scheduled-tasks/:cron_id/trigger', { schema: { tags, params, response: { 200: TaskTriggeredSchema, ...errorResponses, 409: ErrorSchema } } }, (req) =>
    tasks.trigger(req.params.cron_id),
  );
  r.get('/scheduled-tasks/:cron_id/runs', { schema: { tags, params, querystring: TaskRunsQuerySchema, response: { 200: ScheduledTaskRunListSchema, ...errorResponses } } }, (req) =>
    tasks.runs(req.params.cron_id, req.query),
  );
  r.get('/threads/:thread_id/scheduled-tasks', { schema: { tags, params: ThreadParamsSchema, response: list } }, (req) => tasks.listForThread(req.params.thread_id, req.identity));
}
