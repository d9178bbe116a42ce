// Crons: create (on a thread, or stateless), search, count, patch, delete. The record lives in
// Redis (store/crons.ts); its BullMQ job scheduler fires the ticks, which workers turn into runs
// (src/admission/cron-tick.ts). Here a cron is checked, stored, and its scheduler kept in step.
import { checkCreate, matchesAccessFilter, type AccessPolicy } from '../auth/access.js';
import { ANONYMOUS_USER, ownerFilter, type Identity } from '../auth/identity.js';
import { randomUUID } from 'node:crypto';
import type { RunAdmission } from '../admission/admit-run.js';
import type { RunCreate } from '../admission/run-create.schema.js';
import type { CronScheduler } from './cron-queue.js';
import { checkSchedule, nextRunDate } from './cron-schedule.js';
import { CronNotFoundError, CronOptionInvalidError } from './crons.errors.js';
import { matchesFilter } from '../store/json.js';
import { nowIso, type Cron, type StoredCron } from '../store/records.js';
import type { Stores } from '../stores.js';
import { CRON_RUN_FIELDS, type CronCount, type CronSortField, type CronCreate, type CronPatch, type CronSearch } from './crons.schemas.js';

export interface CronsServiceDeps {
  stores: Pick<Stores, 'crons' | 'threads'>;
  /** Checks a cron's run payload as a run's body would be checked, without making a run. */
  admission: Pick<RunAdmission, 'check'>;
  scheduler: Pick<CronScheduler, 'sync' | 'remove'>;
  /** A custom auth module's handlers (OPEN_ACCESS: none). */
  access: AccessPolicy;
}

/** Fields of a cron record only scheduled tasks set. */
export type CronExtras = Partial<Pick<StoredCron, 'title' | 'run_at'>>;

/** Rounds of re-reading a cron after syncing its scheduler, while other writers keep changing it. */
const MAX_SYNC_ROUNDS = 10;

/** Times are stored and answered as `toISOString` gives them, whatever offset the client wrote. */
const isoOrNull = (time: string | null | undefined): string | null => (time ? new Date(time).toISOString() : null);

const withNextRun = (cron: StoredCron): Cron => ({ ...cron, next_run_date: cron.enabled ? nextRunDate(cron) : null });

/** The run fields the body sets; `null` clears one. */
function payloadWith(payload: Record<string, unknown>, body: Partial<Record<string, unknown>>): Record<string, unknown> {
  const next = { ...payload };
  for (const field of CRON_RUN_FIELDS) {
    if (!(field in body) || body[field] === undefined) continue;
    if (body[field] === null) delete next[field];
    else next[field] = body[field];
  }
  return next;
}

function refuseOnRunCompleted(threadId: string | null, value: unknown): void {
  if (threadId !== null && value !== undefined) {
    throw new CronOptionInvalidError('on_run_completed: only a stateless cron (POST /runs/crons) has a thread per run to delete or keep; a thread cron runs on its thread');
  }
}

function compareBy(key: CronSortField, order: 'asc' | 'desc') {
  const dir = order === 'asc' ? 1 : -1;
  return (a: Cron, b: Cron) => {
    const x = a[key] ?? '';
    const y = b[key] ?? '';
    return x < y ? -dir : x > y ? dir : 0;
  };
}

export function createCronsService(deps: CronsServiceDeps) {
  const { crons, threads } = deps.stores;

  const checkPayload = (cron: Pick<StoredCron, 'assistant_id' | 'payload' | 'metadata'>, caller: Identity) =>
    deps.admission.check({ ...(cron.payload as Partial<RunCreate>), assistant_id: cron.assistant_id, metadata: cron.metadata }, caller);

  /**
   * Points the scheduler at what the record says now. Another replica may change or delete the
   * cron while this one upserts: the record is read again until it holds still, so the last
   * change made is the one the scheduler follows.
   */
  async function syncScheduler(cronId: string): Promise<void> {
    let synced: string | null = null;
    for (let round = 0; round < MAX_SYNC_ROUNDS; round++) {
      const cron = await crons.get(cronId);
      if (!cron) {
        await deps.scheduler.remove(cronId);
        return;
      }
      const seen = JSON.stringify(cron);
      if (seen === synced) return;
      await deps.scheduler.sync(cron);
      synced = seen;
    }
  }

  async function requireCron(cronId: string): Promise<StoredCron> {
    const cron = await crons.get(cronId);
    if (!cron) throw new CronNotFoundError(`Cron ${cronId} not found`);
    return cron;
  }

  async function remove(cronId: string): Promise<void> {
    await requireCron(cronId);
    await deps.scheduler.remove(cronId);
    await crons.remove(cronId);
  }

  async function matching(filter: CronCount & { enabled?: boolean }, caller: Identity): Promise<Cron[]> {
    const accessFilter = await deps.access.check({ identity: caller, resource: 'crons', action: 'search', value: { ...filter } });
    const all = await crons.list({
      ...ownerFilter(caller),
      ...(filter.assistant_id ? { assistantId: filter.assistant_id } : {}),
      ...(filter.thread_id ? { threadId: filter.thread_id } : {}),
    });
    return all
      .filter(
        (c) =>
          (filter.enabled === undefined || c.enabled === filter.enabled) &&
          (!filter.metadata || matchesFilter(c.metadata, filter.metadata)) &&
          matchesAccessFilter(c.metadata, accessFilter),
      )
      .map(withNextRun);
  }

  return {
    /** `extras`: what a scheduled task keeps beside LangGraph's fields (scheduled-tasks.service.ts). */
    async create(threadId: string | null, body: CronCreate, caller: Identity, extras: CronExtras = {}): Promise<Cron> {
      if (threadId !== null) await threads.require(threadId);
      refuseOnRunCompleted(threadId, body.on_run_completed);
      const metadata = await checkCreate(deps.access, caller, 'crons', { ...body, thread_id: threadId });
      const timezone = body.timezone ?? null;
      checkSchedule({ schedule: body.schedule, timezone });
      const now = nowIso();
      const cron: StoredCron = {
        cron_id: randomUUID(),
        assistant_id: body.assistant_id,
        thread_id: threadId,
        ...(threadId === null ? { on_run_completed: body.on_run_completed ?? 'delete' } : {}),
        schedule: body.schedule,
        timezone,
        end_time: isoOrNull(body.end_time),
        payload: payloadWith({}, body),
        // LangGraph's field for the cron's owner: null in an open deployment, as before users.
        user_id: caller.user === ANONYMOUS_USER ? null : caller.user,
        metadata,
        enabled: body.enabled ?? true,
        ...extras,
        created_at: now,
        updated_at: now,
      };
      await checkPayload(cron, caller);
      await crons.create(cron);
      try {
        await syncScheduler(cron.cron_id);
      } catch (err) {
        // A cron whose scheduler could not be set would never fire: it is not kept.
        await crons.remove(cron.cron_id);
        throw err;
      }
      return withNextRun(cron);
    },

    async update(cronId: string, body: CronPatch, caller: Identity, extras: CronExtras = {}): Promise<Cron> {
      const current = await requireCron(cronId);
      refuseOnRunCompleted(current.thread_id, body.on_run_completed);
      const change = (cron: StoredCron): StoredCron => ({
        ...cron,
        ...(body.schedule !== undefined ? { schedule: body.schedule } : {}),
        ...(body.timezone !== undefined ? { timezone: body.timezone } : {}),
        ...(body.end_time !== undefined ? { end_time: isoOrNull(body.end_time) } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
        ...(body.on_run_completed !== undefined ? { on_run_completed: body.on_run_completed } : {}),
        ...(body.metadata ? { metadata: { ...cron.metadata, ...body.metadata } } : {}),
        payload: payloadWith(cron.payload, body),
        ...extras,
        updated_at: nowIso(),
      });
      const proposed = change(current);
      checkSchedule(proposed);
      await checkPayload(proposed, caller);
      const updated = await crons.update(cronId, change);
      if (!updated) await requireCron(cronId);
      // Ticks while a cron was off, or of its former schedule, are not owed: no catching up on them.
      if (updated?.enabled && (!current.enabled || updated.schedule !== current.schedule || updated.timezone !== current.timezone)) {
        await crons.raiseLastTick(cronId, Date.now());
      }
      await syncScheduler(cronId);
      return withNextRun(updated ?? proposed);
    },

    remove,

    /** One cron, as the routes answer it (the record gate has checked it is the caller's). */
    get: async (cronId: string): Promise<Cron> => withNextRun(await requireCron(cronId)),

    /** The caller's crons the filter matches, newest first. */
    find: async (filter: CronCount & { enabled?: boolean }, caller: Identity): Promise<Cron[]> =>
      (await matching(filter, caller)).sort(compareBy('created_at', 'desc')),

    /** Thread deletion: the thread's crons go with it. */
    async removeForThread(threadId: string): Promise<void> {
      for (const cron of await crons.list({ threadId })) {
        await remove(cron.cron_id).catch((err: unknown) => {
          // Deleted by another request in between: gone either way.
          if (!(err instanceof CronNotFoundError)) throw err;
        });
      }
    },

    async search(body: CronSearch, caller: Identity): Promise<Partial<Cron>[]> {
      const found = (await matching(body, caller)).sort(compareBy(body.sort_by ?? 'created_at', body.sort_order ?? 'desc'));
      const page = found.slice(body.offset, body.offset + body.limit);
      const select = body.select;
      if (!select || select.length === 0) return page;
      return page.map((c) => Object.fromEntries(select.filter((f) => f in c).map((f) => [f, c[f]])) as Partial<Cron>);
    },

    count: async (body: CronCount, caller: Identity): Promise<number> => (await matching(body, caller)).length,
  };
}

export type CronsService = ReturnType<typeof createCronsService>;
