// /api/models: what a client may know about a configured model. No key, no base_url.
import { Type, type Static } from 'typebox';

export const ModelSummarySchema = Type.Object({
  name: Type.String(),
  display_name: Type.String(),
  supports_thinking: Type.Boolean(),
  supports_vision: Type.Boolean(),
});
export type ModelSummary = Static<typeof ModelSummarySchema>;

export const ModelListSchema = Type.Object({ models: Type.Array(ModelSummarySchema) });
export type ModelList = Static<typeof ModelListSchema>;

export const ModelDetailSchema = Type.Object({
  ...ModelSummarySchema.properties,
  /** The provider's model identifier. */
  model: Type.String(),
  /** Null when the configuration sets no limit and the provider's default applies. */
  max_tokens: Type.Union([Type.Integer(), Type.Null()]),
});
export type ModelDetail = Static<typeof ModelDetailSchema>;

export const ModelParamsSchema = Type.Object({ model_name: Type.String({ minLength: 1, maxLength: 128 }) });
