// DeerFlow's gateway twins of the LangGraph run routes, under /api: a thread's runs (create,
// stream, wait, list, get, cancel, join, stream or cancel-then-stream), the stateless
// /api/runs/stream and /wait, and a run's messages and feedback by run id. Starting, streaming,
// waiting and cancelling go through the same handlers as /api/langgraph's (runtime/run-handlers.ts);
// only DeerFlow's paths, record shape, run options and failed-wait answer differ
// (deerflow-run-profile.ts). The record gate has refused another user's thread or run (404).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { createRunHandlers, type RunHandlerDeps } from '../runtime/run-handlers.js';
import { DEERFLOW_RUN_PROFILE, deerflowRunBody } from './deerflow-run-profile.js';
import { sseResponse, threadRunStartRoutes } from '../runtime/runs.routes.js';
import { RunCreateSchema } from '../runtime/runs.schemas.js';
import { errorResponses, ErrorSchema, ThreadParamsSchema } from './common.schemas.js';
import { DfCancelQuerySchema, DfRunListSchema, DfRunSchema, DfStreamQuerySchema, isOn, RunIdParamsSchema } from './deerflow-runs.schemas.js';
import type { DeerFlowRunsService } from './deerflow-runs.service.js';
import { FeedbackListSchema } from './feedback.schemas.js';
import { MessagesQuerySchema, RunMessagesSchema, RunParamsSchema } from './thread-messages.schemas.js';

const tags = ['runs'];
const accepted = { 202: { description: 'Accepted', type: 'null' as const }, 204: { description: 'No content', type: 'null' as const }, 409: ErrorSchema, ...errorResponses };


export async function deerflowRunRoutes(app: FastifyInstance, deps: RunHandlerDeps & { dfRuns: DeerFlowRunsService }): Promise<void> {
  const { dfRuns } = deps;
  const handle = createRunHandlers(deps, DEERFLOW_RUN_PROFILE);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  // DeerFlow's create is always a background run answered with its record.
  r.post(
    '/threads/:thread_id/runs',
    { schema: { tags, params: ThreadParamsSchema, body: RunCreateSchema, response: { 200: DfRunSchema, 409: ErrorSchema, ...errorResponses } } },
    async (req, reply) => {
      const created = await handle.create(req.identity, reply, req.params.thread_id, req.body);
      return dfRuns.one(created.run.thread_id, created.run);
    },
  );

  threadRunStartRoutes(app, handle);

  r.get('/threads/:thread_id/runs', { schema: { tags, params: ThreadParamsSchema, response: { 200: DfRunListSchema, ...errorResponses } } }, async (req) =>
    dfRuns.list(req.params.thread_id),
  );

  r.get('/threads/:thread_id/runs/:run_id', { schema: { tags, params: RunParamsSchema, response: { 200: DfRunSchema, ...errorResponses } } }, async (req) =>
    dfRuns.get(req.params.thread_id, req.params.run_id),
  );

  r.post(
    '/threads/:thread_id/runs/:run_id/cancel',
    { schema: { tags, params: RunParamsSchema, querystring: DfCancelQuerySchema, response: accepted } },
    async (req, reply) => reply.code(await handle.cancel(req.params.thread_id, req.params.run_id, req.query.action, isOn(req.query.wait))).send(null),
  );

  // DeerFlow's join is the run's SSE stream (LangGraph's answers the final values).
  r.get('/threads/:thread_id/runs/:run_id/join', { schema: { tags, params: RunParamsSchema, response: sseResponse } }, (req, reply) =>
    handle.joinStream(req, reply, req.params.thread_id, req.params.run_id, false),
  );

  // GET joins; POST (the SDK's joinStream and the stop button) with `action` cancels first, and
  // with `wait` answers 204 once the run settled instead of streaming what is left.
  r.route({
    method: ['GET', 'POST'],
    url: '/threads/:thread_id/runs/:run_id/stream',
    schema: { tags, params: RunParamsSchema, querystring: DfStreamQuerySchema, response: { ...sseResponse, 204: accepted[204], 409: ErrorSchema } },
    handler: async (req, reply) => {
      const { thread_id: threadId, run_id: runId } = req.params;
      if (req.query.action !== undefined) {
        const wait = req.query.wait !== 0;
        await handle.cancel(threadId, runId, req.query.action, wait);
        if (wait) return reply.code(204).send(null);
      }
      return handle.joinStream(req, reply, threadId, runId, false);
    },
  });

  // The body is taken as DeerFlow takes it before a thread is claimed for it (the handler's own
  // pass over it then changes nothing).
  r.post('/runs/stream', { schema: { tags, body: RunCreateSchema, response: sseResponse } }, async (req, reply) => {
    const target = await dfRuns.statelessTarget(deerflowRunBody(req.body), req.identity);
    return handle.streamNew(req, reply, target.threadId, target.body);
  });

  r.post('/runs/wait', { schema: { tags, body: RunCreateSchema, response: errorResponses } }, async (req, reply) => {
    const target = await dfRuns.statelessTarget(deerflowRunBody(req.body), req.identity);
    return handle.waitNew(req, reply, target.threadId, target.body);
  });

  r.get(
    '/runs/:run_id/messages',
    { schema: { tags, params: RunIdParamsSchema, querystring: MessagesQuerySchema, response: { 200: RunMessagesSchema, ...errorResponses } } },
    async (req) => dfRuns.runMessages(req.params.run_id, req.query),
  );

  r.get('/runs/:run_id/feedback', { schema: { tags: ['feedback'], params: RunIdParamsSchema, response: { 200: FeedbackListSchema, ...errorResponses } } }, async (req) =>
    dfRuns.runFeedback(req.params.run_id, req.identity),
  );
}
