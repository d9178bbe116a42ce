// Assistants as the LangGraph API spells them: a configured graph's system assistant (its id is
// the graph id), and assistants clients create, each a graph with its own config and context.
// Every body is closed: a field we do not know is refused with 422 naming it.
import { Type, type Static } from 'typebox';
import { RunConfigSchema } from '../queue/run-kwargs.js';
import { AssistantSchema, AssistantVersionSchema } from '../store/records.js';
import { IdSchema, JsonObjectSchema, OffsetSchema } from './common.schemas.js';

export { AssistantSchema, AssistantVersionSchema };
export type { Assistant, AssistantVersion } from '../store/records.js';

const GraphIdSchema = Type.String({ minLength: 1, maxLength: 128 });
const NameSchema = Type.String({ maxLength: 256 });
const DescriptionSchema = Type.Union([Type.String({ maxLength: 4096 }), Type.Null()]);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const LimitSchema = Type.Integer({ minimum: 1, maximum: 1000, default: 10 });

/** Query flags: a boolean, as JSON or as the query string spells it. */
const FlagSchema = Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false'), Type.Literal('1'), Type.Literal('0')]);
export type Flag = Static<typeof FlagSchema>;

export const AssistantParamsSchema = Type.Object({ assistant_id: Type.String({ minLength: 1, maxLength: 128 }) });
export const SubgraphParamsSchema = Type.Object({
  assistant_id: Type.String({ minLength: 1, maxLength: 128 }),
  namespace: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const AssistantCreateSchema = Type.Object(
  {
    assistant_id: Type.Optional(IdSchema),
    graph_id: GraphIdSchema,
    config: Nullable(RunConfigSchema),
    context: Nullable(JsonObjectSchema),
    metadata: Nullable(JsonObjectSchema),
    name: Nullable(NameSchema),
    description: Type.Optional(DescriptionSchema),
    if_exists: Type.Optional(Type.Union([Type.Literal('raise'), Type.Literal('do_nothing')])),
  },
  { additionalProperties: false },
);
export type AssistantCreate = Static<typeof AssistantCreateSchema>;

/** Every field given replaces the assistant's, except `metadata`, which is merged key by key. */
export const AssistantPatchSchema = Type.Object(
  {
    graph_id: Type.Optional(GraphIdSchema),
    config: Nullable(RunConfigSchema),
    context: Nullable(JsonObjectSchema),
    metadata: Nullable(JsonObjectSchema),
    name: Nullable(NameSchema),
    description: Type.Optional(DescriptionSchema),
  },
  { additionalProperties: false },
);
export type AssistantPatch = Static<typeof AssistantPatchSchema>;

export const AssistantSortBySchema = Type.Union([
  Type.Literal('assistant_id'),
  Type.Literal('graph_id'),
  Type.Literal('name'),
  Type.Literal('created_at'),
  Type.Literal('updated_at'),
]);
export const AssistantFieldSchema = Type.Union(Object.keys(AssistantSchema.properties).map((k) => Type.Literal(k)));
export type AssistantField = keyof Static<typeof AssistantSchema>;

const filterFields = {
  graph_id: Type.Optional(GraphIdSchema),
  /** A substring of the name, matched case-insensitively. */
  name: Type.Optional(Type.String({ maxLength: 256 })),
  metadata: Nullable(JsonObjectSchema),
};

export const AssistantSearchSchema = Type.Object(
  {
    ...filterFields,
    limit: LimitSchema,
    offset: OffsetSchema,
    sort_by: Type.Optional(AssistantSortBySchema),
    sort_order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    select: Type.Optional(Type.Array(AssistantFieldSchema, { minItems: 1, maxItems: 16 })),
  },
  { additionalProperties: false },
);
export type AssistantSearch = Static<typeof AssistantSearchSchema>;

export const AssistantCountSchema = Type.Object(filterFields, { additionalProperties: false });
export type AssistantCount = Static<typeof AssistantCountSchema>;

export const AssistantVersionsQuerySchema = Type.Object(
  { metadata: Nullable(JsonObjectSchema), limit: LimitSchema, offset: OffsetSchema },
  { additionalProperties: false },
);
export type AssistantVersionsQuery = Static<typeof AssistantVersionsQuerySchema>;

export const AssistantLatestSchema = Type.Object({ version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }, { additionalProperties: false });

export const GraphQuerySchema = Type.Object(
  { xray: Type.Optional(Type.Union([FlagSchema, Type.Integer({ minimum: 0, maximum: 100 }), Type.String({ pattern: '^[0-9]{1,2}$' })])) },
  { additionalProperties: false },
);
export type GraphQuery = Static<typeof GraphQuerySchema>;

export const SubgraphsQuerySchema = Type.Object({ recurse: Type.Optional(FlagSchema) }, { additionalProperties: false });
export const DeleteQuerySchema = Type.Object({ delete_threads: Type.Optional(FlagSchema) }, { additionalProperties: false });

/** JSON schemas of a graph's input, output, state, config and context; null where it has none. */
const JsonSchemaOrNull = Type.Union([JsonObjectSchema, Type.Null()]);
export const GraphSchemasSchema = Type.Object({
  graph_id: Type.String(),
  input_schema: JsonSchemaOrNull,
  output_schema: JsonSchemaOrNull,
  state_schema: JsonSchemaOrNull,
  config_schema: JsonSchemaOrNull,
  context_schema: JsonSchemaOrNull,
});
export type GraphSchemas = Static<typeof GraphSchemasSchema>;
export const SubgraphsSchema = Type.Record(Type.String(), GraphSchemasSchema);

export const isTrue = (flag: Flag | undefined): boolean => flag === true || flag === 'true' || flag === '1';
