// The contract for cron ticks: each cron is a BullMQ job scheduler (its id is the cron id) on a
// queue of its own, named from the run queue's. BullMQ names each tick's job
// `repeat:<cron_id>:<tick ms>`, so two schedulers (two replicas upserting one cron) put one job
// per tick; the worker that takes it derives the run id from the tick too, so a tick retried
// after a crash starts no second run.
import { Queue, type ConnectionOptions, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import { keys } from '../store/keys.js';
import { bullPrefixFor, connectionErrorLog } from '../store/redis.js';
import type { StoredCron } from '../store/records.js';
import { dropConnection } from '../queue/run-queue.js';

export const CronTickJobSchema = Type.Object({ cron_id: Type.String() });
export type CronTickJob = Static<typeof CronTickJobSchema>;

export const CRON_TICK_JOB_NAME = 'cron-tick';
export const cronQueueName = (runQueueName: string): string => `${runQueueName}-crons`;

/** The tick a scheduler's job stands for (ms since the epoch), from BullMQ's job id; null for any other job. */
export function tickOf(job: Pick<Job, 'id'>, cronId: string): number | null {
  const prefix = `repeat:${cronId}:`;
  if (!job.id?.startsWith(prefix)) return null;
  const ms = Number(job.id.slice(prefix.length));
  return Number.isSafeInteger(ms) ? ms : null;
}

export interface CronScheduler {
  /** Makes the cron's scheduler follow its record: upserted while it may fire, removed when not. */
  sync(cron: StoredCron): Promise<void>;
  remove(cronId: string): Promise<void>;
  close(force?: boolean): Promise<void>;
}

const mayFire = (cron: StoredCron): boolean => cron.enabled && (cron.end_time === null || Date.parse(cron.end_time) > Date.now());

export function createCronScheduler(connection: ConnectionOptions, runQueueName: string, log: Logger): CronScheduler {
  const name = cronQueueName(runQueueName);
  const queue = new Queue<CronTickJob>(name, { connection, prefix: bullPrefixFor(connection, name) });
  queue.on('error', connectionErrorLog(log, { queue: name }).error);
  return {
    async sync(cron) {
      if (!mayFire(cron)) {
        await queue.removeJobScheduler(cron.cron_id);
        return;
      }
      await queue.upsertJobScheduler(
        cron.cron_id,
        {
          pattern: cron.schedule,
          ...(cron.timezone ? { tz: cron.timezone } : {}),
          ...(cron.end_time ? { endDate: Date.parse(cron.end_time) } : {}),
        },
        {
          name: CRON_TICK_JOB_NAME,
          data: { cron_id: cron.cron_id },
          // A tick is idempotent, so a failed one (Redis away for a moment) is simply tried again.
          opts: { attempts: 5, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 24 * 3600, count: 10_000 } },
        },
      );
    },
    async remove(cronId) {
      await queue.removeJobScheduler(cronId);
    },
    close: (force = false) => (force ? dropConnection(queue) : queue.close()),
  };
}
