// GET /api/threads/{thread_id}/token-usage: DeerFlow's shape (totals, `by_model` with `tokens`
// and `runs`, `by_caller`), with input and output tokens and calls per model added.
import { Type, type Static } from 'typebox';

const Count = Type.Integer({ minimum: 0 });

export const ModelTokenUsageSchema = Type.Object({
  tokens: Count,
  input_tokens: Count,
  output_tokens: Count,
  /** Model calls. */
  calls: Count,
  /** Runs that called this model. */
  runs: Count,
});

export const ThreadTokenUsageSchema = Type.Object({
  thread_id: Type.String(),
  total_tokens: Count,
  total_input_tokens: Count,
  total_output_tokens: Count,
  /** Runs that recorded any usage. */
  total_runs: Count,
  by_model: Type.Record(Type.String(), ModelTokenUsageSchema),
  by_caller: Type.Object({ lead_agent: Count, subagent: Count, middleware: Count }),
});
export type ThreadTokenUsage = Static<typeof ThreadTokenUsageSchema>;
