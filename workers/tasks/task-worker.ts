// The BullMQ Worker for sub-agent tasks. Each job runs one sub-agent and reports its progress as
// the job's progress (the parent run streams it); its result text is the job's return value.
import { context, SpanKind, type Context } from '@opentelemetry/api';
import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { RedisClient } from '../../src/store/redis.js';
import type { Logger } from 'pino';
import { subscribeControl } from '../../src/queue/control.js';
import { checkMessage } from '../../src/queue/message.js';
import { TaskJobSchema, taskQueueName, type TaskJob, type TaskProgress } from '../../src/queue/task-queue.js';
import { keys } from '../../src/store/keys.js';
import { bullPrefixFor, connectionErrorLog } from '../../src/store/redis.js';
import { contextFrom, inSpan } from '../../src/tracing/tracing.js';
import type { SubagentRunner } from '../../graphs/lead-agent/subagents.js';
import type { RunObserver } from '../run-executor/run-observer.js';

export interface TaskWorkerOptions {
  runQueueName: string;
  connection: ConnectionOptions;
  concurrency: number;
  subscriber: RedisClient;
  runner: SubagentRunner;
  observe?: ObserveTask;
  timeoutMs: number;
  /** Recorded on each job as `processedBy`. */
  workerName: string;
  log: Logger;
}

/** Observes a task's sub-agent graph (metrics, token usage with its parent run, spans under `root`). */
export type ObserveTask = (task: TaskJob, root: Context) => RunObserver;

export async function startTaskWorker(options: TaskWorkerOptions): Promise<{ close(force?: boolean): Promise<void> }> {
  const { log } = options;
  const processor = async (job: Job<TaskJob, string>, _token?: string, signal?: AbortSignal) => {
    // A job that does not match fails, and its parent run reads the failure as the task's error.
    const task = checkMessage(TaskJobSchema, job.data, 'InvalidTaskJob', 'task job');
    log.info({ run_id: task.run_id, task_id: task.task_id }, 'sub-agent task started');
    const attributes = { 'warren.run_id': task.run_id, 'warren.task_id': task.task_id, 'warren.subagent': task.kind };
    const run = async () => {
      const observer = options.observe?.(task, context.active());
      try {
        return await options.runner(task, {
          timeoutMs: options.timeoutMs,
          ...(signal ? { signal } : {}),
          ...(observer ? { callbacks: [observer] } : {}),
          onProgress: (message) => {
            const progress: TaskProgress = { message };
            // Progress is a courtesy: the task goes on, and its result still arrives, without it.
            job.updateProgress(progress).catch((err: unknown) => log.warn({ err, task_id: task.task_id }, 'could not report task progress'));
          },
        });
      } finally {
        // The tokens are with the parent run before it learns the task's result.
        await observer?.flush();
      }
    };
    return inSpan(`task ${task.kind}`, SpanKind.CONSUMER, attributes, run, contextFrom(task.trace_context));
  };
  const worker = new Worker<TaskJob, string>(taskQueueName(options.runQueueName), processor, {
    connection: options.connection,
    prefix: bullPrefixFor(options.connection, taskQueueName(options.runQueueName)),
    concurrency: options.concurrency,
    name: options.workerName,
    lockDuration: 10_000,
    stalledInterval: 5_000,
    maxStalledCount: 2,
  });
  worker.on('error', connectionErrorLog(log, { worker: 'tasks' }).error);
  // The parent timed out waiting, or was stopped.
  await subscribeControl(options.subscriber, { onTaskCancel: (message) => void worker.cancelJob(message.task_job_id, 'interrupt') }, log);
  return {
    /** `force`: do not wait for running tasks (Redis is away; their locks lapse and they are retried). */
    async close(force = false) {
      await worker.close(force);
      options.subscriber.disconnect();
    },
  };
}
