// DeerFlow's POST /api/threads/{thread_id}/branches (thread-branches.service.ts). The record gate
// has refused another user's thread (404).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses, ThreadParamsSchema } from './common.schemas.js';
import { BranchBodySchema, BranchSchema } from './thread-branches.schemas.js';
import type { ThreadBranchesService } from './thread-branches.service.js';

const tags = ['threads'];

export async function threadBranchRoutes(app: FastifyInstance, deps: { branches: ThreadBranchesService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/threads/:thread_id/branches',
    { schema: { tags, params: ThreadParamsSchema, body: BranchBodySchema, response: { 200: BranchSchema, ...errorResponses, 409: ErrorSchema } } },
    async (req) => deps.branches.branch(req.params.thread_id, req.body, req.identity),
  );
}
