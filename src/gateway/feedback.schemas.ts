// DeerFlow's run feedback routes, in its pydantic models' shapes (routers/feedback.py).
import { Type, type Static } from 'typebox';
import { THREAD_ID_PATTERN } from '../workspace/thread-files.js';

const Id = Type.String({ pattern: THREAD_ID_PATTERN });
const NullableText = (maxLength: number) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));

export const FeedbackParamsSchema = Type.Object({ thread_id: Id, run_id: Id });
export const FeedbackIdParamsSchema = Type.Object({ thread_id: Id, run_id: Id, feedback_id: Type.String({ minLength: 1, maxLength: 128 }) });

/** `rating` is +1 or -1; any other integer is DeerFlow's 400, not a schema error. */
export const FeedbackCreateSchema = Type.Object(
  { rating: Type.Integer(), comment: NullableText(10_000), message_id: NullableText(256) },
  { additionalProperties: false },
);
export type FeedbackCreate = Static<typeof FeedbackCreateSchema>;

export const FeedbackUpsertSchema = Type.Object({ rating: Type.Integer(), comment: NullableText(10_000) }, { additionalProperties: false });
export type FeedbackUpsert = Static<typeof FeedbackUpsertSchema>;

export const FeedbackSchema = Type.Object({
  feedback_id: Type.String(),
  run_id: Type.String(),
  thread_id: Type.String(),
  user_id: Type.Union([Type.String(), Type.Null()]),
  message_id: Type.Union([Type.String(), Type.Null()]),
  rating: Type.Integer(),
  comment: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});
export type Feedback = Static<typeof FeedbackSchema>;

export const FeedbackListSchema = Type.Array(FeedbackSchema);

export const FeedbackStatsSchema = Type.Object({
  run_id: Type.String(),
  total: Type.Integer(),
  positive: Type.Integer(),
  negative: Type.Integer(),
});
export type FeedbackStats = Static<typeof FeedbackStatsSchema>;

export const DeletedSchema = Type.Object({ success: Type.Boolean() });
