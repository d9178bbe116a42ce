// Run input and output, as the LangGraph API spells them. Unknown keys are dropped (clients
// send fields such as `durability` that we do not use); a bad value is a 422.
import { Type, type Static } from 'typebox';
import { MultitaskStrategySchema, RunSchema, RunStatusSchema } from '../store/records.js';
import { IdSchema, JsonObjectSchema, OffsetSchema } from './common.schemas.js';

/** The seed's eight stream modes; `tools`, `messages` or anything else is refused. */
export const StreamModeSchema = Type.Union([
  Type.Literal('values'),
  Type.Literal('messages-tuple'),
  Type.Literal('custom'),
  Type.Literal('updates'),
  Type.Literal('events'),
  Type.Literal('debug'),
  Type.Literal('tasks'),
  Type.Literal('checkpoints'),
]);
export type StreamMode = Static<typeof StreamModeSchema>;

const NodeList = Type.Union([Type.Literal('*'), Type.Array(Type.String({ maxLength: 256 }), { maxItems: 256 })]);

export const CheckpointRefSchema = Type.Object(
  {
    checkpoint_id: Type.Optional(Type.String({ maxLength: 128 })),
    checkpoint_ns: Type.Optional(Type.String({ maxLength: 1024 })),
    checkpoint_map: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
  },
  { additionalProperties: false },
);

export const RunConfigSchema = Type.Object(
  {
    recursion_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    configurable: Type.Optional(JsonObjectSchema),
    tags: Type.Optional(Type.Array(Type.String(), { maxItems: 256 })),
    metadata: Type.Optional(JsonObjectSchema),
  },
  { additionalProperties: true },
);

export const CommandSchema = Type.Object(
  {
    resume: Type.Optional(Type.Unknown()),
    update: Type.Optional(Type.Union([JsonObjectSchema, Type.Array(Type.Unknown()), Type.Null()])),
    goto: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const RunCreateSchema = Type.Object(
  {
    assistant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    input: Type.Optional(Type.Union([JsonObjectSchema, Type.Array(Type.Unknown()), Type.String(), Type.Null()])),
    command: Type.Optional(Type.Union([CommandSchema, Type.Null()])),
    config: Type.Optional(Type.Union([RunConfigSchema, Type.Null()])),
    context: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
    metadata: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
    stream_mode: Type.Optional(Type.Union([StreamModeSchema, Type.Array(StreamModeSchema, { maxItems: 8 })])),
    stream_subgraphs: Type.Optional(Type.Boolean()),
    stream_resumable: Type.Optional(Type.Boolean()),
    on_disconnect: Type.Optional(Type.Union([Type.Literal('cancel'), Type.Literal('continue')])),
    multitask_strategy: Type.Optional(MultitaskStrategySchema),
    if_not_exists: Type.Optional(Type.Union([Type.Literal('reject'), Type.Literal('create')])),
    on_completion: Type.Optional(Type.Union([Type.Literal('delete'), Type.Literal('keep')])),
    checkpoint: Type.Optional(Type.Union([CheckpointRefSchema, Type.Null()])),
    checkpoint_id: Type.Optional(Type.String({ maxLength: 128 })),
    interrupt_before: Type.Optional(NodeList),
    interrupt_after: Type.Optional(NodeList),
  },
  { additionalProperties: false },
);
export type RunCreate = Static<typeof RunCreateSchema>;

export const RunListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  offset: OffsetSchema,
  status: Type.Optional(RunStatusSchema),
});
export type RunListQuery = Static<typeof RunListQuerySchema>;

const Flag = Type.Union([Type.Boolean(), Type.Literal('0'), Type.Literal('1'), Type.Literal('true'), Type.Literal('false')]);
export const isTrue = (flag: boolean | string | undefined): boolean => flag === true || flag === '1' || flag === 'true';

export const CancelQuerySchema = Type.Object({
  wait: Type.Optional(Flag),
  action: Type.Union([Type.Literal('interrupt'), Type.Literal('rollback')], { default: 'interrupt' }),
});
export type CancelQuery = Static<typeof CancelQuerySchema>;

export const JoinQuerySchema = Type.Object({
  cancel_on_disconnect: Type.Optional(Flag),
});
export type JoinQuery = Static<typeof JoinQuerySchema>;

export const StatelessRunParamsSchema = Type.Object({ run_id: IdSchema });

export const RunListSchema = Type.Object({ runs: Type.Array(RunSchema) });
export { RunSchema };
