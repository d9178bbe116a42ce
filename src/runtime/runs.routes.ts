// /api/langgraph runs: create (SSE, background or wait), list, get, cancel, join, join stream,
// delete; the stateless /runs/stream, /runs/wait and /runs/batch; and bulk /runs/cancel.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorResponses, noContentResponses, RunParamsSchema, ThreadParamsSchema } from './common.schemas.js';
import { createRunHandlers, LANGGRAPH_PROFILE, type RunHandlerDeps, type RunHandlers } from './run-handlers.js';
import {
  CancelManyQuerySchema,
  CancelQuerySchema,
  isTrue,
  JoinQuerySchema,
  RunBatchResultSchema,
  RunBatchSchema,
  RunCancelManySchema,
  RunCreateSchema,
  RunListQuerySchema,
  RunListSchema,
  RunSchema,
  StatelessRunParamsSchema,
} from './runs.schemas.js';
import { publicRun } from '../store/runs.js';

const tags = ['runs'];

export const sseResponse = { 200: { description: 'Server-Sent Events: metadata, one event per chunk, end.', type: 'string' as const }, ...errorResponses };

const wantsJson = (req: FastifyRequest) => {
  const accept = req.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/event-stream');
};

export type RunRoutesDeps = RunHandlerDeps;

/** POST /threads/{id}/runs/stream and /wait: the same in LangGraph's API and DeerFlow's gateway. */
export function threadRunStartRoutes(app: FastifyInstance, handle: RunHandlers): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/threads/:thread_id/runs/stream',
    { schema: { tags, params: ThreadParamsSchema, body: RunCreateSchema, response: sseResponse } },
    (req, reply) => handle.streamNew(req, reply, req.params.thread_id, req.body),
  );
  r.post(
    '/threads/:thread_id/runs/wait',
    { schema: { tags, params: ThreadParamsSchema, body: RunCreateSchema, response: errorResponses } },
    (req, reply) => handle.waitNew(req, reply, req.params.thread_id, req.body),
  );
}

export async function runRoutes(app: FastifyInstance, deps: RunRoutesDeps): Promise<void> {
  const { runs } = deps;
  const handle = createRunHandlers(deps, LANGGRAPH_PROFILE);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  // Endpoint 3: SSE as the spec says; with `Accept: application/json`, a background run.
  r.post(
    '/threads/:thread_id/runs',
    { schema: { tags, params: ThreadParamsSchema, body: RunCreateSchema, response: { ...sseResponse, 200: RunSchema } } },
    async (req, reply) => {
      if (!wantsJson(req)) return handle.streamNew(req, reply, req.params.thread_id, req.body);
      return publicRun((await handle.create(req.identity, reply, req.params.thread_id, req.body)).run);
    },
  );

  // Endpoint 5. The WebSocket on the same path is registered in runs.ws.ts.
  threadRunStartRoutes(app, handle);

  r.post('/runs/stream', { schema: { tags, body: RunCreateSchema, response: sseResponse } }, (req, reply) =>
    handle.streamNew(req, reply, null, req.body),
  );

  r.post('/runs/wait', { schema: { tags, body: RunCreateSchema, response: errorResponses } }, (req, reply) =>
    handle.waitNew(req, reply, null, req.body),
  );

  r.post('/runs', { schema: { tags, body: RunCreateSchema, response: { 200: RunSchema, ...errorResponses } } }, async (req, reply) =>
    publicRun((await handle.create(req.identity, reply, null, req.body)).run),
  );

  r.post('/runs/batch', { schema: { tags, body: RunBatchSchema, response: { 200: RunBatchResultSchema, ...errorResponses } } }, async (req) =>
    (await runs.createBatch(req.body, req.identity)).map(publicRun),
  );

  // Bulk cancel, LangGraph's shape: `{thread_id, run_ids}` or `{status}`, `?action=` as for one run.
  r.post(
    '/runs/cancel',
    { schema: { tags, body: RunCancelManySchema, querystring: CancelManyQuerySchema, response: { ...noContentResponses, ...errorResponses } } },
    async (req, reply) => {
      await handle.cancelMany(req.body, req.identity, req.query.action);
      return reply.code(204).send(null);
    },
  );

  r.get(
    '/threads/:thread_id/runs',
    { schema: { tags, params: ThreadParamsSchema, querystring: RunListQuerySchema, response: { 200: RunListSchema, ...errorResponses } } },
    async (req) => ({ runs: await runs.list(req.params.thread_id, req.query) }),
  );

  r.get('/threads/:thread_id/runs/:run_id', { schema: { tags, params: RunParamsSchema, response: { 200: RunSchema, ...errorResponses } } }, (req) =>
    runs.get(req.params.thread_id, req.params.run_id),
  );

  r.delete('/threads/:thread_id/runs/:run_id', { schema: { tags, params: RunParamsSchema, response: { ...noContentResponses, ...errorResponses } } }, async (req, reply) => {
    await runs.remove(req.params.thread_id, req.params.run_id);
    return reply.code(204).send(null);
  });

  r.post(
    '/threads/:thread_id/runs/:run_id/cancel',
    { schema: { tags, params: RunParamsSchema, querystring: CancelQuerySchema, response: { ...noContentResponses, ...errorResponses } } },
    async (req, reply) => {
      const status = await handle.cancel(req.params.thread_id, req.params.run_id, req.query.action, isTrue(req.query.wait));
      return reply.code(status).send(null);
    },
  );

  r.get(
    '/threads/:thread_id/runs/:run_id/join',
    { schema: { tags, params: RunParamsSchema, querystring: JoinQuerySchema, response: errorResponses } },
    (req, reply) => handle.joinResult(reply, req.params.thread_id, req.params.run_id, isTrue(req.query.cancel_on_disconnect)),
  );

  r.get(
    '/threads/:thread_id/runs/:run_id/stream',
    { schema: { tags, params: RunParamsSchema, querystring: JoinQuerySchema, response: sseResponse } },
    (req, reply) => handle.joinStream(req, reply, req.params.thread_id, req.params.run_id, isTrue(req.query.cancel_on_disconnect)),
  );

  r.get(
    '/runs/:run_id/stream',
    { schema: { tags, params: StatelessRunParamsSchema, querystring: JoinQuerySchema, response: sseResponse } },
    async (req, reply) => handle.joinStream(req, reply, await runs.threadOf(req.params.run_id), req.params.run_id, isTrue(req.query.cancel_on_disconnect)),
  );
}
