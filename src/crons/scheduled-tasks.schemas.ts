// DeerFlow's `/api/scheduled-tasks` shapes (its routers/scheduled_tasks.py): a scheduled task is a
// Warren cron seen through them. Bodies refuse an unknown key with a 422 naming it, so a field
// Warren cannot honour is never dropped unseen.
import { Type, type Static } from 'typebox';
import { THREAD_ID_PATTERN } from '../workspace/thread-files.js';
import { IdSchema } from '../runtime/common.schemas.js';

const NullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);
const ThreadIdSchema = Type.String({ pattern: THREAD_ID_PATTERN });

export const CONTEXT_MODES = ['fresh_thread_per_run', 'reuse_thread'] as const;
export type ContextMode = (typeof CONTEXT_MODES)[number];

/** `{cron: "m h dom mon dow"}` or `{run_at: ISO}`; which one `schedule_type` says. Checked by the service, naming the key. */
const ScheduleSpecSchema = Type.Record(Type.String(), Type.Unknown());

export const ScheduledTaskCreateSchema = Type.Object(
  {
    thread_id: Type.Optional(Type.Union([ThreadIdSchema, Type.Null()])),
    context_mode: Type.Optional(Type.String()),
    title: Type.String({ minLength: 1, maxLength: 512 }),
    prompt: Type.String({ minLength: 1, maxLength: 100_000 }),
    schedule_type: Type.String(),
    schedule_spec: ScheduleSpecSchema,
    timezone: Type.String({ minLength: 1, maxLength: 64 }),
  },
  { additionalProperties: false },
);
export type ScheduledTaskCreate = Static<typeof ScheduledTaskCreateSchema>;

/** All optional; a `null` is as if absent (DeerFlow drops nulls). `schedule_type` cannot change. */
export const ScheduledTaskPatchSchema = Type.Object(
  {
    context_mode: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    thread_id: Type.Optional(Type.Union([ThreadIdSchema, Type.Null()])),
    title: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 512 }), Type.Null()])),
    prompt: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100_000 }), Type.Null()])),
    schedule_spec: Type.Optional(Type.Union([ScheduleSpecSchema, Type.Null()])),
    timezone: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type ScheduledTaskPatch = Static<typeof ScheduledTaskPatchSchema>;

export const ScheduledTaskSchema = Type.Object({
  /** The cron's id: the same record `/api/langgraph/runs/crons` shows. */
  id: Type.String(),
  user_id: Type.String(),
  thread_id: NullableString,
  context_mode: Type.Union([Type.Literal('fresh_thread_per_run'), Type.Literal('reuse_thread')]),
  assistant_id: Type.String(),
  title: Type.String(),
  prompt: Type.String(),
  schedule_type: Type.Union([Type.Literal('cron'), Type.Literal('once')]),
  schedule_spec: Type.Union([Type.Object({ cron: Type.String() }), Type.Object({ run_at: Type.String({ format: 'date-time' }) })]),
  timezone: Type.String(),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('paused'), Type.Literal('completed')]),
  overlap_policy: Type.Union([Type.Literal('skip'), Type.Literal('allow')]),
  next_run_at: NullableTime,
  last_run_at: NullableTime,
  last_run_id: NullableString,
  last_thread_id: NullableString,
  last_error: NullableString,
  lease_owner: Type.Null(),
  lease_expires_at: Type.Null(),
  run_count: Type.Integer({ minimum: 0 }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type ScheduledTask = Static<typeof ScheduledTaskSchema>;
export const ScheduledTaskListSchema = Type.Array(ScheduledTaskSchema);

export const TaskRunStatusSchema = Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('success'), Type.Literal('failed'), Type.Literal('interrupted')]);
export const ScheduledTaskRunSchema = Type.Object({
  /** The run's id (a task run is a Warren run). */
  id: Type.String(),
  task_id: Type.String(),
  thread_id: Type.String(),
  run_id: NullableString,
  scheduled_for: NullableTime,
  trigger: Type.Union([Type.Literal('scheduled'), Type.Literal('manual')]),
  status: TaskRunStatusSchema,
  error: NullableString,
  started_at: NullableTime,
  finished_at: NullableTime,
  created_at: Type.String({ format: 'date-time' }),
});
export type ScheduledTaskRun = Static<typeof ScheduledTaskRunSchema>;
export const ScheduledTaskRunListSchema = Type.Array(ScheduledTaskRunSchema);

export const TaskRunsQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    offset: Type.Integer({ minimum: 0, default: 0 }),
  },
  { additionalProperties: false },
);
export type TaskRunsQuery = Static<typeof TaskRunsQuerySchema>;

/** `cron_id`, so the record gate in front of every route answers 404 for another user's task. */
export const TaskParamsSchema = Type.Object({ cron_id: IdSchema });

export const TaskTriggeredSchema = Type.Object({ id: Type.String(), triggered: Type.Boolean() });
export const TaskDeletedSchema = Type.Object({ id: Type.String(), deleted: Type.Boolean() });
