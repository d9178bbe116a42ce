// The run Workers' processor: one job in, one run executed, tracked by job id so that a cancel,
// a lost hold or shutdown can stop it. A job that is not this worker's to run now (not due yet,
// no free slot, a run a live worker holds, this one included) goes back to BullMQ untouched.
import { SpanKind } from '@opentelemetry/api';
import { DelayedError, WaitingError, type Job } from 'bullmq';
import { checkMessage } from '../../src/queue/message.js';
import { RunJobSchema, type RunJob } from '../../src/queue/run-queue.js';
import type { RunFence } from '../../src/store/records.js';
import { contextFrom, inSpan } from '../../src/tracing/tracing.js';
import { executeRun, type ExecuteOutcome, type StopReason } from './executor.js';
import type { ExecutorDeps } from './executor-deps.js';
import type { JobLocks } from '../../src/store/job-locks.js';
import { RunLeases } from './run-leases.js';
import type { RunSlot, RunSlots } from './run-slots.js';

/** On one Redis the single Worker's own concurrency is the limit: there is nothing to share. */
const UNGATED: RunSlot = { release: () => undefined };

/** How a worker keeps its runs through an outage (run-leases.ts), and takes their job locks back. */
export interface RunHolding {
  leaseMs: number;
  /** The longest outage a run survives on its worker. */
  holdMs: number;
  /** BullMQ's lock duration, for a re-taken job lock. */
  lockMs: number;
  jobLocks: JobLocks;
}

/** A run this worker executes: its stop switch, its end, and its job as BullMQ handed it. */
interface Running {
  stop: AbortController;
  done: Promise<unknown>;
  job: { queueQualifiedName: string; id: string };
  token: string | undefined;
}

export class RunProcessor {
  /**
   * The runs this worker executes, by job id, each with its own stop switch. BullMQ keys its
   * own signals by job id too, so after a lost lock it can hand this worker the very job it is
   * still running, and then has one signal for both.
   */
  private readonly running = new Map<string, Running>();
  private readonly leases: RunLeases | null;
  /**
   * The slots shared by a Cluster's run queues (run-slots.ts); null on one Redis. Set once the
   * Workers exist: they call the processor only later, from their fetch loops.
   */
  slots: RunSlots | null = null;

  constructor(
    private readonly queueName: string,
    private readonly executor: ExecutorDeps,
    private readonly holding?: RunHolding,
  ) {
    this.leases = holding ? new RunLeases(executor.runs, holding, executor.log) : null;
  }

  /** BullMQ's processor for a run job. */
  async process(job: Job<RunJob>, token?: string): Promise<ExecuteOutcome> {
    // A job that does not match fails at once (its run is settled by nobody: it names none).
    const data = checkMessage(RunJobSchema, job.data, 'InvalidRunJob', 'run job');
    const jobId = job.id as string;
    const earlier = this.running.get(jobId);
    if (earlier) {
      if (!this.leases) {
        // Without holds, the earlier run here lost its run with its lock (its job went back to
        // the queue and came back to us). Stop it, and hand this pick-up back rather than start
        // beside it: BullMQ's clean-up of the earlier one untracks this one's lock too.
        earlier.stop.abort('lost' satisfies StopReason);
        // Its own processor call reports how it ended; here it only has to have ended.
        await earlier.done.catch(() => undefined);
        await job.moveToWait(token);
        throw new WaitingError();
      }
      // This worker still executes the run: its lock lapsed in an outage and the stalled check
      // gave the job back. The run goes on (or stops, if another attempt holds it: its hold
      // says); this pick-up waits in the delayed set, and finds the run settled next time.
      await job.moveToDelayed(Date.now() + this.leases.parkMs, token);
      throw new DelayedError();
    }
    // Given back however the run ends; a run not due yet holds it only for its claim.
    const slot = this.slots ? this.slots.take(job.queueName) : UNGATED;
    if (!slot) {
      // Every slot is taken (a fetch under way when the last one went brought this job): back
      // to its queue untouched, no attempt spent, for another process or this one later.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    let outcome: ExecuteOutcome;
    try {
      outcome = await this.execute({ queueQualifiedName: job.queueQualifiedName, id: jobId }, token, data);
    } finally {
      slot.release();
    }
    if (typeof outcome === 'object') {
      // Not due yet (`after_seconds`), or a live worker holds the run: this pick-up waits in the
      // delayed set, holding no slot, no attempt spent.
      await job.moveToDelayed('notDue' in outcome ? outcome.notDue.dueAt : Date.now() + outcome.held.waitMs, token);
      throw new DelayedError();
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

  /**
   * BullMQ could not renew the job's lock: it lapsed, Redis being away longer than the lock.
   * Re-takes the run if no other attempt holds it (renewing its hold), then the job's lock if
   * the stalled check has not moved the job yet; a run another attempt holds is stopped.
   * Without holds, the run is stopped at once.
   */
  async lockLapsed(jobId: string): Promise<'relocked' | 'retaken' | 'not-held' | 'stopped' | 'not-running'> {
    const run = this.running.get(jobId);
    if (!run) return 'not-running';
    if (!this.leases || !this.holding) {
      run.stop.abort('lost' satisfies StopReason);
      return 'stopped';
    }
    // Not held: Redis still away (the leases' own ticks keep trying, up to the bound), the run
    // given up, or another attempt holds it (the run was stopped).
    if (!(await this.leases.renewNow(jobId))) return 'not-held';
    if (run.token === undefined) return 'retaken';
    // The job lock too, unless the stalled check has moved the job already.
    return (await this.holding.jobLocks.relock(run.job, run.token, this.holding.lockMs)) ? 'relocked' : 'retaken';
  }

  /** Stops renewing holds; the runs themselves are stopped by `stopAll`. */
  close(): void {
    this.leases?.close();
  }

  /** Runs the job's run, tracked in `running` so a cancel or a lost hold can stop it. */
  private async execute(job: Running['job'], token: string | undefined, data: RunJob): Promise<ExecuteOutcome> {
    const jobId = job.id;
    const switchOff = new AbortController();
    // The run's span continues the trace of the request that enqueued it (its job carries it).
    const attributes = { 'messaging.system': 'bullmq', 'warren.run_id': data.run_id, 'warren.thread_id': data.thread_id };
    const execution = inSpan(
      `run ${this.queueName}`,
      SpanKind.CONSUMER,
      attributes,
      async (span) => {
        const hold = this.leases ? (fence: RunFence) => (this.leases as RunLeases).hold(fence, () => switchOff.abort('lost' satisfies StopReason)) : undefined;
        const outcome = await executeRun(data, switchOff.signal, this.executor, hold);
        span.setAttribute('warren.run.outcome', typeof outcome !== 'object' ? outcome : 'held' in outcome ? 'held' : 'not-due');
        return outcome;
      },
      contextFrom(data.trace_context),
    );
    this.running.set(jobId, { stop: switchOff, done: execution, job, token });
    try {
      return await execution;
    } finally {
      this.running.delete(jobId);
    }
  }
}
