// DELETE /api/threads/{thread_id}: removes the thread's local files, and its records when it has
// any. A failure answers a fixed 500 body (the spec's), and the error goes to the log only.
// GET /api/threads/{thread_id}/token-usage: the tokens the thread's runs used, by model.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses, SuccessSchema, ThreadParamsSchema } from './common.schemas.js';
import type { ThreadCleanupService } from './threads.service.js';
import { ThreadTokenUsageSchema } from './token-usage.schemas.js';
import type { TokenUsageService } from './token-usage.service.js';

const tags = ['threads'];
export const CLEANUP_FAILED = 'Failed to delete local thread data.';

export async function threadCleanupRoutes(app: FastifyInstance, deps: { cleanup: ThreadCleanupService; tokenUsage: TokenUsageService }): Promise<void> {
  const { cleanup, tokenUsage } = deps;
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

  r.get(
    '/threads/:thread_id/token-usage',
    { schema: { tags, params: ThreadParamsSchema, response: { 200: ThreadTokenUsageSchema, ...errorResponses } } },
    async (req) => tokenUsage.ofThread(req.params.thread_id),
  );
}
