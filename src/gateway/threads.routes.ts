// DELETE /api/threads/{thread_id}: removes the thread's local files. A failure answers a fixed
// 500 body (the spec's), and the error goes to the log only.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, SuccessSchema, ThreadParamsSchema } from './common.schemas.js';
import type { ThreadCleanupService } from './threads.service.js';

const tags = ['threads'];
export const CLEANUP_FAILED = 'Failed to delete local thread data.';

export async function threadCleanupRoutes(app: FastifyInstance, deps: { cleanup: ThreadCleanupService }): Promise<void> {
  const { cleanup } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.delete(
    '/threads/:thread_id',
    { schema: { tags, params: ThreadParamsSchema, response: { 200: SuccessSchema, 422: ErrorSchema, 500: ErrorSchema } } },
    async (req, reply) => {
      try {
        return await cleanup.remove(req.params.thread_id);
      } catch (err) {
        req.log.error({ err, thread_id: req.params.thread_id }, 'thread cleanup failed');
        return reply.code(500).send({ detail: CLEANUP_FAILED });
      }
    },
  );
}
