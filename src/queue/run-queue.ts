// The API–worker contract for runs: the queue's name, a job's data, and dispatching.
// A job only points at a run; the run record in Redis is the truth.
import { SpanKind } from '@opentelemetry/api';
import { Queue, type ConnectionOptions } from 'bullmq';
import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import { keys } from '../store/keys.js';
import { bullPrefixFor, connectionErrorLog } from '../store/redis.js';
import { inSpan, traceCarrier } from '../tracing/tracing.js';

/** W3C trace context of whoever enqueued the run, so the worker's spans join its trace. */
export const TraceContextSchema = Type.Object({
  traceparent: Type.String({ maxLength: 256 }),
  tracestate: Type.Optional(Type.String({ maxLength: 1024 })),
});

export const RunJobSchema = Type.Object({
  thread_id: Type.String(),
  run_id: Type.String(),
  /** Absent when tracing is off (or the job came from an older release). */
  trace_context: Type.Optional(TraceContextSchema),
});
export type RunJob = Static<typeof RunJobSchema>;

/** BullMQ job name for a run. */
export const RUN_JOB_NAME = 'run';

export interface RunDispatcher {
  /**
   * Puts the run on the queue, to be taken no earlier than `startsAt` (ms since the epoch; a
   * BullMQ delayed job) when given. Idempotent: the job id is the run id.
   */
  dispatch(threadId: string, runId: string, startsAt?: number): Promise<void>;
  /** Makes a delayed run's job due now (a cancelled run must not wait out its delay). */
  promote(runId: string): Promise<void>;
  /** `force`: drop the connection without a goodbye to Redis (it is not there to answer one). */
  close(force?: boolean): Promise<void>;
}

/**
 * Drops a BullMQ connection without waiting: its `disconnect()` waits for an 'end' that ioredis
 * does not emit for a connection between two reconnect attempts, so a Redis outage would hold
 * the caller for ever. The process is on its way out; nothing is left to wait for.
 */
export function dropConnection(closeable: { disconnect(): Promise<void> }): Promise<void> {
  closeable.disconnect().catch(() => undefined);
  return Promise.resolve();
}

export function createRunQueue(connection: ConnectionOptions, queueName: string, log: Logger) {
  const queue = new Queue<RunJob, unknown, typeof RUN_JOB_NAME>(queueName, { connection, prefix: bullPrefixFor(connection, queueName) });
  // Without a listener, a Redis blip would surface as an unhandled 'error' event.
  queue.on('error', connectionErrorLog(log, { queue: queueName }).error);
  const dispatcher: RunDispatcher & { queue: typeof queue } = {
    queue,
    async dispatch(threadId, runId, startsAt) {
      const delay = startsAt === undefined ? 0 : Math.max(0, startsAt - Date.now());
      const attributes = { 'messaging.system': 'bullmq', 'messaging.destination.name': queueName, 'warren.run_id': runId, 'warren.thread_id': threadId };
      await inSpan(`enqueue ${queueName}`, SpanKind.PRODUCER, attributes, async () => {
        // The enqueue span's context: the worker's run span becomes its child.
        const traceContext = traceCarrier();
        await queue.add(
          RUN_JOB_NAME,
          { thread_id: threadId, run_id: runId, ...(traceContext ? { trace_context: traceContext } : {}) },
          {
            jobId: runId,
            ...(delay > 0 ? { delay } : {}),
            // Retries after crashes come from the stalled-job check; a thrown error is final.
            attempts: 1,
            removeOnComplete: { age: 3600, count: 10_000 },
            removeOnFail: { age: 24 * 3600, count: 10_000 },
          },
        );
      });
    },
    async promote(runId) {
      const job = await queue.getJob(runId);
      if (!job || !(await job.isDelayed())) return;
      try {
        await job.promote();
      } catch (err) {
        // A job that stopped being delayed in between (its delay ran out) needs nothing: the
        // worker reads the cancel flag when it claims the run.
        if (await job.isDelayed()) throw err;
      }
    },
    close: (force = false) => (force ? dropConnection(queue) : queue.close()),
  };
  return dispatcher;
}
