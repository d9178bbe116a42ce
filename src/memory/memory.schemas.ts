// /api/memory: DeerFlow's memory document, its facts, settings and status, in DeerFlow's shapes.
import { Type, type Static } from 'typebox';
import { MemoryConfigSchema } from '../config/app-config.schemas.js';
import {
  ConfidenceSchema,
  ContextSectionSchema,
  FACT_ID_PATTERN,
  FactCategorySchema,
  FactContentSchema,
  HISTORY_SECTIONS,
  MemoryDocumentSchema,
  MemoryFactSchema,
  USER_SECTIONS,
} from './memory-document.js';

export const MemorySchema = MemoryDocumentSchema;

export const FactParamsSchema = Type.Object({ fact_id: Type.String({ pattern: FACT_ID_PATTERN }) });

export const FactCreateSchema = Type.Object(
  {
    content: FactContentSchema,
    category: Type.Optional(FactCategorySchema),
    confidence: Type.Optional(ConfidenceSchema),
  },
  { additionalProperties: false },
);
export type FactCreate = Static<typeof FactCreateSchema>;

/** What is sent changes; what is left out stays. */
export const FactPatchSchema = Type.Partial(FactCreateSchema, { additionalProperties: false });
export type FactPatch = Static<typeof FactPatchSchema>;

/** An import may leave out what it has not got (as DeerFlow's does): it is empty, and a fact's fields take DeerFlow's defaults. */
const sectionsImport = (names: readonly string[]) =>
  Type.Object(Object.fromEntries(names.map((n) => [n, Type.Optional(Type.Partial(ContextSectionSchema, { additionalProperties: false }))])), {
    additionalProperties: false,
  });
const { id, content, category, confidence, createdAt, source } = MemoryFactSchema.properties;
export const MemoryImportSchema = Type.Object(
  {
    version: Type.Optional(MemoryDocumentSchema.properties.version),
    lastUpdated: Type.Optional(MemoryDocumentSchema.properties.lastUpdated),
    user: Type.Optional(sectionsImport(USER_SECTIONS)),
    history: Type.Optional(sectionsImport(HISTORY_SECTIONS)),
    facts: Type.Optional(
      Type.Array(
        Type.Object(
          { id, content, category: Type.Optional(category), confidence: Type.Optional(confidence), createdAt: Type.Optional(createdAt), source: Type.Optional(source) },
          { additionalProperties: false },
        ),
        { maxItems: 500 },
      ),
    ),
  },
  { additionalProperties: false },
);
export type MemoryImport = Static<typeof MemoryImportSchema>;

/** The memory settings of config.yaml, under DeerFlow's names (`model_name` null: the default model). */
const settings = MemoryConfigSchema.properties;
export const MemorySettingsSchema = Type.Object({
  enabled: settings.enabled,
  debounce_seconds: settings.debounce_seconds,
  model_name: Type.Union([Type.String(), Type.Null()]),
  max_facts: settings.max_facts,
  fact_confidence_threshold: settings.fact_confidence_threshold,
  injection_enabled: settings.injection_enabled,
  max_injection_tokens: settings.max_injection_tokens,
});
export type MemorySettings = Static<typeof MemorySettingsSchema>;

export const MemoryStatusSchema = Type.Object({ config: MemorySettingsSchema, data: MemorySchema });
export type MemoryStatus = Static<typeof MemoryStatusSchema>;
