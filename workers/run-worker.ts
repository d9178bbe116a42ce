// The BullMQ Worker for runs: one job is one run. Cancels arrive over pub/sub and reach the
// job's AbortSignal through `cancelJob`; on shutdown every job is handed back to the queue
// (no attempt is spent) so another worker resumes it from its last checkpoint. A job whose lock
// could not be renewed is stopped at once: another worker may already hold it.
import { WaitingError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { subscribeControl } from '../src/queue/control.js';
import type { RunJob } from '../src/queue/run-queue.js';
import { keys } from '../src/store/keys.js';
import { executeRun, type ExecutorDeps } from './run-executor/executor.js';

export interface RunWorkerOptions {
  queueName: string;
  connection: ConnectionOptions;
  concurrency: number;
  /** A dedicated connection for control messages. */
  subscriber: Redis;
  executor: ExecutorDeps;
  log: Logger;
  /** Lock and stall timings: a dead worker's run moves to another within lock + interval. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
}

export interface RunWorker {
  readonly worker: Worker<RunJob>;
  /** Hands running jobs back and stops taking new ones. */
  close(): Promise<void>;
}

export async function startRunWorker(options: RunWorkerOptions): Promise<RunWorker> {
  const { executor, log } = options;
  const processor = async (job: Job<RunJob>, token?: string, signal?: AbortSignal) => {
    const controller = signal ?? new AbortController().signal;
    const outcome = await executeRun(job.data, controller, executor);
    if (outcome === 'handed-back') await job.moveToWait(token);
    // WaitingError tells BullMQ the job is no longer this worker's to complete or fail: handed
    // back, or lost to the worker that holds it now.
    if (outcome === 'handed-back' || outcome === 'lost') throw new WaitingError();
    return outcome;
  };

  const worker = new Worker<RunJob>(options.queueName, processor, {
    connection: options.connection,
    prefix: keys.bullPrefix(),
    concurrency: options.concurrency,
    // Measured here: defaults take a dead worker's job over after ~60 s; 10 s / 5 s gives ~10 s.
    lockDuration: options.lockDurationMs ?? 10_000,
    stalledInterval: options.stalledIntervalMs ?? 5_000,
    // Our own attempt counter fails a run after `max_attempts`; BullMQ must not fail it first.
    maxStalledCount: options.maxStalledCount ?? 10,
  });
  worker.on('error', (err) => log.warn({ err: err.message }, 'worker error'));
  // Without its lock the job may be another worker's already: stop it before its next write
  // (which Redis would refuse anyway).
  worker.on('lockRenewalFailed', (jobIds: string[]) => {
    for (const id of jobIds) if (worker.cancelJob(id, 'lost')) log.warn({ run_id: id }, 'lock renewal failed; stopping the run');
  });
  worker.on('failed', (job, err) => {
    if (job) log.error({ run_id: job.data.run_id, err: err.message }, 'run job failed');
  });

  await subscribeControl(options.subscriber, {
    onCancel: (message) => {
      if (worker.cancelJob(message.run_id, message.action)) log.info({ run_id: message.run_id, action: message.action }, 'cancelling run');
    },
  });

  let closing: Promise<void> | undefined;
  return {
    worker,
    close: () =>
      (closing ??= (async () => {
        worker.cancelAllJobs('shutdown');
        await worker.close();
        options.subscriber.disconnect();
      })()),
  };
}
