// DeerFlow's /api/threads routes (create, list and search, get, patch, state, history) in its
// shapes; DELETE /api/threads/{id} is threads.routes.ts. GET /api/threads is Warren's: DeerFlow
// lists only through POST /api/threads/search, and the same list answers both.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, ErrorSchema, ThreadParamsSchema } from './common.schemas.js';
import {
  DfHistoryEntrySchema,
  DfHistoryRequestSchema,
  DfStateUpdateSchema,
  DfThreadCreateSchema,
  DfThreadListQuerySchema,
  DfThreadPatchSchema,
  DfThreadSchema,
  DfThreadRowSchema,
  DfThreadSearchSchema,
  DfThreadStateSchema,
} from './deerflow-threads.schemas.js';
import type { DeerFlowThreadsService } from './deerflow-threads.service.js';

const tags = ['threads'];

export async function deerflowThreadRoutes(app: FastifyInstance, deps: { threads: DeerFlowThreadsService }): Promise<void> {
  const { threads } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const list = { 200: Type.Array(DfThreadSchema), ...errorResponses };

  r.post(
    '/threads',
    { schema: { tags, description: 'Creates a thread; an id the caller already has answers that thread.', body: DfThreadCreateSchema, response: { 200: DfThreadSchema, ...errorResponses } } },
    async (req) => threads.create(req.body ?? {}, req.identity),
  );

  r.get('/threads', { schema: { tags, description: "The caller's threads, latest activity first.", querystring: DfThreadListQuerySchema, response: list } }, async (req) =>
    threads.search(req.query, req.identity),
  );

  r.post('/threads/search', { schema: { tags, body: DfThreadSearchSchema, response: { 200: Type.Array(DfThreadRowSchema), ...errorResponses } } }, async (req) =>
    threads.searchSelected(req.body ?? {}, req.identity),
  );

  r.get('/threads/:thread_id', { schema: { tags, params: ThreadParamsSchema, response: { 200: DfThreadSchema, ...errorResponses } } }, async (req) =>
    threads.get(req.params.thread_id),
  );

  r.patch(
    '/threads/:thread_id',
    { schema: { tags, description: "Merges `metadata` into the thread's.", params: ThreadParamsSchema, body: DfThreadPatchSchema, response: { 200: DfThreadSchema, ...errorResponses } } },
    async (req) => threads.patch(req.params.thread_id, req.body ?? {}),
  );

  r.get('/threads/:thread_id/state', { schema: { tags, params: ThreadParamsSchema, response: { 200: DfThreadStateSchema, ...errorResponses } } }, async (req) =>
    threads.state(req.params.thread_id),
  );

  r.post(
    '/threads/:thread_id/state',
    { schema: { tags, params: ThreadParamsSchema, body: DfStateUpdateSchema, response: { 200: DfThreadStateSchema, 409: ErrorSchema, ...errorResponses } } },
    async (req) => threads.updateState(req.params.thread_id, req.body ?? {}),
  );

  r.post(
    '/threads/:thread_id/history',
    { schema: { tags, params: ThreadParamsSchema, body: DfHistoryRequestSchema, response: { 200: Type.Array(DfHistoryEntrySchema), ...errorResponses } } },
    async (req) => threads.history(req.params.thread_id, req.body ?? {}),
  );
}
