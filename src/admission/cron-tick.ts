// One tick of a cron: the run it starts, made from the cron's payload. BullMQ's scheduler does
// not catch up: a tick taken late (every worker busy, one killed) makes it schedule the next
// from now, and the ticks in between never come. So a tick also starts the runs of the ticks
// since the last one fully fired, or since the cron was made before any has (at most
// MAX_CATCH_UP of them); each run's id comes from its tick, so ticks handled twice, out of order
// or at once start each run once. Runs in a worker (the tick job's processor); everything it
// reads is in Redis, so any worker may take any tick.
import { actingFor } from '../auth/identity.js';
import { ticksBetween } from '../crons/crons.js';
import { cronOwner, type CronRunRef, type CronStore } from '../crons/crons.js';
import type { StoredCron } from '../store/records.js';
import type { RunAdmission } from './admit-run.js';
import type { RunCreate } from './run-create.schema.js';
import { tickRunId, tickThreadId, triggerRunId, triggerThreadId } from './tick-ids.js';

export interface CronTickDeps {
  crons: Pick<CronStore, 'get' | 'lastTick' | 'raiseLastTick' | 'noteRun'>;
  admission: Pick<RunAdmission, 'admit'>;
  /** Runs Warren starts itself default to this `recursion_limit` (a cron's own config wins). */
  defaultRecursionLimit: number;
}

/** Missed ticks a tick starts runs for, at most (after a long outage, the latest ones). */
export const MAX_CATCH_UP = 100;

export type TickOutcome =
  | { outcome: 'fired'; started: number; existed: number; run_id: string }
  | { outcome: 'skipped'; why: 'no such cron' | 'disabled' | 'past end_time' };

/** Metadata each run of a cron carries, so its runs can be found (and its ticks told apart). */
export const cronRunMetadata = (cron: StoredCron, tickMs: number) => ({ ...cron.metadata, cron_id: cron.cron_id, cron_tick: new Date(tickMs).toISOString() });

export async function runCronTick(deps: CronTickDeps, cronId: string, tickMs: number): Promise<TickOutcome> {
  const cron = await deps.crons.get(cronId);
  if (!cron) return { outcome: 'skipped', why: 'no such cron' };
  if (!cron.enabled) return { outcome: 'skipped', why: 'disabled' };
  if (cron.end_time !== null && tickMs > Date.parse(cron.end_time)) return { outcome: 'skipped', why: 'past end_time' };
  // No tick has fully fired yet: every tick since the cron was made is owed. The first ones are
  // the likeliest to be taken late (workers starting, busy) and then out of order: BullMQ
  // schedules the tick after a late one from when it was taken, and that tick's job may finish
  // before the late one has; catching up from nothing, it would leave the ticks between them
  // without runs for good once it raised the last tick past them.
  const last = (await deps.crons.lastTick(cronId)) ?? Date.parse(cron.created_at);
  const missed = ticksBetween(cron, last, tickMs, MAX_CATCH_UP);
  const ticks = [...new Set([...missed, tickMs])].filter((t) => cron.end_time === null || t <= Date.parse(cron.end_time));
  let started = 0;
  for (const tick of ticks) if (await admitTick(deps, cron, tick)) started++;
  await deps.crons.raiseLastTick(cronId, tickMs);
  return { outcome: 'fired', started, existed: ticks.length - started, run_id: tickRunId(cronId, tickMs) };
}

/** Starts the tick's run; false when it existed already. */
async function admitTick(deps: CronTickDeps, cron: StoredCron, tickMs: number): Promise<boolean> {
  const { created } = await admitCronRun(deps, cron, tickMs, {
    runId: tickRunId(cron.cron_id, tickMs),
    threadId: tickThreadId(cron.cron_id, tickMs),
    metadata: cronRunMetadata(cron, tickMs),
  });
  return created;
}

/**
 * Starts one run of the cron now, beside its schedule (DeerFlow's "trigger" of a scheduled task),
 * through the same admission as a tick. Its ids come from `triggerId`, in a namespace of their own,
 * so they never meet a tick's; its metadata says `cron_trigger: "manual"`. Null when there is no such cron.
 */
export async function triggerCron(deps: Pick<CronTickDeps, 'crons' | 'admission' | 'defaultRecursionLimit'>, cronId: string, triggerId: string): Promise<CronRunRef | null> {
  const cron = await deps.crons.get(cronId);
  if (!cron) return null;
  const nowMs = Date.now();
  const { run } = await admitCronRun(deps, cron, nowMs, {
    runId: triggerRunId(cronId, triggerId),
    threadId: triggerThreadId(cronId, triggerId),
    metadata: { ...cron.metadata, cron_id: cron.cron_id, cron_trigger: 'manual', cron_triggered_at: new Date(nowMs).toISOString() },
  });
  return { thread_id: run.thread_id, run_id: run.run_id };
}

async function admitCronRun(
  deps: Pick<CronTickDeps, 'crons' | 'admission' | 'defaultRecursionLimit'>,
  cron: StoredCron,
  atMs: number,
  ids: { runId: string; threadId: string; metadata: Record<string, unknown> },
) {
  const stateless = cron.thread_id === null;
  const body: RunCreate = {
    ...(cron.payload as Partial<RunCreate>),
    assistant_id: cron.assistant_id,
    metadata: ids.metadata,
    ...(stateless ? { on_completion: cron.on_run_completed ?? 'delete' } : {}),
  };
  const admitted = await deps.admission.admit(cron.thread_id, body, actingFor(cronOwner(cron)), {
    runId: ids.runId,
    statelessThreadId: ids.threadId,
    defaultRecursionLimit: deps.defaultRecursionLimit,
  });
  await deps.crons.noteRun(cron.cron_id, { thread_id: admitted.run.thread_id, run_id: admitted.run.run_id }, atMs);
  return admitted;
}
