// Delivers run webhooks: POSTs the run record with its final `values` and `error` to the URL the
// run named. A 2xx ends the job; a 5xx, 408, 429, time-out or connection error is retried by
// BullMQ with backoff; any other answer, or a refused address, is final. Every attempt is logged
// and counted. The connection goes only to a public address checked as it connects, unless
// config.yaml allows private networks.
import { UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { fetch } from 'undici';
import type { WebhooksConfig } from '../../src/config/app-config.schemas.js';
import { NetHostPrivateError } from '../../src/net/net.errors.js';
import { assertPublicHost, guardedAgent } from '../../src/net/outbound-guard.js';
import { checkMessage } from '../../src/queue/message.js';
import { WebhookJobSchema, webhookQueueName, type WebhookJob } from '../../src/webhooks/webhooks.js';
import { keys } from '../../src/store/keys.js';
import { bullPrefixFor, connectionErrorLog } from '../../src/store/redis.js';
import { publicRun, type RunStore } from '../../src/store/runs.js';
import { WebhookDeliveryFailedError } from './webhooks.errors.js';

export interface WebhookWorkerOptions {
  runQueueName: string;
  connection: ConnectionOptions;
  config: WebhooksConfig;
  runs: Pick<RunStore, 'get'>;
  /** Counts each attempt's outcome for /metrics. */
  count?: (outcome: 'delivered' | 'retry' | 'failed') => void;
  log: Logger;
}

const retryable = (status: number) => status >= 500 || status === 408 || status === 429;

export async function startWebhookWorker(options: WebhookWorkerOptions): Promise<{ close(force?: boolean): Promise<void> }> {
  const { config, log } = options;
  const allowPrivate = config.allow_private_networks;
  const agent = guardedAgent({ what: 'webhooks', ...(allowPrivate ? { allowPrivate } : {}) });

  const deliver = async (job: WebhookJob, attempt: number): Promise<void> => {
    const url = new URL(job.url);
    if (!allowPrivate) await assertPublicHost(url, 'webhooks');
    const run = await options.runs.get(job.thread_id, job.run_id);
    const body = JSON.stringify({ ...(run ? publicRun(run) : { run_id: job.run_id, thread_id: job.thread_id }), values: job.values, error: job.error });
    const response = await fetch(url, {
      method: 'POST',
      dispatcher: agent,
      redirect: 'manual',
      headers: { 'content-type': 'application/json', 'user-agent': 'Warren-Webhooks', 'x-warren-delivery-attempt': String(attempt) },
      body,
      signal: AbortSignal.timeout(config.timeout_seconds * 1000),
    });
    await response.body?.cancel();
    if (response.ok) return;
    const problem = `${url.origin} answered HTTP ${response.status}`;
    if (!retryable(response.status)) throw new UnrecoverableError(problem);
    throw new WebhookDeliveryFailedError(problem);
  };

  const processor = async (job: Job<WebhookJob, void>) => {
    const data = checkMessage(WebhookJobSchema, job.data, 'InvalidWebhookJob', 'webhook job');
    const attempt = job.attemptsMade + 1;
    const fields = { run_id: data.run_id, thread_id: data.thread_id, attempt, max_attempts: job.opts.attempts ?? 1 };
    try {
      await deliver(data, attempt);
      options.count?.('delivered');
      log.info(fields, 'webhook delivered');
    } catch (err) {
      // A refused address will not become public by retrying.
      const cause = err instanceof Error && err.cause instanceof NetHostPrivateError ? err.cause : err;
      const final = cause instanceof NetHostPrivateError || cause instanceof UnrecoverableError || attempt >= (job.opts.attempts ?? 1);
      options.count?.(final ? 'failed' : 'retry');
      log.warn({ ...fields, err: cause }, final ? 'webhook not delivered' : 'webhook attempt failed; retrying');
      throw cause instanceof NetHostPrivateError ? new UnrecoverableError(cause.message) : cause;
    }
  };

  const worker = new Worker<WebhookJob, void>(webhookQueueName(options.runQueueName), processor, {
    connection: options.connection,
    prefix: bullPrefixFor(options.connection, webhookQueueName(options.runQueueName)),
    concurrency: 8,
  });
  worker.on('error', connectionErrorLog(log, { worker: 'webhooks' }).error);
  return {
    async close(force = false) {
      await worker.close(force);
      await agent.close();
    },
  };
}
