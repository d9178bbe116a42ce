// The API–worker contract for runs: the queue's name, a job's data, and dispatching.
// A job only points at a run; the run record in Redis is the truth.
import { SpanKind } from '@opentelemetry/api';
import { Queue, type ConnectionOptions } from 'bullmq';
import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import { keys } from '../store/keys.js';
import { connectionErrorLog } from '../store/redis.js';
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
  /** Puts the run on the queue. Idempotent: the job id is the run id. */
  dispatch(threadId: string, runId: string): Promise<void>;
  close(): Promise<void>;
}

export function createRunQueue(connection: ConnectionOptions, queueName: string, log: Logger) {
  const queue = new Queue<RunJob, unknown, typeof RUN_JOB_NAME>(queueName, { connection, prefix: keys.bullPrefix() });
  // Without a listener, a Redis blip would surface as an unhandled 'error' event.
  queue.on('error', connectionErrorLog(log, { queue: queueName }).error);
  const dispatcher: RunDispatcher & { queue: typeof queue } = {
    queue,
    async dispatch(threadId, runId) {
      const attributes = { 'messaging.system': 'bullmq', 'messaging.destination.name': queueName, 'warren.run_id': runId, 'warren.thread_id': threadId };
      await inSpan(`enqueue ${queueName}`, SpanKind.PRODUCER, attributes, async () => {
        // The enqueue span's context: the worker's run span becomes its child.
        const traceContext = traceCarrier();
        await queue.add(
          RUN_JOB_NAME,
          { thread_id: threadId, run_id: runId, ...(traceContext ? { trace_context: traceContext } : {}) },
          {
            jobId: runId,
            // Retries after crashes come from the stalled-job check; a thrown error is final.
            attempts: 1,
            removeOnComplete: { age: 3600, count: 10_000 },
            removeOnFail: { age: 24 * 3600, count: 10_000 },
          },
        );
      });
    },
    close: () => queue.close(),
  };
  return dispatcher;
}
