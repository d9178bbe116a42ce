// Runs: creation (admitted by src/admission/), get, list, cancel, delete. Following a run's
// event stream is run-follow.ts. The route files only translate HTTP; what a run means lives here.
import type { Identity } from '../auth/identity.js';
import type { AccessPolicy } from '../auth/access.js';
import type { RecordAccess } from '../auth/record-access.js';
import { MalformedRequestError } from '../errors.js';
import { RunNotFoundError } from '../store/store.errors.js';
import { createRunAdmission, type AdmittedRun, type RunAdmissionDeps } from '../admission/admit-run.js';
import { signalCancel } from '../admission/cancel-run.js';
import { isRunSettled, type StoredRun } from '../store/records.js';
import { publicRun, type CancelRunResult } from '../store/runs.js';
import type { RunBatchItem, RunCancelMany, RunCreate, RunListQuery } from './runs.schemas.js';

export type CreatedRun = AdmittedRun;

export interface RunsServiceDeps extends RunAdmissionDeps {
  /** Bulk cancels name runs by id or status: only the caller's are theirs to cancel. */
  access: Pick<RecordAccess, 'requireThread' | 'reachesThread'>;
  /** A custom auth module's handlers, asked about stateless runs (a thread's runs pass the route gate). */
  policy: AccessPolicy;
}

export function createRunsService(deps: RunsServiceDeps) {
  const { threads, runs } = deps.stores;
  const admission = createRunAdmission(deps);

  async function stop(threadId: string, runId: string, action: 'interrupt' | 'rollback'): Promise<CancelRunResult> {
    const result = await signalCancel(deps, threadId, runId, action);
    // A run still waiting out `after_seconds` has no worker to tell: make its job due, and the
    // worker that takes it settles it as cancelled.
    if (result === 'signalled') await deps.dispatcher.promote(threadId, runId);
    return result;
  }

  /** Answers how: `signalled` leaves the settling to a worker; `cancelled` settled a queued run here. */
  async function cancel(threadId: string, runId: string, action: 'interrupt' | 'rollback'): Promise<CancelRunResult> {
    const result = await stop(threadId, runId, action);
    if (result === 'missing') throw new RunNotFoundError(`Run ${runId} not found on thread ${threadId}`);
    return result;
  }

  /** A run a bulk cancel names; `pending` when it was waiting (for `after_seconds`, or a worker). */
  interface CancelTarget {
    threadId: string;
    runId: string;
    pending: boolean;
  }

  /** The runs a bulk cancel names: by ids (on one thread, or found by id), or by status. */
  async function cancelTargets(body: RunCancelMany, caller: Identity): Promise<CancelTarget[]> {
    if (body.run_ids) {
      if (body.status) throw new MalformedRequestError('Give either run_ids or status, not both');
      return Promise.all(
        body.run_ids.map(async (runId) => {
          const threadId = body.thread_id ?? (await runs.threadOf(runId));
          const run = threadId && (await deps.access.reachesThread(caller, threadId)) ? await runs.get(threadId, runId) : null;
          if (!threadId || !run) throw new RunNotFoundError(`Run ${runId} not found`);
          return { threadId, runId, pending: run.status === 'pending' };
        }),
      );
    }
    if (!body.status) throw new MalformedRequestError('Give run_ids (with or without thread_id) or status');
    if (body.thread_id) {
      await deps.access.requireThread(caller, body.thread_id);
      await threads.require(body.thread_id);
    }
    const inflight = body.thread_id ? await runs.inflight(body.thread_id) : await runs.inflightEverywhere();
    const targets = [];
    for (const run of inflight) {
      if (body.status !== 'all' && run.status !== body.status) continue;
      if (body.thread_id || (await deps.access.reachesThread(caller, run.thread_id))) targets.push({ threadId: run.thread_id, runId: run.run_id, pending: run.status === 'pending' });
    }
    return targets;
  }

  const service = {
    cancel,

    /** `POST /runs/cancel`'s runs: every named one, or a 404 when one is not found (then none is cancelled). */
    cancelTargets,
    /** Cancels one of cancelTargets' runs; one that ended meanwhile is `missing`, not a fault. */
    stop,

    async create(threadId: string | null, body: RunCreate, caller: Identity): Promise<CreatedRun> {
      if (threadId === null) await deps.policy.check({ identity: caller, resource: 'threads', action: 'create_run', value: { ...body, thread_id: null } });
      return admission.admit(threadId, body, caller);
    },

    async get(threadId: string, runId: string) {
      await threads.require(threadId);
      return publicRun(await runs.require(threadId, runId));
    },

    async list(threadId: string, query: RunListQuery) {
      await threads.require(threadId);
      return (await runs.list(threadId, query)).map(publicRun);
    },

    async remove(threadId: string, runId: string) {
      const run = await runs.require(threadId, runId);
      if (!isRunSettled(run)) await cancel(threadId, runId, 'interrupt');
      await runs.remove(threadId, runId);
    },

    /** The thread a run belongs to (stateless routes address runs by id alone). */
    async threadOf(runId: string): Promise<string> {
      const threadId = await runs.threadOf(runId);
      if (!threadId) throw new RunNotFoundError(`Run ${runId} not found`);
      return threadId;
    },

    /** The thread's current values: the answer to a wait whose stream ended without any. */
    async threadValues(threadId: string): Promise<unknown> {
      return (await threads.get(threadId))?.values ?? null;
    },

    /** A client that went away cancels its run, unless the run has already finished. */
    async cancelIfRunning(threadId: string, runId: string): Promise<boolean> {
      if (isRunSettled(await runs.get(threadId, runId))) return false;
      await cancel(threadId, runId, 'interrupt');
      return true;
    },

    /** `POST /runs/batch`: stateless background runs, created in the order given. */
    async createBatch(items: readonly RunBatchItem[], caller: Identity): Promise<StoredRun[]> {
      const bodies: RunCreate[] = items.map(({ assistantId, ...body }) => ({ ...body, assistant_id: body.assistant_id ?? assistantId }));
      // Every body is checked before any run is made: one bad entry creates none.
      for (const body of bodies) await admission.check(body, caller);
      const created: StoredRun[] = [];
      for (const body of bodies) created.push((await service.create(null, body, caller)).run);
      return created;
    },
  };
  return service;
}

export type RunsService = ReturnType<typeof createRunsService>;
