// One tick of a cron: the run it starts, made from the cron's payload. Runs in a worker (the
// tick job's processor); everything it reads is in Redis, so any worker may take any tick.
import type { CronStore } from '../store/crons.js';
import type { StoredCron } from '../store/records.js';
import type { RunAdmission } from './admit-run.js';
import type { RunCreate } from './run-create.schema.js';
import { tickRunId, tickThreadId } from './tick-ids.js';

export interface CronTickDeps {
  crons: Pick<CronStore, 'get'>;
  admission: Pick<RunAdmission, 'admit'>;
  /** Runs Warren starts itself default to this `recursion_limit` (a cron's own config wins). */
  defaultRecursionLimit: number;
}

export type TickOutcome =
  | { outcome: 'started' | 'existed'; run_id: string; thread_id: string }
  | { outcome: 'skipped'; why: 'no such cron' | 'disabled' | 'past end_time' };

/** Metadata each run of a cron carries, so its runs can be found (and its ticks told apart). */
export const cronRunMetadata = (cron: StoredCron, tickMs: number) => ({ ...cron.metadata, cron_id: cron.cron_id, cron_tick: new Date(tickMs).toISOString() });

export async function runCronTick(deps: CronTickDeps, cronId: string, tickMs: number): Promise<TickOutcome> {
  const cron = await deps.crons.get(cronId);
  if (!cron) return { outcome: 'skipped', why: 'no such cron' };
  if (!cron.enabled) return { outcome: 'skipped', why: 'disabled' };
  if (cron.end_time !== null && tickMs > Date.parse(cron.end_time)) return { outcome: 'skipped', why: 'past end_time' };
  const stateless = cron.thread_id === null;
  const body: RunCreate = {
    ...(cron.payload as Partial<RunCreate>),
    assistant_id: cron.assistant_id,
    metadata: cronRunMetadata(cron, tickMs),
    ...(stateless ? { on_completion: cron.on_run_completed ?? 'delete' } : {}),
  };
  const { run, created } = await deps.admission.admit(cron.thread_id, body, {
    runId: tickRunId(cronId, tickMs),
    statelessThreadId: tickThreadId(cronId, tickMs),
    defaultRecursionLimit: deps.defaultRecursionLimit,
  });
  return { outcome: created ? 'started' : 'existed', run_id: run.run_id, thread_id: run.thread_id };
}
