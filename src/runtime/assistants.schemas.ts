// Assistants: one per configured graph, with the graph id as its assistant id.
import { Type, type Static } from 'typebox';
import { JsonObjectSchema, OffsetSchema } from './common.schemas.js';

export const AssistantSchema = Type.Object({
  assistant_id: Type.String(),
  graph_id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  config: JsonObjectSchema,
  context: JsonObjectSchema,
  metadata: JsonObjectSchema,
  version: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type Assistant = Static<typeof AssistantSchema>;

export const AssistantParamsSchema = Type.Object({ assistant_id: Type.String({ minLength: 1, maxLength: 128 }) });

export const AssistantSearchSchema = Type.Object(
  {
    graph_id: Type.Optional(Type.String({ maxLength: 128 })),
    name: Type.Optional(Type.String({ maxLength: 128 })),
    metadata: Type.Optional(JsonObjectSchema),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
    offset: OffsetSchema,
  },
  { additionalProperties: false },
);
export type AssistantSearch = Static<typeof AssistantSearchSchema>;

export const GraphQuerySchema = Type.Object({ xray: Type.Optional(Type.Union([Type.Boolean(), Type.Integer({ minimum: 0 })])) });
