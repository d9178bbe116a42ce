// The BullMQ Worker for runs: one job is one run. Cancels arrive over pub/sub and reach the
// run's own stop switch; on shutdown every job is handed back to the queue
// (no attempt is spent) so another worker resumes it from its last checkpoint. A job whose lock
// could not be renewed is stopped at once: another worker may already hold it.
import { SpanKind } from '@opentelemetry/api';
import { DelayedError, WaitingError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { RedisClient } from '../../src/store/redis.js';
import type { Logger } from 'pino';
import { subscribeControl } from '../../src/queue/control.js';
import { checkMessage } from '../../src/queue/message.js';
import { RunJobSchema, runQueueNames, type RunJob } from '../../src/queue/run-queue.js';
import { keys } from '../../src/store/keys.js';
import { bullPrefixFor, connectionErrorLog } from '../../src/store/redis.js';
import { contextFrom, inSpan } from '../../src/tracing/tracing.js';
import { executeRun, runDueAt, type ExecutorDeps, type StopReason } from './executor.js';
import { RunSlots, type RunSlot } from './run-slots.js';

/** On one Redis the single Worker's own concurrency is the limit: there is nothing to share. */
const UNGATED: RunSlot = { release: () => undefined };

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

  // One BullMQ Worker per run queue: one on a single Redis, whose concurrency is the process's
  // limit; the shards on a Cluster, each allowed the whole limit, with slots shared by all of
  // them holding the process to it (run-slots.ts).
  const names = runQueueNames(options.connection, options.queueName);
  // Set once the Workers exist: they call the processor only later, from their fetch loops.
  let slots: RunSlots | null = null;

  /** Runs the job's run, tracked in `running` so a cancel or a lost lock can stop it. */
  const execute = async (jobId: string, data: RunJob) => {
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
    try {
      return await execution;
    } finally {
      running.delete(jobId);
    }
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
    // Taken only now, so a delayed job never holds one; given back however the run ends.
    const slot = slots ? slots.take(job.queueName) : UNGATED;
    if (!slot) {
      // Every slot is taken (a fetch under way when the last one went brought this job): back
      // to its queue untouched, no attempt spent, for another process or this one later.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    let outcome: Awaited<ReturnType<typeof execute>>;
    try {
      outcome = await execute(jobId, data);
    } finally {
      slot.release();
    }
    if (outcome === 'handed-back') await job.moveToWait(token);
    // WaitingError tells BullMQ the job is no longer this worker's to complete or fail: handed
    // back, or lost to the worker that holds it now.
    if (outcome === 'handed-back' || outcome === 'lost') throw new WaitingError();
    return outcome;
  };

  const errors = connectionErrorLog(log, { worker: 'runs' });
  const workers = names.map((name) => {
    const worker = new Worker<RunJob>(name, processor, {
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
  if (workers.length > 1) slots = new RunSlots(options.concurrency, workers);

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
        slots?.close();
        for (const id of running.keys()) stop(id, 'shutdown');
        await Promise.all(workers.map((worker) => worker.close(force)));
        options.subscriber.disconnect();
      })()),
  };
}
