// POST /api/threads/{thread_id}/suggestions and GET /api/suggestions/config, in DeerFlow's shapes.
import { Type, type Static } from 'typebox';
import { SuggestionsConfigSchema } from '../config/app-config.schemas.js';
import { SuggestionRequestSchema } from '../queue/task-queue.js';

export const SuggestionsBodySchema = Type.Object(
  {
    messages: SuggestionRequestSchema.properties.messages,
    n: Type.Integer({ minimum: 1, maximum: 5, default: 3 }),
    model_name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type SuggestionsBody = Static<typeof SuggestionsBodySchema>;

export const SuggestionsSchema = Type.Object({ suggestions: Type.Array(Type.String()) });
export type Suggestions = Static<typeof SuggestionsSchema>;

/** What the UI reads before it asks: whether to ask, and for how many. */
export const SuggestionsSettingsSchema = Type.Object({
  enabled: Type.Boolean(),
  max_suggestions: SuggestionsConfigSchema.properties.max_suggestions,
});
export type SuggestionsSettings = Static<typeof SuggestionsSettingsSchema>;
