// Run input and output, as the LangGraph API spells them. Unknown keys are dropped (clients
// send fields such as `durability` that we do not use); a bad value is a 422. The parts a run's
// kwargs are made of are declared once, with the queue contract (src/queue/run-kwargs.ts).
import { Type, type Static } from 'typebox';
import {
  CheckpointRefSchema,
  CommandSchema,
  NodeListSchema,
  OnCompletionSchema,
  OnDisconnectSchema,
  RunConfigSchema,
  RunInputSchema,
  StreamModeSchema,
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
