// DeerFlow's run feedback: /api/threads/{thread_id}/runs/{run_id}/feedback (POST, PUT, GET,
// DELETE), …/feedback/stats and …/feedback/{feedback_id}. The record gate has refused another
// user's thread or run (404).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from './common.schemas.js';
import {
  DeletedSchema,
  FeedbackCreateSchema,
  FeedbackIdParamsSchema,
  FeedbackListSchema,
  FeedbackParamsSchema,
  FeedbackSchema,
  FeedbackStatsSchema,
  FeedbackUpsertSchema,
} from './feedback.schemas.js';
import type { FeedbackService } from './feedback.service.js';

const tags = ['feedback'];
const path = '/threads/:thread_id/runs/:run_id/feedback';

export async function feedbackRoutes(app: FastifyInstance, deps: { feedback: FeedbackService }): Promise<void> {
  const { feedback } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(path, { schema: { tags, params: FeedbackParamsSchema, body: FeedbackCreateSchema, response: { 200: FeedbackSchema, ...errorResponses } } }, async (req) =>
    feedback.create(req.params.thread_id, req.params.run_id, req.body, req.identity),
  );
  r.put(path, { schema: { tags, params: FeedbackParamsSchema, body: FeedbackUpsertSchema, response: { 200: FeedbackSchema, ...errorResponses } } }, async (req) =>
    feedback.upsert(req.params.thread_id, req.params.run_id, req.body, req.identity),
  );
  r.get(path, { schema: { tags, params: FeedbackParamsSchema, response: { 200: FeedbackListSchema, ...errorResponses } } }, async (req) =>
    feedback.list(req.params.thread_id, req.params.run_id, req.identity),
  );
  r.delete(path, { schema: { tags, params: FeedbackParamsSchema, response: { 200: DeletedSchema, ...errorResponses } } }, async (req) =>
    feedback.removeMine(req.params.thread_id, req.params.run_id, req.identity),
  );
  r.get(`${path}/stats`, { schema: { tags, params: FeedbackParamsSchema, response: { 200: FeedbackStatsSchema, ...errorResponses } } }, async (req) =>
    feedback.stats(req.params.thread_id, req.params.run_id),
  );
  r.delete(`${path}/:feedback_id`, { schema: { tags, params: FeedbackIdParamsSchema, response: { 200: DeletedSchema, ...errorResponses } } }, async (req) =>
    feedback.remove(req.params.thread_id, req.params.run_id, req.params.feedback_id, req.identity),
  );
}
