// The contract for webhook deliveries: when a run that named a `webhook` ends, its worker queues
// one delivery job (its id derived from the run, so a worker that settles the run again after a
// crash queues nothing twice). Any worker delivers it; BullMQ retries it with backoff, so a
// delivery survives the death of the worker that was making it.
import { Queue, type ConnectionOptions } from 'bullmq';
import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import { keys } from '../store/keys.js';
import { bullPrefixFor, connectionErrorLog } from '../store/redis.js';
import { dropConnection } from '../queue/run-queue.js';

export const WebhookJobSchema = Type.Object({
  thread_id: Type.String(),
  run_id: Type.String(),
  url: Type.String(),
  /** The run's final values, read when it settled (a stateless run's thread is gone by delivery). */
  values: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  error: Type.Union([Type.Object({ error: Type.String(), message: Type.String() }), Type.Null()]),
});
export type WebhookJob = Static<typeof WebhookJobSchema>;

export const WEBHOOK_JOB_NAME = 'webhook';
export const webhookQueueName = (runQueueName: string): string => `${runQueueName}-webhooks`;
export const webhookJobId = (runId: string): string => `webhook-${runId}`;

export interface WebhookRetry {
  maxAttempts: number;
  backoffMs: number;
}

export interface WebhookDispatcher {
  /** Queues the delivery; a second call for the same run is a no-op. */
  enqueue(job: WebhookJob): Promise<void>;
  close(force?: boolean): Promise<void>;
}

export function createWebhookDispatcher(connection: ConnectionOptions, runQueueName: string, retry: WebhookRetry, log: Logger): WebhookDispatcher {
  const name = webhookQueueName(runQueueName);
  const queue = new Queue<WebhookJob, void, typeof WEBHOOK_JOB_NAME>(name, { connection, prefix: bullPrefixFor(connection, name) });
  queue.on('error', connectionErrorLog(log, { queue: name }).error);
  return {
    async enqueue(job) {
      await queue.add(WEBHOOK_JOB_NAME, job, {
        jobId: webhookJobId(job.run_id),
        attempts: retry.maxAttempts,
        backoff: { type: 'exponential', delay: retry.backoffMs },
        removeOnComplete: { age: 3600, count: 10_000 },
        removeOnFail: { age: 24 * 3600, count: 10_000 },
      });
    },
    close: (force = false) => (force ? dropConnection(queue) : queue.close()),
  };
}
