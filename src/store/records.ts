// The records Warren keeps in Redis, in their wire shape (snake_case, as LangGraph spells them).
// The runtime routes reuse these schemas for their responses.
import { Type, type Static } from 'typebox';

export const ThreadStatusSchema = Type.Union([
  Type.Literal('idle'),
  Type.Literal('busy'),
  Type.Literal('interrupted'),
  Type.Literal('error'),
]);
export type ThreadStatus = Static<typeof ThreadStatusSchema>;

export const RunStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('running'),
  Type.Literal('error'),
  Type.Literal('success'),
  Type.Literal('timeout'),
  Type.Literal('interrupted'),
]);
export type RunStatus = Static<typeof RunStatusSchema>;
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['error', 'success', 'timeout', 'interrupted'];
/** A run that has finished, or no longer exists: nothing more will be appended to its stream. */
export const isRunSettled = (run: { status: RunStatus } | null): boolean => run === null || TERMINAL_RUN_STATUSES.includes(run.status);

export const MultitaskStrategySchema = Type.Union([
  Type.Literal('reject'),
  Type.Literal('enqueue'),
  Type.Literal('interrupt'),
  Type.Literal('rollback'),
]);
export type MultitaskStrategy = Static<typeof MultitaskStrategySchema>;

/** An open JSON object (LangGraph's `metadata`, `config`, `values`): every field is kept. */
export const JsonObjectSchema = Type.Record(Type.String(), Type.Unknown());
const JsonObject = JsonObjectSchema;

export const ThreadSchema = Type.Object({
  thread_id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  metadata: JsonObject,
  status: ThreadStatusSchema,
  values: Type.Union([JsonObject, Type.Null()]),
  interrupts: JsonObject,
  config: Type.Optional(JsonObject),
});
export type Thread = Static<typeof ThreadSchema>;

export const RunSchema = Type.Object({
  run_id: Type.String(),
  thread_id: Type.String(),
  assistant_id: Type.String(),
  status: RunStatusSchema,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  metadata: JsonObject,
  kwargs: JsonObject,
  multitask_strategy: MultitaskStrategySchema,
});
export type Run = Static<typeof RunSchema>;

/** One version of an assistant, as `/assistants/{id}/versions` lists it. */
export const AssistantVersionSchema = Type.Object({
  assistant_id: Type.String(),
  graph_id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  config: JsonObject,
  context: JsonObject,
  metadata: JsonObject,
  version: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
});
export type AssistantVersion = Static<typeof AssistantVersionSchema>;

/** An assistant: its latest version (or the one set as latest), and when that was chosen. */
export const AssistantSchema = Type.Object({ ...AssistantVersionSchema.properties, updated_at: Type.String({ format: 'date-time' }) });
export type Assistant = Static<typeof AssistantSchema>;

/** Fields a run keeps beside its wire shape. */
export interface RunInternals {
  /** How many times a worker has claimed it; the current one is the run's fencing token. */
  attempt: number;
  /** A cancel that was asked for: the owning worker honours it. */
  cancel: 'interrupt' | 'rollback' | null;
  /** Stateless runs live on a temporary thread that is deleted afterwards unless kept. */
  temporary: boolean;
  /**
   * The thread's latest root checkpoint when the run first started (null: there was none);
   * undefined until a worker records it. Rollback returns to it, and a retry that finds
   * newer checkpoints resumes from them instead of re-sending the input.
   */
  checkpoint_before?: string | null;
  /**
   * How many messages the thread's line held where the run's own messages begin (at the
   * checkpoint it forks from, else at `checkpoint_before`), recorded with it. Absent on records
   * from before it was kept: the history feed then reads that checkpoint.
   */
  messages_before?: number;
  /** A failed run's error: the `error` event's data (JSON `{error, message}`), kept when it settles. */
  error?: string;
}
export type StoredRun = Run & RunInternals;

/**
 * What a worker proves with every write of a run: the attempt it claimed. Redis refuses the
 * write once another attempt holds the run (src/store/scripts/*: WARREN_FENCED).
 */
export interface RunFence {
  threadId: string;
  runId: string;
  attempt: number;
}

export const nowIso = (): string => new Date().toISOString();

/**
 * A cron as stored: the SDK's `Cron` without `next_run_date`, which is computed when read.
 * `payload` holds the run-create fields each tick's run is made from.
 */
export const StoredCronSchema = Type.Object({
  cron_id: Type.String(),
  assistant_id: Type.String(),
  thread_id: Type.Union([Type.String(), Type.Null()]),
  /** Stateless crons only: what happens to each run's new thread when the run ends. */
  on_run_completed: Type.Optional(Type.Union([Type.Literal('delete'), Type.Literal('keep')])),
  schedule: Type.String(),
  timezone: Type.Union([Type.String(), Type.Null()]),
  end_time: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  payload: JsonObject,
  user_id: Type.Union([Type.String(), Type.Null()]),
  metadata: JsonObject,
  enabled: Type.Boolean(),
  /** A scheduled task's title (DeerFlow's `/api/scheduled-tasks`); LangGraph's crons have none. */
  title: Type.Optional(Type.String()),
  /** A one-off scheduled task (`schedule_type: once`): the moment it runs, also its `end_time`. */
  run_at: Type.Optional(Type.String({ format: 'date-time' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type StoredCron = Static<typeof StoredCronSchema>;

export const CronSchema = Type.Object({ ...StoredCronSchema.properties, next_run_date: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]) });
export type Cron = Static<typeof CronSchema>;

/** What a run's `error` event data (`{error, message}`, JSON) says to a person: its message, else its error name. */
export function runErrorMessage(data: string): string {
  try {
    const parsed = JSON.parse(data) as { error?: unknown; message?: unknown } | null;
    if (typeof parsed?.message === 'string' && parsed.message !== '') return parsed.message;
    if (typeof parsed?.error === 'string') return parsed.error;
  } catch {
    // Not JSON: the data is the message itself.
  }
  return data;
}
