// The run Workers' processor: one job in, one run executed, tracked by job id so that a cancel,
// a lost lock or shutdown can stop it. A job that is not this worker's to run now (not due yet,
// no free slot, a pick-up of a run still stopping here) goes back to BullMQ untouched.
import { SpanKind } from '@opentelemetry/api';
import { DelayedError, WaitingError, type Job } from 'bullmq';
import { checkMessage } from '../../src/queue/message.js';
import { RunJobSchema, type RunJob } from '../../src/queue/run-queue.js';
import { contextFrom, inSpan } from '../../src/tracing/tracing.js';
import { executeRun, runDueAt, type ExecuteOutcome, type StopReason } from './executor.js';
import type { ExecutorDeps } from './executor-deps.js';
import type { RunSlot, RunSlots } from './run-slots.js';

/** On one Redis the single Worker's own concurrency is the limit: there is nothing to share. */
const UNGATED: RunSlot = { release: () => undefined };

export class RunProcessor {
  /**
   * The runs this worker executes, by job id, each with its own stop switch. BullMQ keys its
   * own signals by job id too, so after a lost lock it can hand this worker the very job it is
   * still running, and then has one signal for both.
   */
  private readonly running = new Map<string, { stop: AbortController; done: Promise<unknown> }>();
  /**
   * The slots shared by a Cluster's run queues (run-slots.ts); null on one Redis. Set once the
   * Workers exist: they call the processor only later, from their fetch loops.
   */
  slots: RunSlots | null = null;

  constructor(
    private readonly queueName: string,
    private readonly executor: ExecutorDeps,
  ) {}

  /** BullMQ's processor for a run job. */
  async process(job: Job<RunJob>, token?: string): Promise<ExecuteOutcome> {
    // A job that does not match fails at once (its run is settled by nobody: it names none).
    const data = checkMessage(RunJobSchema, job.data, 'InvalidRunJob', 'run job');
    const jobId = job.id as string;
    const earlier = this.running.get(jobId);
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
    const dueAt = await runDueAt(data, this.executor);
    if (dueAt !== null) {
      // Not due yet (`after_seconds`): back to BullMQ's delayed set, holding no worker slot.
      await job.moveToDelayed(dueAt, token);
      throw new DelayedError();
    }
    // Taken only now, so a delayed job never holds one; given back however the run ends.
    const slot = this.slots ? this.slots.take(job.queueName) : UNGATED;
    if (!slot) {
      // Every slot is taken (a fetch under way when the last one went brought this job): back
      // to its queue untouched, no attempt spent, for another process or this one later.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    let outcome: ExecuteOutcome;
    try {
      outcome = await this.execute(jobId, data);
    } finally {
      slot.release();
    }
    if (outcome === 'handed-back') await job.moveToWait(token);
    // WaitingError tells BullMQ the job is no longer this worker's to complete or fail: handed
    // back, or lost to the worker that holds it now.
    if (outcome === 'handed-back' || outcome === 'lost') throw new WaitingError();
    return outcome;
  }

  /** Stops the job's run with `reason`; false when this worker is not running it. */
  stop(jobId: string, reason: StopReason): boolean {
    const run = this.running.get(jobId);
    run?.stop.abort(reason);
    return run !== undefined;
  }

  /** Stops every run this worker executes. */
  stopAll(reason: StopReason): void {
    for (const id of this.running.keys()) this.stop(id, reason);
  }

  /** Runs the job's run, tracked in `running` so a cancel or a lost lock can stop it. */
  private async execute(jobId: string, data: RunJob): Promise<ExecuteOutcome> {
    const switchOff = new AbortController();
    // The run's span continues the trace of the request that enqueued it (its job carries it).
    const attributes = { 'messaging.system': 'bullmq', 'warren.run_id': data.run_id, 'warren.thread_id': data.thread_id };
    const execution = inSpan(
      `run ${this.queueName}`,
      SpanKind.CONSUMER,
      attributes,
      async (span) => {
        const outcome = await executeRun(data, switchOff.signal, this.executor);
        span.setAttribute('warren.run.outcome', outcome);
        return outcome;
      },
      contextFrom(data.trace_context),
    );
    this.running.set(jobId, { stop: switchOff, done: execution });
    try {
      return await execution;
    } finally {
      this.running.delete(jobId);
    }
  }
}
