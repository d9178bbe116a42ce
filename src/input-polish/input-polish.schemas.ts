// POST /api/input-polish, in DeerFlow's shapes.
import { Type, type Static } from 'typebox';
import { InputPolishRequestSchema } from '../queue/task-queue.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

export const InputPolishBodySchema = Type.Object(
  {
    /** Its length against `input_polish.max_chars` is the service's check (a 400 naming the limit), not the schema's. */
    text: InputPolishRequestSchema.properties.text,
    locale: Nullable(Type.String({ maxLength: 64 })),
    /** DeerFlow's for tracing; here it only names the model task. */
    thread_id: Nullable(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: false },
);
export type InputPolishBody = Static<typeof InputPolishBodySchema>;

export const InputPolishSchema = Type.Object({ rewritten_text: Type.String(), changed: Type.Boolean() });
export type InputPolish = Static<typeof InputPolishSchema>;
