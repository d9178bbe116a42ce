// DeerFlow's regenerate and edit-and-rerun preparations, in its pydantic models' shapes
// (routers/thread_runs.py): what the UI then sends as a run on the same thread.
import { Type, type Static } from 'typebox';

export const RegeneratePrepareBodySchema = Type.Object({ message_id: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });
export type RegeneratePrepareBody = Static<typeof RegeneratePrepareBodySchema>;

export const EditRegeneratePrepareBodySchema = Type.Object(
  { human_message_id: Type.String({ minLength: 1, maxLength: 256 }), replacement_text: Type.String({ minLength: 1, maxLength: 100_000 }) },
  { additionalProperties: false },
);
export type EditRegeneratePrepareBody = Static<typeof EditRegeneratePrepareBodySchema>;

const Json = Type.Record(Type.String(), Type.Unknown());

export const ReplayCheckpointSchema = Type.Object({
  checkpoint_ns: Type.String(),
  checkpoint_id: Type.String(),
  checkpoint_map: Type.Union([Json, Type.Null()]),
});

export const RegeneratePrepareSchema = Type.Object({
  /** `{messages: [the user message to send again], title?}`. */
  input: Json,
  checkpoint: ReplayCheckpointSchema,
  metadata: Json,
  target_run_id: Type.String(),
});
export type RegeneratePrepare = Static<typeof RegeneratePrepareSchema>;

export const EditRegeneratePrepareSchema = Type.Object({
  ...RegeneratePrepareSchema.properties,
  replacement_human_message_id: Type.String(),
  source_message_ids: Type.Array(Type.String()),
});
export type EditRegeneratePrepare = Static<typeof EditRegeneratePrepareSchema>;
