// POST /api/threads/{thread_id}/suggestions, in DeerFlow's shape.
import { Type, type Static } from 'typebox';
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
