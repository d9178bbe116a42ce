// The BullMQ Worker for sub-agent tasks. Each job runs one sub-agent and reports its progress
// straight into the parent run's event stream; its result text is the job's return value.
import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { toWireJson } from '../src/graphs/serialize.js';
import { subscribeControl } from '../src/queue/control.js';
import { taskQueueName, type TaskJob } from '../src/queue/task-queue.js';
import { keys } from '../src/store/keys.js';
import type { RunStreams } from '../src/store/run-stream.js';
import type { SubagentRunner } from './agent/subagents.js';

export interface TaskWorkerOptions {
  runQueueName: string;
  connection: ConnectionOptions;
  concurrency: number;
  subscriber: Redis;
  runner: SubagentRunner;
  streams: RunStreams;
  timeoutMs: number;
  /** Recorded on each job as `processedBy`. */
  workerName: string;
  log: Logger;
}

export async function startTaskWorker(options: TaskWorkerOptions): Promise<{ close(): Promise<void> }> {
  const { streams, log } = options;
  const processor = async (job: Job<TaskJob, string>, _token?: string, signal?: AbortSignal) => {
    const task = job.data;
    const stream = streams.writer(task.thread_id, task.run_id);
    log.info({ run_id: task.run_id, task_id: task.task_id }, 'sub-agent task started');
    return options.runner(task, {
      timeoutMs: options.timeoutMs,
      ...(signal ? { signal } : {}),
      onProgress: (message) =>
        void stream
          .append('custom', toWireJson({ type: 'task_running', task_id: task.task_id, description: task.description, subagent_type: task.kind, message }))
          .catch(() => undefined),
    });
  };
  const worker = new Worker<TaskJob, string>(taskQueueName(options.runQueueName), processor, {
    connection: options.connection,
    prefix: keys.bullPrefix(),
    concurrency: options.concurrency,
    name: options.workerName,
    lockDuration: 10_000,
    stalledInterval: 5_000,
    maxStalledCount: 2,
  });
  worker.on('error', (err) => log.warn({ err: err.message }, 'task worker error'));
  // A cancel names the task's job id (the parent timed out or was cancelled).
  await subscribeControl(options.subscriber, { onCancel: (message) => void worker.cancelJob(message.run_id, message.action) });
  return {
    async close() {
      await worker.close();
      options.subscriber.disconnect();
    },
  };
}
