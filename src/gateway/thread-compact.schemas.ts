// DeerFlow's POST /api/threads/{thread_id}/compact, in its pydantic models' shapes (routers/threads.py).
import { Type, type Static } from 'typebox';

/** DeerFlow's ContextSize. `fraction` (of the model's context window) is refused: Warren knows no model's window. */
export const ContextSizeSchema = Type.Object(
  { type: Type.Union([Type.Literal('fraction'), Type.Literal('tokens'), Type.Literal('messages')]), value: Type.Number({ minimum: 0 }) },
  { additionalProperties: false },
);

const NullableName = Type.Optional(Type.Union([Type.String({ maxLength: 128 }), Type.Null()]));

export const CompactBodySchema = Type.Object(
  {
    /** Compact even below `summarization.trigger_tokens`. */
    force: Type.Optional(Type.Boolean({ default: true })),
    /** What stays verbatim this time; absent: `summarization.keep_messages` messages. */
    keep: Type.Optional(Type.Union([ContextSizeSchema, Type.Null()])),
    /** A custom agent whose model summarises (when neither `model_name` nor `summarization.model_name` names one). */
    agent_name: NullableName,
    model_name: NullableName,
  },
  { additionalProperties: false },
);
export type CompactBody = Static<typeof CompactBodySchema>;

export const CompactSchema = Type.Object({
  thread_id: Type.String(),
  compacted: Type.Boolean(),
  /** Why nothing was compacted (`not_enough_messages`); null when it was. */
  reason: Type.Union([Type.String(), Type.Null()]),
  removed_message_count: Type.Integer(),
  preserved_message_count: Type.Integer(),
  summary_updated: Type.Boolean(),
  checkpoint_id: Type.Union([Type.String(), Type.Null()]),
  /** Estimated tokens of the context compacted away. */
  total_tokens: Type.Integer(),
});
export type Compact = Static<typeof CompactSchema>;
