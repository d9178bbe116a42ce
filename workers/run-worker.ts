// The BullMQ Worker for runs: one job is one run. Cancels arrive over pub/sub and reach the
// run's own stop switch; on shutdown every job is handed back to the queue
// (no attempt is spent) so another worker resumes it from its last checkpoint. A job whose lock
// could not be renewed is stopped at once: another worker may already hold it.
import { SpanKind } from '@opentelemetry/api';
import { DelayedError, WaitingError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { RedisClient } from '../src/store/redis.js';
import type { Logger } from 'pino';
import { subscribeControl } from '../src/queue/control.js';
import { checkMessage } from '../src/queue/message.js';
import { RunJobSchema, runQueueNames, type RunJob } from '../src/queue/run-queue.js';
import { keys } from '../src/store/keys.js';
import { bullPrefixFor, connectionErrorLog } from '../src/store/redis.js';
import { contextFrom, inSpan } from '../src/tracing/tracing.js';
import { executeRun, runDueAt, type ExecutorDeps, type StopReason } from './run-executor/executor.js';

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
  const { executor, log } = options;
  // The runs this worker executes, by job id, each with its own stop switch. BullMQ keys its
  // own signals by job id too, so after a lost lock it can hand this worker the very job it is
  // still running, and then has one signal for both.
  const running = new Map<string, { stop: AbortController; done: Promise<unknown> }>();
  const stop = (jobId: string, reason: StopReason): boolean => {
    const run = running.get(jobId);
    run?.stop.abort(reason);
    return run !== undefined;
  };

  const processor = async (job: Job<RunJob>, token?: string) => {
    // A job that does not match fails at once (its run is settled by nobody: it names none).
    const data = checkMessage(RunJobSchema, job.data, 'InvalidRunJob', 'run job');
    const jobId = job.id as string;
    const earlier = running.get(jobId);
    if (earlier) {
      // The earlier run here lost its lock (its job went back to the queue and came back to us).
      // Stop it, and hand this pick-up back rather than start beside it: BullMQ's clean-up of
      // the earlier one untracks this one's lock too, which would then lapse mid-run.
      earlier.stop.abort('lost' satisfies StopReason);
      // Its own processor call reports how it ended; here it only has to have ended.
      await earlier.done.catch(() => undefined);
      await job.moveToWait(token);
      throw new WaitingError();
    }
    const dueAt = await runDueAt(data, executor);
    if (dueAt !== null) {
      // Not due yet (`after_seconds`): back to BullMQ's delayed set, holding no worker slot.
      await job.moveToDelayed(dueAt, token);
      throw new DelayedError();
    }
    const switchOff = new AbortController();
    // The run's span continues the trace of the request that enqueued it (its job carries it).
    const attributes = { 'messaging.system': 'bullmq', 'warren.run_id': data.run_id, 'warren.thread_id': data.thread_id };
    const execution = inSpan(
      `run ${options.queueName}`,
      SpanKind.CONSUMER,
      attributes,
      async (span) => {
        const outcome = await executeRun(data, switchOff.signal, executor);
        span.setAttribute('warren.run.outcome', outcome);
        return outcome;
      },
      contextFrom(data.trace_context),
    );
    running.set(jobId, { stop: switchOff, done: execution });
    let outcome: Awaited<typeof execution>;
    try {
      outcome = await execution;
    } finally {
      running.delete(jobId);
    }
    if (outcome === 'handed-back') await job.moveToWait(token);
    // WaitingError tells BullMQ the job is no longer this worker's to complete or fail: handed
    // back, or lost to the worker that holds it now.
    if (outcome === 'handed-back' || outcome === 'lost') throw new WaitingError();
    return outcome;
  };

  // One BullMQ Worker per run queue (one on a single Redis; the shards on a Cluster, each its
  // own slot). The process's concurrency is shared out among them, the remainder to the first
  // ones, at least one run each (BullMQ's minimum): on a Cluster the total is exactly
  // WARREN_WORKER_CONCURRENCY when that is at least the shard count, and a shard's share caps
  // this process's runs of it, even while its other shares are idle.
  const names = runQueueNames(options.connection, options.queueName);
  const share = (k: number) => Math.max(1, Math.floor(options.concurrency / names.length) + (k < options.concurrency % names.length ? 1 : 0));
  const errors = connectionErrorLog(log, { worker: 'runs' });
  const workers = names.map((name, k) => {
    const worker = new Worker<RunJob>(name, processor, {
      connection: options.connection,
      prefix: bullPrefixFor(options.connection, name),
      concurrency: share(k),
      // Measured here: BullMQ's defaults take a dead worker's job over after ~60 s; 10 s / 5 s
      // (our config's defaults) gives ~10 s.
      lockDuration: options.lockDurationMs ?? 10_000,
      stalledInterval: options.stalledIntervalMs ?? 5_000,
      // Our own attempt counter fails a run after `max_attempts`; BullMQ must not fail it first.
      maxStalledCount: options.maxStalledCount ?? 10,
    });
    // Mostly Redis connection errors, one per reconnect attempt while Redis is away.
    worker.on('error', errors.error);
    // Without its lock the job may be another worker's already: stop it before its next write
    // (which Redis would refuse anyway).
    worker.on('lockRenewalFailed', (jobIds: string[]) => {
      for (const id of jobIds) if (stop(id, 'lost')) log.warn({ run_id: id }, 'lock renewal failed; stopping the run');
    });
    worker.on('failed', (job, err) => {
      // The job id is the run id; the data may be what failed.
      if (job) log.error({ run_id: job.id, err }, 'run job failed');
    });
    return worker;
  });

  await subscribeControl(options.subscriber, {
    onCancel: (message) => {
      if (stop(message.run_id, message.action)) log.info({ run_id: message.run_id, action: message.action }, 'cancelling run');
    },
  }, log);

  let closing: Promise<void> | undefined;
  return {
    workers,
    close: (force = false) =>
      (closing ??= (async () => {
        for (const id of running.keys()) stop(id, 'shutdown');
        await Promise.all(workers.map((worker) => worker.close(force)));
        options.subscriber.disconnect();
      })()),
  };
}
