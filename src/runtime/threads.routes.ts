// /api/langgraph/threads: threads, their state and their history.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, noContentResponses, ThreadParamsSchema } from './common.schemas.js';
import type { StateService } from './state.service.js';
import {
  HistoryBodySchema,
  HistoryQuerySchema,
  StateCheckpointBodySchema,
  StateCheckpointParamsSchema,
  StateQuerySchema,
  StateUpdateResultSchema,
  StateUpdateSchema,
  ThreadCountSchema,
  ThreadCreateSchema,
  ThreadPatchSchema,
  ThreadSchema,
  ThreadSearchSchema,
  ThreadStateSchema,
} from './threads.schemas.js';
import type { ThreadsService } from './threads.service.js';

const tags = ['threads'];

export interface ThreadRoutesDeps {
  threads: ThreadsService;
  state: StateService;
}

export async function threadRoutes(app: FastifyInstance, deps: ThreadRoutesDeps): Promise<void> {
  const { threads, state } = deps;
  const r = app.withTypeProvider<import('@fastify/type-provider-typebox').TypeBoxTypeProvider>();

  r.post('/threads', { schema: { tags, body: ThreadCreateSchema, response: { 200: ThreadSchema, ...errorResponses } } }, (req) =>
    threads.create(req.body ?? {}, req.identity),
  );

  r.post(
    '/threads/search',
    { schema: { tags, body: ThreadSearchSchema, response: { 200: Type.Array(Type.Partial(ThreadSchema)), ...errorResponses } } },
    async (req, reply) => {
      const { threads: found, total } = await threads.search(req.body, req.identity);
      void reply.header('X-Pagination-Total', String(total));
      if (req.body.offset + found.length < total) void reply.header('X-Pagination-Next', String(req.body.offset + found.length));
      return found;
    },
  );

  r.get('/threads/:thread_id', { schema: { tags, params: ThreadParamsSchema, response: { 200: ThreadSchema, ...errorResponses } } }, (req) =>
    threads.get(req.params.thread_id),
  );

  r.patch(
    '/threads/:thread_id',
    { schema: { tags, params: ThreadParamsSchema, body: ThreadPatchSchema, response: { 200: ThreadSchema, ...errorResponses } } },
    (req) => threads.patch(req.params.thread_id, req.body ?? {}),
  );

  r.post('/threads/count', { schema: { tags, body: ThreadCountSchema, response: { 200: Type.Integer(), ...errorResponses } } }, (req) =>
    threads.count(req.body ?? {}, req.identity),
  );

  r.post('/threads/:thread_id/copy', { schema: { tags, params: ThreadParamsSchema, response: { 200: ThreadSchema, ...errorResponses } } }, (req) =>
    threads.copy(req.params.thread_id, req.identity),
  );

  r.delete('/threads/:thread_id', { schema: { tags, params: ThreadParamsSchema, response: { ...noContentResponses, ...errorResponses } } }, async (req, reply) => {
    await threads.remove(req.params.thread_id);
    return reply.code(204).send(null);
  });

  r.get(
    '/threads/:thread_id/state',
    { schema: { tags, params: ThreadParamsSchema, querystring: StateQuerySchema, response: { 200: ThreadStateSchema, ...errorResponses } } },
    (req) => state.get(req.params.thread_id, { subgraphs: req.query.subgraphs ?? false }),
  );

  r.post(
    '/threads/:thread_id/state',
    { schema: { tags, params: ThreadParamsSchema, body: StateUpdateSchema, response: { 200: StateUpdateResultSchema, ...errorResponses } } },
    (req) => state.update(req.params.thread_id, req.body ?? {}),
  );

  r.get(
    '/threads/:thread_id/state/:checkpoint_id',
    {
      schema: {
        tags,
        params: StateCheckpointParamsSchema,
        querystring: StateQuerySchema,
        response: { 200: ThreadStateSchema, ...errorResponses },
      },
    },
    (req) =>
      state.get(req.params.thread_id, { subgraphs: req.query.subgraphs ?? false, checkpoint: { checkpoint_id: req.params.checkpoint_id } }),
  );

  r.post(
    '/threads/:thread_id/state/checkpoint',
    { schema: { tags, params: ThreadParamsSchema, body: StateCheckpointBodySchema, response: { 200: ThreadStateSchema, ...errorResponses } } },
    (req) => state.get(req.params.thread_id, { subgraphs: req.body.subgraphs ?? false, checkpoint: req.body.checkpoint }),
  );

  r.post(
    '/threads/:thread_id/history',
    { schema: { tags, params: ThreadParamsSchema, body: HistoryBodySchema, response: { 200: Type.Array(ThreadStateSchema), ...errorResponses } } },
    (req) => state.history(req.params.thread_id, req.body ?? { limit: 10 }),
  );

  r.get(
    '/threads/:thread_id/history',
    { schema: { tags, params: ThreadParamsSchema, querystring: HistoryQuerySchema, response: { 200: Type.Array(ThreadStateSchema), ...errorResponses } } },
    (req) => state.history(req.params.thread_id, { limit: req.query.limit, ...(req.query.before ? { before: req.query.before } : {}) }),
  );
}
