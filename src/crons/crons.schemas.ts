// Crons as the LangGraph API and SDK spell them. The run fields a cron's runs are made of are
// picked from the run-create body, so they are validated exactly as a run's are; an unknown key
// is a 422 naming it.
import { Type, type Static } from 'typebox';
import { RunCreateSchema } from '../admission/run-create.schema.js';
import { CronSchema, JsonObjectSchema } from '../store/records.js';
import { IdSchema, OffsetSchema } from '../runtime/common.schemas.js';

/** What each tick's run is made of (the cron's `payload`). */
const CronRunFieldsSchema = Type.Pick(RunCreateSchema, [
  'input',
  'config',
  'context',
  'webhook',
  'interrupt_before',
  'interrupt_after',
  'multitask_strategy',
  'checkpoint_during',
  'durability',
  'stream_mode',
  'stream_subgraphs',
  'stream_resumable',
]);
export const CRON_RUN_FIELDS = Object.keys(CronRunFieldsSchema.properties) as (keyof Static<typeof CronRunFieldsSchema>)[];

/** Five cron fields (minute first), or six with seconds first. */
const ScheduleSchema = Type.String({ minLength: 1, maxLength: 256 });
const TimezoneSchema = Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()]);
const OnRunCompletedSchema = Type.Union([Type.Literal('delete'), Type.Literal('keep')]);

/** What a cron says beside its schedule and run, alike on create and on PATCH. */
const cronSettings = {
  timezone: Type.Optional(TimezoneSchema),
  end_time: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
  metadata: Type.Optional(Type.Union([JsonObjectSchema, Type.Null()])),
  enabled: Type.Optional(Type.Boolean()),
  /** Stateless crons only: what happens to each run's thread once the run ends (default delete). */
  on_run_completed: Type.Optional(OnRunCompletedSchema),
};

export const CronCreateSchema = Type.Object(
  {
    ...CronRunFieldsSchema.properties,
    assistant_id: Type.String({ minLength: 1, maxLength: 128 }),
    schedule: ScheduleSchema,
    ...cronSettings,
  },
  { additionalProperties: false },
);
export type CronCreate = Static<typeof CronCreateSchema>;

/** `PATCH /runs/crons/{cron_id}`: what the SDK's `update` sends. `end_time: null` clears it; `metadata` is merged. */
export const CronPatchSchema = Type.Object(
  {
    ...Type.Omit(CronRunFieldsSchema, ['multitask_strategy', 'checkpoint_during']).properties,
    schedule: Type.Optional(ScheduleSchema),
    ...cronSettings,
  },
  { additionalProperties: false },
);
export type CronPatch = Static<typeof CronPatchSchema>;

export const CRON_SORT_FIELDS = ['cron_id', 'assistant_id', 'thread_id', 'created_at', 'updated_at', 'next_run_date'] as const;
export type CronSortField = (typeof CRON_SORT_FIELDS)[number];
export const CRON_SELECT_FIELDS = [
  'cron_id',
  'assistant_id',
  'thread_id',
  'end_time',
  'schedule',
  'created_at',
  'updated_at',
  'user_id',
  'payload',
  'next_run_date',
  'metadata',
  'timezone',
  'enabled',
  'on_run_completed',
] as const;

export const CronCountSchema = Type.Object(
  {
    assistant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    thread_id: Type.Optional(IdSchema),
    metadata: Type.Optional(JsonObjectSchema),
  },
  { additionalProperties: false },
);
export type CronCount = Static<typeof CronCountSchema>;

export const CronSearchSchema = Type.Object(
  {
    ...CronCountSchema.properties,
    enabled: Type.Optional(Type.Boolean()),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
    offset: OffsetSchema,
    sort_by: Type.Optional(Type.Union(CRON_SORT_FIELDS.map((f) => Type.Literal(f)))),
    sort_order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    select: Type.Optional(Type.Array(Type.Union(CRON_SELECT_FIELDS.map((f) => Type.Literal(f))), { maxItems: 16 })),
  },
  { additionalProperties: false },
);
export type CronSearch = Static<typeof CronSearchSchema>;

export const CronParamsSchema = Type.Object({ cron_id: IdSchema });
export const CronListSchema = Type.Array(Type.Partial(CronSchema));
export { CronSchema };
