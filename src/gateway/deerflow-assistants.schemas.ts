// DeerFlow's assistants compatibility routes (backend/app/gateway/routers/assistants_compat.py at
// f1f4af99b): /api/assistants/search, /{id}, /{id}/graph, /{id}/schemas. The search body is
// Warren's (runtime/assistants.schemas.ts), a superset of DeerFlow's AssistantSearchRequest.
import { Type, type Static } from 'typebox';
import { JsonObjectSchema } from '../store/records.js';

/** DeerFlow's AssistantResponse. */
export const DfAssistantSchema = Type.Object({
  assistant_id: Type.String(),
  graph_id: Type.String(),
  name: Type.String(),
  config: JsonObjectSchema,
  metadata: JsonObjectSchema,
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
  version: Type.Integer(),
});
export type DfAssistant = Static<typeof DfAssistantSchema>;
export const DfAssistantListSchema = Type.Array(DfAssistantSchema);

export const AssistantIdParamsSchema = Type.Object({ assistant_id: Type.String({ minLength: 1, maxLength: 128 }) });

/** The graph's drawing: its id, nodes and edges (LangGraph's drawable graph, with DeerFlow's `graph_id`). */
export const DfGraphSchema = Type.Object(
  { graph_id: Type.String(), nodes: Type.Array(Type.Unknown()), edges: Type.Array(Type.Unknown()) },
  { additionalProperties: true },
);
export type DfGraph = Static<typeof DfGraphSchema>;
