// DeerFlow's scheduled tasks, served on Warren's crons: a task is a cron (the same record, the same
// BullMQ job scheduler, one run per tick), created, changed and removed through crons.service.ts,
// so the LangGraph cron routes and these show one thing. How the fields map:
//   context_mode fresh_thread_per_run → a stateless cron whose runs' threads are kept;
//   reuse_thread + thread_id         → a cron on that thread;
//   prompt                           → the runs' `input` (one user message);
//   schedule_type cron + {cron}      → `schedule` (5 fields), `timezone`;
//   schedule_type once + {run_at}    → a 6-field schedule matching that second, `end_time` just after it;
//   title (and run_at)               → kept on the cron record;
//   status                           → `enabled` (paused) and `end_time` (completed);
//   runs, last_run_*, run_count      → the runs the cron's ticks and triggers noted (cron-store.ts).
import { randomUUID } from 'node:crypto';
import type { Identity } from '../auth/identity.js';
import { cronOwner, type CronRunRef } from './cron-store.js';
import { nextRunDate } from './cron-schedule.js';
import type { CronsService } from './crons.service.js';
import { CronNotFoundError, TaskChangeUnsupportedError, TaskContextInvalidError, TaskScheduleInvalidError } from './crons.errors.js';
import { type Cron, type RunStatus, type StoredRun } from '../store/records.js';
import type { Stores } from '../stores.js';
import {
  CONTEXT_MODES,
  type ContextMode,
  type ScheduledTask,
  type ScheduledTaskCreate,
  type ScheduledTaskPatch,
  type ScheduledTaskRun,
  type TaskRunsQuery,
} from './scheduled-tasks.schemas.js';

export interface ScheduledTasksDeps {
  crons: Pick<CronsService, 'create' | 'update' | 'remove' | 'get' | 'find'>;
  stores: Pick<Stores, 'crons' | 'runs'>;
  /** Refuses (404) a thread that is not the caller's. */
  requireThread(identity: Identity, threadId: string): Promise<void>;
  /** Starts one run of the cron now, as a tick would (src/admission/cron-tick.ts `triggerCron`); null: no such cron. */
  trigger(cronId: string, triggerId: string): Promise<CronRunRef | null>;
}

/** DeerFlow's only agent; its tasks all run it. */
const TASK_ASSISTANT = 'lead_agent';
/** A one-off task's `end_time` is this long after its `run_at`, so its one tick is inside it. */
const ONCE_GRACE_MS = 1000;

const TASK_RUN_STATUS: Record<RunStatus, ScheduledTaskRun['status']> = {
  pending: 'queued',
  running: 'running',
  success: 'success',
  error: 'failed',
  timeout: 'failed',
  interrupted: 'interrupted',
};
const TERMINAL: ReadonlySet<RunStatus> = new Set(['success', 'error', 'timeout', 'interrupted']);

const promptInput = (prompt: string) => ({ messages: [{ role: 'user', content: prompt }] });

/** The prompt a cron's runs are given: its last user message, as a task made here has it. */
function promptOf(cron: Cron): string {
  const input = cron.payload.input as { messages?: unknown } | null | undefined;
  const messages = Array.isArray(input?.messages) ? (input.messages as { role?: unknown; type?: unknown; content?: unknown }[]) : [];
  const last = messages.filter((m) => m.role === 'user' || m.role === 'human' || m.type === 'human').at(-1);
  if (typeof last?.content === 'string') return last.content;
  return input === undefined || input === null ? '' : JSON.stringify(input);
}

function contextModeOf(value: string | null | undefined): ContextMode {
  const mode = value ?? 'fresh_thread_per_run';
  if (!(CONTEXT_MODES as readonly string[]).includes(mode)) throw new TaskContextInvalidError(`Unsupported context_mode: ${JSON.stringify(mode)} (${CONTEXT_MODES.join(' or ')})`);
  return mode as ContextMode;
}

/** Refuses a `schedule_spec` key other than the one its type takes, by name. */
function onlyKey(spec: Record<string, unknown>, key: string): unknown {
  const other = Object.keys(spec).find((k) => k !== key);
  if (other !== undefined) throw new TaskScheduleInvalidError(`schedule_spec.${other}: not a field of a ${key === 'cron' ? 'cron' : 'once'} schedule (it takes ${key} only)`);
  return spec[key];
}

interface CronSchedule {
  schedule: string;
  end_time: string | null;
  run_at?: string;
}

/** The wall-clock fields of an instant in a time zone. */
function wallClock(ms: number, timezone: string) {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: timezone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(ms);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour'), minute: part('minute'), second: part('second') };
}

function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new TaskScheduleInvalidError(`Unknown timezone: ${timezone}`);
  }
}

/**
 * A one-off run at `run_at` as a cron: the 6-field schedule of that second (in the task's zone),
 * ending just after it. A `run_at` without an offset is wall-clock time in the task's zone.
 */
function onceSchedule(runAt: unknown, timezone: string, nowMs: number): CronSchedule {
  if (typeof runAt !== 'string' || runAt === '') throw new TaskScheduleInvalidError('once schedule requires run_at');
  const naive = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(runAt);
  if (!naive && Number.isNaN(Date.parse(runAt))) throw new TaskScheduleInvalidError(`schedule_spec.run_at: ${JSON.stringify(runAt)} is not an ISO date-time`);
  let clock: ReturnType<typeof wallClock>;
  if (naive) {
    const [date = '', time = ''] = runAt.split('T');
    const [year, month, day] = date.split('-').map(Number) as [number, number, number];
    const [hour, minute, second = 0] = time.split(':').map((x) => Math.floor(Number(x))) as [number, number, number?];
    clock = { year, month, day, hour, minute, second };
  } else {
    clock = wallClock(Math.floor(Date.parse(runAt) / 1000) * 1000, timezone);
  }
  const schedule = `${clock.second} ${clock.minute} ${clock.hour} ${clock.day} ${clock.month} *`;
  let next: string | null = null;
  try {
    next = nextRunDate({ schedule, timezone, end_time: null }, new Date(nowMs));
  } catch (err) {
    throw new TaskScheduleInvalidError(`schedule_spec.run_at: ${JSON.stringify(runAt)} is not a time (${err instanceof Error ? err.message : String(err)})`);
  }
  // The schedule has no year: its next time is the asked one only when that is still to come.
  if (next === null || wallClock(Date.parse(next), timezone).year !== clock.year) throw new TaskScheduleInvalidError('once schedule must be in the future');
  return { schedule, run_at: next, end_time: new Date(Date.parse(next) + ONCE_GRACE_MS).toISOString() };
}

function cronSchedule(spec: Record<string, unknown>): CronSchedule {
  const cron = onlyKey(spec, 'cron');
  if (typeof cron !== 'string' || cron.trim() === '') throw new TaskScheduleInvalidError('cron schedule requires schedule_spec.cron');
  if (cron.trim().split(/\s+/).length !== 5) throw new TaskScheduleInvalidError('Cron expression must contain exactly 5 fields');
  return { schedule: cron.trim(), end_time: null };
}

function scheduleOf(type: 'cron' | 'once', spec: Record<string, unknown>, timezone: string): CronSchedule {
  checkTimezone(timezone);
  return type === 'cron' ? cronSchedule(spec) : onceSchedule(onlyKey(spec, 'run_at'), timezone, Date.now());
}

function scheduleType(value: string): 'cron' | 'once' {
  if (value !== 'cron' && value !== 'once') throw new TaskScheduleInvalidError(`Unsupported schedule_type: ${JSON.stringify(value)} (cron or once)`);
  return value;
}

export function createScheduledTasksService(deps: ScheduledTasksDeps) {
  const { crons } = deps;

  async function lastRun(cronId: string): Promise<{ ref: CronRunRef | null; run: StoredRun | null; total: number }> {
    const { runs, total } = await deps.stores.crons.runs(cronId, { offset: 0, limit: 1 });
    const ref = runs[0] ?? null;
    return { ref, run: ref ? await deps.stores.runs.get(ref.thread_id, ref.run_id) : null, total };
  }

  async function toTask(cron: Cron): Promise<ScheduledTask> {
    const last = await lastRun(cron.cron_id);
    const ended = cron.end_time !== null && Date.parse(cron.end_time) <= Date.now();
    const lastStatus = last.run?.status;
    return {
      id: cron.cron_id,
      user_id: cronOwner(cron),
      thread_id: cron.thread_id,
      context_mode: cron.thread_id === null ? 'fresh_thread_per_run' : 'reuse_thread',
      assistant_id: cron.assistant_id,
      title: cron.title ?? `${cron.assistant_id} ${cron.schedule}`,
      prompt: promptOf(cron),
      schedule_type: cron.run_at ? 'once' : 'cron',
      schedule_spec: cron.run_at ? { run_at: cron.run_at } : { cron: cron.schedule },
      timezone: cron.timezone ?? 'UTC',
      status: !cron.enabled ? 'paused' : ended ? 'completed' : 'enabled',
      // A tick that finds its thread busy is refused (no run): skipped. Stateless runs each have their own thread.
      overlap_policy: cron.thread_id !== null && (cron.payload.multitask_strategy ?? 'reject') === 'reject' ? 'skip' : 'allow',
      next_run_at: cron.next_run_date,
      last_run_at: last.run?.created_at ?? null,
      last_run_id: last.ref?.run_id ?? null,
      last_thread_id: last.ref?.thread_id ?? null,
      last_error: lastStatus === 'error' || lastStatus === 'timeout' ? `run ended with status ${lastStatus}` : null,
      lease_owner: null,
      lease_expires_at: null,
      run_count: last.total,
      created_at: cron.created_at,
      updated_at: cron.updated_at,
    };
  }

  /** The task's cron; 404 in DeerFlow's words when there is none. */
  const requireTask = (cronId: string): Promise<Cron> =>
    crons.get(cronId).catch((err: unknown) => {
      throw err instanceof CronNotFoundError ? new CronNotFoundError('Scheduled task not found', { cause: err }) : err;
    });
  const taskOf = async (cronId: string) => toTask(await requireTask(cronId));

  return {
    list: async (caller: Identity): Promise<ScheduledTask[]> => Promise.all((await crons.find({}, caller)).map(toTask)),

    listForThread: async (threadId: string, caller: Identity): Promise<ScheduledTask[]> => Promise.all((await crons.find({ thread_id: threadId }, caller)).map(toTask)),

    get: taskOf,

    async create(body: ScheduledTaskCreate, caller: Identity): Promise<ScheduledTask> {
      const mode = contextModeOf(body.context_mode);
      if (mode === 'reuse_thread' && !body.thread_id) throw new TaskContextInvalidError('reuse_thread requires thread_id');
      // As DeerFlow: a task with a thread per run keeps none.
      const threadId = mode === 'reuse_thread' ? (body.thread_id as string) : null;
      if (threadId !== null) await deps.requireThread(caller, threadId);
      const { run_at, ...schedule } = scheduleOf(scheduleType(body.schedule_type), body.schedule_spec, body.timezone);
      const cron = await crons.create(
        threadId,
        {
          assistant_id: TASK_ASSISTANT,
          input: promptInput(body.prompt),
          ...schedule,
          timezone: body.timezone,
          // DeerFlow keeps each run's thread, to be opened from the task's runs.
          ...(threadId === null ? { on_run_completed: 'keep' as const } : {}),
        },
        caller,
        { title: body.title, ...(run_at ? { run_at } : {}) },
      );
      return toTask(cron);
    },

    async update(cronId: string, body: ScheduledTaskPatch, caller: Identity): Promise<ScheduledTask> {
      const current = await requireTask(cronId);
      const mode = body.context_mode === undefined || body.context_mode === null ? null : contextModeOf(body.context_mode);
      const currentMode: ContextMode = current.thread_id === null ? 'fresh_thread_per_run' : 'reuse_thread';
      if (mode !== null && mode !== currentMode) {
        throw new TaskChangeUnsupportedError(`context_mode: a ${currentMode} task cannot become ${mode} (its cron's runs stay where they are); make a new task`);
      }
      if (body.thread_id && body.thread_id !== current.thread_id) {
        throw new TaskChangeUnsupportedError(`thread_id: a task cannot move to another thread (its cron's runs stay where they are); make a new task`);
      }
      const timezone = body.timezone ?? current.timezone ?? 'UTC';
      const type: 'cron' | 'once' = current.run_at ? 'once' : 'cron';
      const spec = body.schedule_spec ?? (body.timezone ? (type === 'once' ? { run_at: current.run_at } : { cron: current.schedule }) : null);
      const scheduled = spec ? scheduleOf(type, spec, timezone) : null;
      const { run_at, ...schedule } = scheduled ?? { run_at: undefined };
      const cron = await crons.update(
        cronId,
        {
          ...(body.prompt ? { input: promptInput(body.prompt) } : {}),
          ...schedule,
          ...(scheduled ? { timezone } : {}),
        },
        caller,
        { ...(body.title ? { title: body.title } : {}), ...(run_at ? { run_at } : {}) },
      );
      return toTask(cron);
    },

    pause: async (cronId: string, caller: Identity): Promise<ScheduledTask> => {
      await requireTask(cronId);
      return toTask(await crons.update(cronId, { enabled: false }, caller));
    },

    resume: async (cronId: string, caller: Identity): Promise<ScheduledTask> => {
      await requireTask(cronId);
      return toTask(await crons.update(cronId, { enabled: true }, caller));
    },

    async trigger(cronId: string): Promise<{ id: string; triggered: boolean }> {
      const started = await deps.trigger(cronId, randomUUID());
      if (!started) throw new CronNotFoundError('Scheduled task not found');
      return { id: cronId, triggered: true };
    },

    async remove(cronId: string): Promise<{ id: string; deleted: boolean }> {
      await requireTask(cronId);
      await crons.remove(cronId);
      return { id: cronId, deleted: true };
    },

    async runs(cronId: string, query: TaskRunsQuery): Promise<ScheduledTaskRun[]> {
      await requireTask(cronId);
      const { runs } = await deps.stores.crons.runs(cronId, query);
      const found = await Promise.all(runs.map((ref) => deps.stores.runs.get(ref.thread_id, ref.run_id)));
      // A run whose thread was deleted since is gone from the list too.
      return found.filter((run): run is StoredRun => run !== null).map((run) => taskRun(cronId, run));
    },
  };
}

function taskRun(cronId: string, run: StoredRun): ScheduledTaskRun {
  const manual = run.metadata.cron_trigger === 'manual';
  const at = manual ? run.metadata.cron_triggered_at : run.metadata.cron_tick;
  return {
    id: run.run_id,
    task_id: cronId,
    thread_id: run.thread_id,
    run_id: run.run_id,
    scheduled_for: typeof at === 'string' ? at : null,
    trigger: manual ? 'manual' : 'scheduled',
    status: TASK_RUN_STATUS[run.status],
    error: run.status === 'error' || run.status === 'timeout' ? `run ended with status ${run.status}` : null,
    started_at: run.status === 'pending' ? null : run.created_at,
    finished_at: TERMINAL.has(run.status) ? run.updated_at : null,
    created_at: run.created_at,
  };
}

export type ScheduledTasksService = ReturnType<typeof createScheduledTasksService>;
