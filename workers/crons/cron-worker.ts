// Takes cron ticks: each job of the cron queue is one tick of one cron, and becomes one run
// (src/admission/cron-tick.ts). Every worker process runs one; BullMQ hands each tick to one of
// them, and a tick whose worker died is taken over after its lock lapses. Taking a tick twice is
// harmless: the run's id comes from the tick.
import { UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { TickOutcome } from '../../src/admission/cron-tick.js';
import { CronTickJobSchema, cronQueueName, tickOf, type CronTickJob } from '../../src/crons/crons.js';
import { WarrenError } from '../../src/errors.js';
import { checkMessage } from '../../src/queue/message.js';
import { keys } from '../../src/store/keys.js';
import { bullPrefixFor, connectionErrorLog } from '../../src/store/redis.js';

export interface CronWorkerOptions {
  runQueueName: string;
  connection: ConnectionOptions;
  tick(cronId: string, tickMs: number): Promise<TickOutcome>;
  lockDurationMs: number;
  stalledIntervalMs: number;
  log: Logger;
}

export async function startCronWorker(options: CronWorkerOptions): Promise<{ close(force?: boolean): Promise<void> }> {
  const { log } = options;
  const processor = async (job: Job<CronTickJob, void>) => {
    const { cron_id: cronId } = checkMessage(CronTickJobSchema, job.data, 'InvalidCronTickJob', 'cron tick job');
    const tickMs = tickOf(job, cronId);
    if (tickMs === null) throw new UnrecoverableError(`job ${job.id} is not a tick of cron ${cronId}`);
    const fields = { cron_id: cronId, cron_tick: new Date(tickMs).toISOString(), attempt: job.attemptsMade + 1 };
    try {
      const result = await options.tick(cronId, tickMs);
      log.info({ ...fields, ...result }, result.outcome === 'skipped' ? 'cron tick skipped' : 'cron tick fired');
    } catch (err) {
      // A refusal (the thread or assistant is gone, a webhook now forbidden) will not change on retry.
      const final = err instanceof WarrenError && err.statusCode < 500;
      log.warn({ ...fields, err }, final ? 'cron tick refused; no run for this tick' : 'cron tick failed; it will be tried again');
      throw final ? new UnrecoverableError(err.message) : err;
    }
  };
  const worker = new Worker<CronTickJob, void>(cronQueueName(options.runQueueName), processor, {
    connection: options.connection,
    prefix: bullPrefixFor(options.connection, cronQueueName(options.runQueueName)),
    concurrency: 4,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.stalledIntervalMs,
  });
  worker.on('error', connectionErrorLog(log, { worker: 'crons' }).error);
  return { close: (force = false) => worker.close(force) };
}
