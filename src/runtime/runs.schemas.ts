// Run input and output, as the LangGraph API spells them. The run-create body is declared with
// run admission (src/admission/run-create.schema.ts), which the cron worker shares.
import { Type, type Static } from 'typebox';
import { RunCreateSchema, type RunCreate } from '../admission/run-create.schema.js';
import { RunSchema, RunStatusSchema } from '../store/records.js';
import { IdSchema, OffsetSchema } from './common.schemas.js';

export { RunCreateSchema, type RunCreate };

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
