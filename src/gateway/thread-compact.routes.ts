// DeerFlow's POST /api/threads/{thread_id}/compact (thread-compact.service.ts). The record gate
// has refused another user's thread (404).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses, ThreadParamsSchema } from './common.schemas.js';
import { CompactBodySchema, CompactSchema } from './thread-compact.schemas.js';
import type { ThreadCompactService } from './thread-compact.service.js';

const tags = ['threads'];

export async function threadCompactRoutes(app: FastifyInstance, deps: { compaction: ThreadCompactService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/threads/:thread_id/compact',
    {
      schema: {
        tags,
        params: ThreadParamsSchema,
        body: CompactBodySchema,
        response: { 200: CompactSchema, ...errorResponses, 409: ErrorSchema, 503: ErrorSchema },
      },
    },
    async (req) => deps.compaction.compact(req.params.thread_id, req.body),
  );
}
