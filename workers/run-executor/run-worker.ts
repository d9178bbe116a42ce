// The BullMQ Worker for runs: one job is one run. Cancels arrive over pub/sub and reach the
// run's own stop switch; on shutdown every job is handed back to the queue
// (no attempt is spent) so another worker resumes it from its last checkpoint. A job whose lock
// could not be renewed (Redis was away longer than the lock) goes on if no other worker has
// claimed its run meanwhile, and is stopped if one has (run-leases.ts).
import { Worker, type ConnectionOptions } from 'bullmq';
import type { RedisClient } from '../../src/store/redis.js';
import type { Logger } from 'pino';
import { subscribeControl } from '../../src/queue/control.js';
import { runQueueNames, type RunJob } from '../../src/queue/run-queue.js';
import { bullPrefixFor, connectionErrorLog } from '../../src/store/redis.js';
import type { ExecutorDeps } from './executor-deps.js';
import { RunProcessor } from './run-processor.js';
import type { JobLocks } from '../../src/store/job-locks.js';
import { RunSlots } from './run-slots.js';

export interface RunWorkerOptions {
  queueName: string;
  connection: ConnectionOptions;
  concurrency: number;
  /** A dedicated connection for control messages. */
  subscriber: RedisClient;
  executor: ExecutorDeps;
  log: Logger;
  /** Lock and stall timings: a dead worker's run moves to another within lock + interval. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
  /**
   * Keep runs through an outage of up to `holdMs` (run-leases.ts), re-locking their jobs with
   * `jobLocks`; without it, a run whose lock could not be renewed is stopped at once.
   */
  outage?: { holdMs: number; jobLocks: JobLocks };
}

export interface RunWorker {
  /** One per run queue (see run-queue.ts). */
  readonly workers: Worker<RunJob>[];
  /**
   * Hands running jobs back and stops taking new ones. `force` (Redis is away, so nothing can be
   * handed back) does not wait for them: their locks lapse and another worker takes them over.
   */
  close(force?: boolean): Promise<void>;
}

export async function startRunWorker(options: RunWorkerOptions): Promise<RunWorker> {
  const { log } = options;
  const lockMs = options.lockDurationMs ?? 10_000;
  const lease = options.executor.settings.lease;
  const holding = options.outage && lease ? { leaseMs: lease.leaseMs, lockMs, ...options.outage } : undefined;
  const processor = new RunProcessor(options.queueName, options.executor, holding);
  // One BullMQ Worker per run queue: one on a single Redis, whose concurrency is the process's
  // limit; the shards on a Cluster, each allowed the whole limit, with slots shared by all of
  // them holding the process to it (run-slots.ts).
  const names = runQueueNames(options.connection, options.queueName);
  const errors = connectionErrorLog(log, { worker: 'runs' });
  const workers = names.map((name) => runQueueWorker(name, processor, options, errors.error));
  if (workers.length > 1) processor.slots = new RunSlots(options.concurrency, workers);

  await subscribeControl(options.subscriber, {
    onCancel: (message) => {
      if (processor.stop(message.run_id, message.action)) log.info({ run_id: message.run_id, action: message.action }, 'cancelling run');
    },
  }, log);

  let closing: Promise<void> | undefined;
  return {
    workers,
    close: (force = false) =>
      (closing ??= (async () => {
        processor.slots?.close();
        processor.close();
        processor.stopAll('shutdown');
        await Promise.all(workers.map((worker) => worker.close(force)));
        options.subscriber.disconnect();
      })()),
  };
}

/** The BullMQ Worker of one run queue, its runs stopped when it cannot renew their locks. */
function runQueueWorker(name: string, processor: RunProcessor, options: RunWorkerOptions, onError: (err: Error) => void): Worker<RunJob> {
  const { log } = options;
  const worker = new Worker<RunJob>(name, (job, token) => processor.process(job, token), {
    connection: options.connection,
    prefix: bullPrefixFor(options.connection, name),
    concurrency: options.concurrency,
    // Measured here: BullMQ's defaults take a dead worker's job over after ~60 s; 10 s / 5 s
    // (our config's defaults) gives ~10 s.
    lockDuration: options.lockDurationMs ?? 10_000,
    stalledInterval: options.stalledIntervalMs ?? 5_000,
    // Our own attempt counter fails a run after `max_attempts`; BullMQ must not fail it first.
    maxStalledCount: options.maxStalledCount ?? 10,
  });
  // Mostly Redis connection errors, one per reconnect attempt while Redis is away.
  worker.on('error', onError);
  // Without its lock the job may be another worker's already: the run goes on only if its
  // attempt still holds it (or is stopped, before its next write, which Redis would refuse anyway).
  worker.on('lockRenewalFailed', (jobIds: string[]) => {
    for (const id of jobIds) {
      processor.lockLapsed(id).then(
        (result) => {
          // Re-taken (and re-locked) runs go on: the outage is already logged by the connections.
          if (result === 'relocked' || result === 'retaken') log.info({ run_id: id, result }, 'lock lapsed; run re-taken');
          else if (result !== 'not-running') log.warn({ run_id: id, result }, 'lock renewal failed');
        },
        (err: unknown) => log.warn({ run_id: id, err }, 'lock renewal failed, and re-taking the run failed'),
      );
    }
  });
  worker.on('failed', (job, err) => {
    // The job id is the run id; the data may be what failed.
    if (job) log.error({ run_id: job.id, err }, 'run job failed');
  });
  return worker;
}
