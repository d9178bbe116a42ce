// The body of dev mode's `POST /internal/truncate`, as LangGraph's server takes it.
import { Type, type Static } from 'typebox';

export const TruncateSchema = Type.Object(
  {
    runs: Type.Optional(Type.Boolean()),
    threads: Type.Optional(Type.Boolean()),
    assistants: Type.Optional(Type.Boolean()),
    checkpointer: Type.Optional(Type.Boolean()),
    store: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type Truncate = Static<typeof TruncateSchema>;

export const TruncateResultSchema = Type.Object({ ok: Type.Literal(true) });
