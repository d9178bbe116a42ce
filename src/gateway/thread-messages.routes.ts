// DeerFlow's conversation history, read from the thread's checkpoints (thread-messages.service.ts):
// GET /api/threads/{thread_id}/messages, …/messages/page, and per run …/messages, …/events and
// …/workspace-changes. The record gate answers 404 for another user's thread or run.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses, ThreadParamsSchema } from './common.schemas.js';
import {
  MessageRowsSchema,
  MessagesPageQuerySchema,
  MessagesPageSchema,
  MessagesQuerySchema,
  RunEventsQuerySchema,
  RunMessagesSchema,
  RunParamsSchema,
  WorkspaceChangesQuerySchema,
  WorkspaceChangesSchema,
} from './thread-messages.schemas.js';
import type { ThreadMessagesService } from './thread-messages.service.js';

const tags = ['threads'];

export async function threadMessagesRoutes(app: FastifyInstance, deps: { history: ThreadMessagesService }): Promise<void> {
  const { history } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/threads/:thread_id/messages',
    { schema: { tags, params: ThreadParamsSchema, querystring: MessagesQuerySchema, response: { 200: MessageRowsSchema, ...errorResponses } } },
    async (req) => history.list(req.params.thread_id, req.query, req.identity),
  );

  r.get(
    '/threads/:thread_id/messages/page',
    { schema: { tags, params: ThreadParamsSchema, querystring: MessagesPageQuerySchema, response: { 200: MessagesPageSchema, ...errorResponses } } },
    async (req) => history.page(req.params.thread_id, req.query, req.identity),
  );

  r.get(
    '/threads/:thread_id/runs/:run_id/messages',
    { schema: { tags, params: RunParamsSchema, querystring: MessagesQuerySchema, response: { 200: RunMessagesSchema, ...errorResponses } } },
    async (req) => history.ofRun(req.params.thread_id, req.params.run_id, req.query),
  );

  r.get(
    '/threads/:thread_id/runs/:run_id/events',
    { schema: { tags, params: RunParamsSchema, querystring: RunEventsQuerySchema, response: { 200: MessageRowsSchema, ...errorResponses } } },
    async (req) => history.eventsOfRun(req.params.thread_id, req.params.run_id, req.query),
  );

  r.get(
    '/threads/:thread_id/runs/:run_id/workspace-changes',
    { schema: { tags, params: RunParamsSchema, querystring: WorkspaceChangesQuerySchema, response: { 200: WorkspaceChangesSchema, ...errorResponses } } },
    async (req) => history.workspaceChanges(req.params.thread_id, req.params.run_id, req.query),
  );
}
