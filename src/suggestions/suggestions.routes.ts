// /api/threads/{thread_id}/suggestions: follow-up questions for the UI; /api/suggestions/config: whether it asks.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses, ThreadParamsSchema } from '../gateway/common.schemas.js';
import { SuggestionsBodySchema, SuggestionsSchema, SuggestionsSettingsSchema } from './suggestions.schemas.js';
import type { SuggestionsService } from './suggestions.service.js';

const tags = ['suggestions'];

export async function suggestionRoutes(app: FastifyInstance, deps: { suggestions: SuggestionsService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/suggestions/config',
    { schema: { tags, description: 'Whether the UI offers follow-up questions, and at most how many.', response: { 200: SuggestionsSettingsSchema } } },
    async () => deps.suggestions.settings(),
  );
  r.post(
    '/threads/:thread_id/suggestions',
    {
      schema: {
        tags,
        description: 'Follow-up questions from the model; an empty list when none could be made in time.',
        params: ThreadParamsSchema,
        body: SuggestionsBodySchema,
        response: { 200: SuggestionsSchema, ...errorResponses },
      },
    },
    async (req) => deps.suggestions.suggest(req.params.thread_id, req.body),
  );
}
