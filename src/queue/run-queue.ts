// The API–worker contract for runs: the queue's name, a job's data, and dispatching.
// A job only points at a run; the run record in Redis is the truth.
//
// On a single Redis runs go to one BullMQ queue, named WARREN_QUEUE. On a Redis Cluster a queue
// is one slot (its keys share a tag), so runs are spread over CLUSTER_RUN_QUEUE_SHARDS queues,
// `<WARREN_QUEUE>-shard<k>`, by thread: all runs of a thread go to one shard, and every worker
// consumes every shard, any of them using all of its concurrency (workers/run-executor/run-slots.ts). One
// active run per thread and the multitask strategies are kept by the run scripts (the thread's
// active-run key and run queue), not by BullMQ, so they hold across shards.
import { SpanKind } from '@opentelemetry/api';
import { Queue, type ConnectionOptions } from 'bullmq';
import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import { keys } from '../store/keys.js';
import { bullPrefixFor, connectionErrorLog, isCluster } from '../store/redis.js';
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

/**
 * Run queues on a Redis Cluster. Every process must agree on it (it is not configurable for
 * that reason): lowering it would strand the jobs of the shards no worker reads any more.
 */
export const CLUSTER_RUN_QUEUE_SHARDS = 6;

/** The run queues on this connection: `[queueName]` on one Redis, the shards on a Cluster. */
export function runQueueNames(connection: ConnectionOptions, queueName: string): string[] {
  if (!isCluster(connection)) return [queueName];
  return Array.from({ length: CLUSTER_RUN_QUEUE_SHARDS }, (_, k) => `${queueName}-shard${k}`);
}

/** The queue of `names` that takes the thread's runs (FNV-1a of the thread id). */
export function runQueueOf(names: readonly string[], threadId: string): string {
  if (names.length === 1) return names[0] as string;
  let hash = 0x811c9dc5;
  for (let i = 0; i < threadId.length; i++) hash = Math.imul(hash ^ threadId.charCodeAt(i), 0x01000193);
  return names[(hash >>> 0) % names.length] as string;
}

export interface RunDispatcher {
  /**
   * Puts the run on the queue, to be taken no earlier than `startsAt` (ms since the epoch; a
   * BullMQ delayed job) when given. Idempotent: the job id is the run id.
   */
  dispatch(threadId: string, runId: string, startsAt?: number): Promise<void>;
  /** Makes a delayed run's job due now (a cancelled run must not wait out its delay). */
  promote(threadId: string, runId: string): Promise<void>;
  /** `force`: drop the connection without a goodbye to Redis (it is not there to answer one). */
  close(force?: boolean): Promise<void>;
}

/**
 * Drops a BullMQ connection without waiting: its `disconnect()` waits for an 'end' that ioredis
 * does not emit for a connection between two reconnect attempts, so a Redis outage would hold
 * the caller for ever. The process is on its way out; nothing is left to wait for.
 */
export function dropConnection(closeable: { disconnect(): Promise<void> }): Promise<void> {
  closeable.disconnect().catch(() => undefined); // The process is on its way out: nobody is left to tell.
  return Promise.resolve();
}

export function createRunQueue(connection: ConnectionOptions, queueName: string, log: Logger) {
  const names = runQueueNames(connection, queueName);
  const queues = new Map(
    names.map((name) => {
      const queue = new Queue<RunJob, unknown, typeof RUN_JOB_NAME>(name, { connection, prefix: bullPrefixFor(connection, name) });
      // Without a listener, a Redis blip would surface as an unhandled 'error' event.
      queue.on('error', connectionErrorLog(log, { queue: queueName }).error);
      return [name, queue] as const;
    }),
  );
  const queueFor = (threadId: string) => queues.get(runQueueOf(names, threadId)) as Queue<RunJob, unknown, typeof RUN_JOB_NAME>;
  const dispatcher: RunDispatcher & {
    /** The queue that takes the thread's runs. */
    queueFor: typeof queueFor;
    /** Job counts summed over every run queue (metrics). */
    jobCounts: Pick<Queue, 'getJobCounts'>;
  } = {
    queueFor,
    jobCounts: {
      async getJobCounts(...types) {
        const total: Record<string, number> = {};
        for (const counts of await Promise.all([...queues.values()].map((queue) => queue.getJobCounts(...types)))) {
          for (const [type, n] of Object.entries(counts)) total[type] = (total[type] ?? 0) + n;
        }
        return total;
      },
    },
    async dispatch(threadId, runId, startsAt) {
      const queue = queueFor(threadId);
      const delay = startsAt === undefined ? 0 : Math.max(0, startsAt - Date.now());
      const attributes = { 'messaging.system': 'bullmq', 'messaging.destination.name': queue.name, 'warren.run_id': runId, 'warren.thread_id': threadId };
      await inSpan(`enqueue ${queue.name}`, SpanKind.PRODUCER, attributes, async () => {
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
    async promote(threadId, runId) {
      // The thread names the run's queue (its shard on a Cluster).
      const job = await queueFor(threadId).getJob(runId);
      if (!job || !(await job.isDelayed())) return;
      try {
        await job.promote();
      } catch (err) {
        // A job that stopped being delayed in between (its delay ran out) needs nothing: the
        // worker reads the cancel flag when it claims the run.
        if (await job.isDelayed()) throw err;
      }
    },
    close: async (force = false) => {
      await Promise.all([...queues.values()].map((queue) => (force ? dropConnection(queue) : queue.close())));
    },
  };
  return dispatcher;
}
