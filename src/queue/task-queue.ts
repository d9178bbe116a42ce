// The contract for sub-agent tasks: each `task` tool call is its own BullMQ job, so a run's
// sub-agents spread over the workers, and a worker that dies loses only its own part (BullMQ
// hands the job to another worker). The job id is derived from the run and the tool call, so a
// parent run that resumes after a crash finds the tasks it already started, finished or not.
// A task writes nothing of the run's: its progress travels back as BullMQ job progress, and the
// parent run streams it through its own (fenced) writer, like every other event of the run.
import { randomUUID } from 'node:crypto';
import type { Callbacks } from '@langchain/core/callbacks/manager';
import { Queue, QueueEvents, type ConnectionOptions } from 'bullmq';
import type { RedisClient } from '../store/redis.js';
import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { TaskTimeoutError } from '../errors.js';
import { TaskFailedError } from './queue.errors.js';
import { keys } from '../store/keys.js';
import { bullPrefixFor, connectionErrorLog } from '../store/redis.js';
import { traceCarrier } from '../tracing/tracing.js';
import { publishTaskCancel } from './control.js';
import { dropConnection, TraceContextSchema } from './run-queue.js';

export const TaskJobSchema = Type.Object({
  thread_id: Type.String(),
  run_id: Type.String(),
  task_id: Type.String(),
  kind: Type.String(),
  description: Type.String(),
  prompt: Type.String(),
  /** The parent run's own settings (model, switches), without LangGraph internals. */
  configurable: Type.Record(Type.String(), Type.Unknown()),
  /** The parent run's trace, when tracing is on: the task's spans join it. */
  trace_context: Type.Optional(TraceContextSchema),
});
export type TaskJob = Static<typeof TaskJobSchema>;

/**
 * Model tasks: one model call for the gateway, not a sub-agent. A model task's `prompt` is its
 * request as JSON (checked by the worker against the kind's schema), and its result is text.
 * Follow-up questions (`suggestions`): a `SuggestionRequest`, answered with a JSON array of strings.
 */
export const SUGGESTIONS_TASK_KIND = 'suggestions';
export const SuggestionRequestSchema = Type.Object({
  messages: Type.Array(Type.Object({ role: Type.String({ maxLength: 32 }), content: Type.String({ maxLength: 100_000 }) }), { maxItems: 100 }),
  n: Type.Integer({ minimum: 1, maximum: 5 }),
});
export type SuggestionRequest = Static<typeof SuggestionRequestSchema>;

/** The polish button (`input-polish`): an `InputPolishRequest`, answered with the rewritten text. */
export const INPUT_POLISH_TASK_KIND = 'input-polish';
export const InputPolishRequestSchema = Type.Object({
  text: Type.String({ maxLength: 100_000 }),
  locale: Type.Optional(Type.String({ maxLength: 64 })),
});
export type InputPolishRequest = Static<typeof InputPolishRequestSchema>;

/** A thread's compaction (`thread-compact`): a `ThreadCompactRequest`, answered with the summary. */
export const THREAD_COMPACT_TASK_KIND = 'thread-compact';
export const ThreadCompactRequestSchema = Type.Object({ transcript: Type.String({ minLength: 1, maxLength: 200_000 }) });
export type ThreadCompactRequest = Static<typeof ThreadCompactRequestSchema>;

export interface ModelTask {
  kind: typeof SUGGESTIONS_TASK_KIND | typeof INPUT_POLISH_TASK_KIND | typeof THREAD_COMPACT_TASK_KIND;
  /** The thread it is for; it only names the task (nothing of the thread is read or written). */
  threadId: string;
  request: SuggestionRequest | InputPolishRequest | ThreadCompactRequest;
  /** Absent or null: the worker's choice for the kind. */
  modelName?: string | null | undefined;
  timeoutMs: number;
}

/** Queues a model task for any worker (model clients live there) and waits for its text. */
export function runModelTask(tasks: Pick<TaskDispatcher, 'run'>, task: ModelTask): Promise<string> {
  return tasks.run(
    {
      thread_id: task.threadId,
      run_id: `${task.kind}-${randomUUID()}`,
      task_id: task.kind,
      kind: task.kind,
      description: task.kind,
      prompt: JSON.stringify(task.request),
      configurable: task.modelName ? { model_name: task.modelName } : {},
    },
    { timeoutMs: task.timeoutMs },
  );
}

/** What a running task reports as its job progress. */
export const TaskProgressSchema = Type.Object({ message: Type.String() });
export type TaskProgress = Static<typeof TaskProgressSchema>;

export const TASK_JOB_NAME = 'task';
export const taskQueueName = (runQueueName: string): string => `${runQueueName}-tasks`;

/** A BullMQ-safe job id for one tool call of one run. */
export const taskJobId = (runId: string, taskId: string): string => `${runId}--${taskId.replace(/[^A-Za-z0-9_-]/g, '_')}`;

export interface TaskRunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called with each progress message the task reports. */
  onProgress?: (message: string) => void;
  /** LangChain callbacks for the sub-agent's graph (the worker's observer: metrics, usage, spans). */
  callbacks?: Callbacks;
}

export interface TaskDispatcher {
  /** Queues the task (or finds it already queued) and waits for its result text. */
  run(task: TaskJob, options: TaskRunOptions): Promise<string>;
  /** `force`: drop the connections without a goodbye to Redis (it is not there to answer one). */
  close(force?: boolean): Promise<void>;
}

/** How far back a task dispatcher's event reader starts, for clocks that disagree. */
const EVENTS_CLOCK_MARGIN_MS = 10_000;

export function createTaskDispatcher(connection: ConnectionOptions, runQueueName: string, control: RedisClient, log: Logger): TaskDispatcher {
  const name = taskQueueName(runQueueName);
  const queue = new Queue<TaskJob, string, typeof TASK_JOB_NAME>(name, { connection, prefix: bullPrefixFor(connection, name) });
  // Events from now on, not from whenever its first XREAD runs (BullMQ's `$`): a task that ends
  // before that read starts (a Cluster client takes a while to connect) would otherwise never be
  // heard of, and its caller would wait out its timeout. The margin covers this host's clock
  // running ahead of Redis's; replaying a few seconds of events costs nothing.
  const events = new QueueEvents(name, { connection, prefix: bullPrefixFor(connection, name), lastEventId: `${Date.now() - EVENTS_CLOCK_MARGIN_MS}-0` });
  queue.on('error', connectionErrorLog(log, { queue: name }).error);
  events.on('error', connectionErrorLog(log, { queue: name, role: 'events' }).error);
  const progressListeners = new Map<string, (message: string) => void>();
  events.on('progress', ({ jobId, data }) => {
    if (Value.Check(TaskProgressSchema, data)) progressListeners.get(jobId)?.(data.message);
  });

  const stop = async (jobId: string) => {
    // A waiting job is removed; a running one is cancelled by the worker that holds it.
    // BullMQ refuses to remove a job that is running (it is locked): the cancel below stops it.
    await queue.remove(jobId).catch(() => 0);
    await publishTaskCancel(control, { task_job_id: jobId });
  };

  return {
    async run(task, { timeoutMs, signal, onProgress }) {
      const jobId = taskJobId(task.run_id, task.task_id);
      if (onProgress) progressListeners.set(jobId, onProgress);
      const timeout = AbortSignal.timeout(timeoutMs);
      const stopped = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        const traceContext = traceCarrier();
        const job = await queue.add(TASK_JOB_NAME, traceContext ? { ...task, trace_context: traceContext } : task, {
          jobId,
          attempts: 1,
          removeOnComplete: { age: 3600, count: 10_000 },
          removeOnFail: { age: 24 * 3600, count: 10_000 },
        });
        const aborted = new Promise<never>((_, reject) => {
          if (stopped.aborted) reject(stopped.reason);
          stopped.addEventListener('abort', () => reject(stopped.reason), { once: true });
        });
        // Our own timer decides the timeout; BullMQ's ttl, a minute later, only frees its listeners
        // for a job that was removed before it ever finished.
        const finished = job.waitUntilFinished(events, timeoutMs + 60_000);
        // Whichever loses the race below is settled already; its rejection has nobody to tell.
        finished.catch(() => undefined);
        return await Promise.race([finished, aborted]);
      } catch (err) {
        if (stopped.aborted) await stop(jobId);
        if (timeout.aborted && !signal?.aborted) throw new TaskTimeoutError(`timed out after ${Math.round(timeoutMs / 1000)} s`);
        // A failed job rejects with its failure reason: pass it on as the task's error.
        throw err instanceof Error ? err : new TaskFailedError(String(err));
      } finally {
        progressListeners.delete(jobId);
      }
    },
    async close(force = false) {
      if (force) {
        await Promise.all([dropConnection(events), dropConnection(queue)]);
        return;
      }
      await events.close();
      await queue.close();
    },
  };
}
