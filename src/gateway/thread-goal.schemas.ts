// DeerFlow's thread goal routes, in its pydantic models' shapes (routers/threads.py).
import { Type, type Static } from 'typebox';

/** DeerFlow's DEFAULT_MAX_GOAL_CONTINUATIONS: the most hidden continuation turns a goal may ask for. */
export const MAX_GOAL_CONTINUATIONS = 8;
/** DeerFlow's DEFAULT_MAX_NO_PROGRESS_CONTINUATIONS. */
export const MAX_NO_PROGRESS_CONTINUATIONS = 2;
export const MAX_GOAL_OBJECTIVE_CHARS = 4000;

export const GoalBodySchema = Type.Object(
  {
    objective: Type.String({ minLength: 1, maxLength: MAX_GOAL_OBJECTIVE_CHARS }),
    max_continuations: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_GOAL_CONTINUATIONS, default: MAX_GOAL_CONTINUATIONS })),
  },
  { additionalProperties: false },
);
export type GoalBody = Static<typeof GoalBodySchema>;

export const GoalStateSchema = Type.Object({
  objective: Type.String(),
  status: Type.Literal('active'),
  created_at: Type.String(),
  updated_at: Type.String(),
  continuation_count: Type.Integer(),
  max_continuations: Type.Integer(),
  no_progress_count: Type.Integer(),
  max_no_progress_continuations: Type.Integer(),
});

/** `goal` is null when the thread has none. */
export const GoalAnswerSchema = Type.Object({ goal: Type.Union([GoalStateSchema, Type.Null()]) });
export type GoalAnswer = Static<typeof GoalAnswerSchema>;
