// DeerFlow's GET|PUT|DELETE /api/threads/{thread_id}/goal. The record gate has refused another
// user's thread (404); a free id reads as no goal, and a PUT claims it.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorSchema, errorResponses, ThreadParamsSchema } from './common.schemas.js';
import { GoalAnswerSchema, GoalBodySchema } from './thread-goal.schemas.js';
import type { ThreadGoalService } from './thread-goal.service.js';

const tags = ['threads'];
const response = { 200: GoalAnswerSchema, ...errorResponses, 409: ErrorSchema };

export async function threadGoalRoutes(app: FastifyInstance, deps: { goal: ThreadGoalService }): Promise<void> {
  const { goal } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/threads/:thread_id/goal', { schema: { tags, params: ThreadParamsSchema, response } }, async (req) => goal.get(req.params.thread_id));
  r.put('/threads/:thread_id/goal', { schema: { tags, params: ThreadParamsSchema, body: GoalBodySchema, response } }, async (req) =>
    goal.set(req.params.thread_id, req.body, req.identity),
  );
  r.delete('/threads/:thread_id/goal', { schema: { tags, params: ThreadParamsSchema, response } }, async (req) => goal.clear(req.params.thread_id));
}
