// Run input and output, as the LangGraph API spells them. Every field of LangGraph's run-create
// body is declared; the few Warren does not do are refused by the service with a 422 naming
// them, and an unknown key is a 422 too (the validator drops nothing). The parts a run's
// kwargs are made of are declared once, with the queue contract (src/queue/run-kwargs.ts).
import { Type, type Static } from 'typebox';
import {
  AfterSecondsSchema,
  CheckpointRefSchema,
  CommandSchema,
  NodeListSchema,
  OnCompletionSchema,
  OnDisconnectSchema,
  RunConfigSchema,
  RunInputSchema,
  StreamModeSchema,
  WebhookSchema,
} from '../queue/run-kwargs.js';
import { MultitaskStrategySchema, RunSchema, RunStatusSchema } from '../store/records.js';
import { IdSchema, JsonObjectSchema, OffsetSchema } from './common.schemas.js';

export const RunCreateSchema = Type.Object(
  {
    assistant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    input: Type.Optional(RunInputSchema),
    command: Type.Optional(Type.Union([CommandSchema, Type.Null()])),
    config: Type.Optional(Type.Union([RunConfigSchema, Type.Null()])),
    context: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
    metadata: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
    stream_mode: Type.Optional(Type.Union([StreamModeSchema, Type.Array(StreamModeSchema, { maxItems: 8 })])),
    stream_subgraphs: Type.Optional(Type.Boolean()),
    stream_resumable: Type.Optional(Type.Boolean()),
    on_disconnect: Type.Optional(OnDisconnectSchema),
    multitask_strategy: Type.Optional(MultitaskStrategySchema),
    if_not_exists: Type.Optional(Type.Union([Type.Literal('reject'), Type.Literal('create')])),
    on_completion: Type.Optional(OnCompletionSchema),
    checkpoint: Type.Optional(Type.Union([CheckpointRefSchema, Type.Null()])),
    checkpoint_id: Type.Optional(Type.String({ maxLength: 128 })),
    interrupt_before: Type.Optional(NodeListSchema),
    interrupt_after: Type.Optional(NodeListSchema),
    after_seconds: Type.Optional(Type.Union([AfterSecondsSchema, Type.Null()])),
    webhook: Type.Optional(Type.Union([WebhookSchema, Type.Null()])),
    durability: Type.Optional(Type.Union([Type.Literal('sync'), Type.Literal('async'), Type.Literal('exit'), Type.Null()])),
    checkpoint_during: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    feedback_keys: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 256 }), { maxItems: 64 }), Type.Null()])),
    langsmith_tracer: Type.Optional(
      Type.Union([
        Type.Object(
          { project_name: Type.Optional(Type.String({ maxLength: 1024 })), example_id: Type.Optional(Type.String({ maxLength: 128 })) },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
    strict_resume: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  },
  { additionalProperties: false },
);
export type RunCreate = Static<typeof RunCreateSchema>;

/**
 * `POST /runs/batch`: stateless background runs, created in order. The SDK's `createBatch`
 * sends its payload as given, so an item may name its assistant `assistantId` too.
 */
export const RunBatchItemSchema = Type.Object(
  { ...RunCreateSchema.properties, assistantId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })) },
  { additionalProperties: false },
);
export type RunBatchItem = Static<typeof RunBatchItemSchema>;
export const RunBatchSchema = Type.Array(RunBatchItemSchema, { minItems: 1, maxItems: 100 });
export const RunBatchResultSchema = Type.Array(RunSchema);

/** `POST /runs/cancel`: the runs of one thread by id, or every run with a status. */
export const RunCancelManySchema = Type.Object(
  {
    thread_id: Type.Optional(IdSchema),
    run_ids: Type.Optional(Type.Array(IdSchema, { minItems: 1, maxItems: 1000 })),
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('running'), Type.Literal('all')])),
  },
  { additionalProperties: false },
);
export type RunCancelMany = Static<typeof RunCancelManySchema>;

export const CancelManyQuerySchema = Type.Object({
  action: Type.Union([Type.Literal('interrupt'), Type.Literal('rollback')], { default: 'interrupt' }),
});

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
