// The contract for sub-agent tasks: each `task` tool call is its own BullMQ job, so a run's
// sub-agents spread over the workers, and a worker that dies loses only its own part (BullMQ
// hands the job to another worker). The job id is derived from the run and the tool call, so a
// parent run that resumes after a crash finds the tasks it already started, finished or not.
import { Queue, QueueEvents, type ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { Type, type Static } from 'typebox';
import { keys } from '../store/keys.js';
import { publishCancel } from './control.js';

export const TaskJobSchema = Type.Object({
  thread_id: Type.String(),
  run_id: Type.String(),
  task_id: Type.String(),
  kind: Type.String(),
  description: Type.String(),
  prompt: Type.String(),
  /** The parent run's own settings (model, switches), without LangGraph internals. */
  configurable: Type.Record(Type.String(), Type.Unknown()),
});
export type TaskJob = Static<typeof TaskJobSchema>;

export const TASK_JOB_NAME = 'task';
export const taskQueueName = (runQueueName: string): string => `${runQueueName}-tasks`;

/** A BullMQ-safe job id for one tool call of one run. */
export const taskJobId = (runId: string, taskId: string): string => `${runId}--${taskId.replace(/[^A-Za-z0-9_-]/g, '_')}`;

export class TaskTimeoutError extends Error {
  override readonly name = 'TaskTimeoutError';
}

export interface TaskDispatcher {
  /** Queues the task (or finds it already queued) and waits for its result text. */
  run(task: TaskJob, options: { timeoutMs: number; signal?: AbortSignal }): Promise<string>;
  close(): Promise<void>;
}

export function createTaskDispatcher(connection: ConnectionOptions, runQueueName: string, control: Redis): TaskDispatcher {
  const name = taskQueueName(runQueueName);
  const queue = new Queue<TaskJob, string, typeof TASK_JOB_NAME>(name, { connection, prefix: keys.bullPrefix() });
  const events = new QueueEvents(name, { connection, prefix: keys.bullPrefix() });
  queue.on('error', () => {});
  events.on('error', () => {});

  const stop = async (jobId: string, threadId: string) => {
    // A waiting job is removed; a running one is cancelled by the worker that holds it.
    await queue.remove(jobId).catch(() => 0);
    await publishCancel(control, { thread_id: threadId, run_id: jobId, action: 'interrupt' });
  };

  return {
    async run(task, { timeoutMs, signal }) {
      const jobId = taskJobId(task.run_id, task.task_id);
      const job = await queue.add(TASK_JOB_NAME, task, {
        jobId,
        attempts: 1,
        removeOnComplete: { age: 3600, count: 10_000 },
        removeOnFail: { age: 24 * 3600, count: 10_000 },
      });
      const aborted = new Promise<never>((_, reject) => {
        if (signal?.aborted) reject(signal.reason);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      try {
        return await Promise.race([job.waitUntilFinished(events, timeoutMs), aborted]);
      } catch (err) {
        const timedOut = err instanceof Error && /timed out before finishing/.test(err.message) && !signal?.aborted;
        if (timedOut || signal?.aborted) await stop(jobId, task.thread_id);
        if (timedOut) throw new TaskTimeoutError(`timed out after ${Math.round(timeoutMs / 1000)} s`);
        // A failed job rejects with its failure reason: pass it on as the task's error.
        throw err instanceof Error ? err : new Error(String(err));
      }
    },
    async close() {
      await events.close();
      await queue.close();
    },
  };
}
