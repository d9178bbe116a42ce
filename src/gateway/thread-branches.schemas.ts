// DeerFlow's POST /api/threads/{thread_id}/branches, in its pydantic models' shapes (routers/threads.py).
import { Type, type Static } from 'typebox';

export const BranchBodySchema = Type.Object(
  {
    /** The assistant message the branch ends with. */
    message_id: Type.String({ minLength: 1, maxLength: 256 }),
    /** Every assistant message of that turn. */
    message_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 200 })),
    title: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type BranchBody = Static<typeof BranchBodySchema>;

export const BranchSchema = Type.Object({
  thread_id: Type.String(),
  parent_thread_id: Type.String(),
  parent_checkpoint_id: Type.String(),
  branched_from_message_id: Type.String(),
  /** `current_thread_best_effort` (the files were copied), `not_found` (the thread had none) or `failed`. */
  workspace_clone_mode: Type.String(),
  /** `seeded` (the branch's history holds the turns up to the message) or `skipped_empty`. */
  history_seed_mode: Type.String(),
});
export type Branch = Static<typeof BranchSchema>;
