// Runs: creation with the multitask strategy, get, list, cancel, delete. Following a run's
// event stream is run-follow.ts. The route files only translate HTTP; what a run means lives here.
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../errors.js';
import { DEFAULT_GRAPH_ID, type GraphRegistry } from '../../graphs/registry.js';
import type { CancelMessage } from '../queue/control.js';
import type { RunKwargs, StreamMode } from '../queue/run-kwargs.js';
import type { RunDispatcher } from '../queue/run-queue.js';
import { isRunSettled, nowIso, type StoredRun } from '../store/records.js';
import { publicRun, type CancelRunResult } from '../store/runs.js';
import type { Stores } from '../store/stores.js';
import type { RunCreate, RunListQuery } from './runs.schemas.js';

export interface CreatedRun {
  run: StoredRun;
  /** Where the run can be read (`Content-Location`), and joined (`Location`). */
  contentLocation: string;
  streamLocation: string;
}

/** Tells the workers to stop a run; built in the composition root over the shared Redis client. */
export interface CancelSignals {
  publish(message: CancelMessage): Promise<void>;
}

export interface CancelDeps {
  stores: Pick<Stores, 'runs'>;
  cancelSignals: CancelSignals;
}

export interface RunsServiceDeps extends CancelDeps {
  stores: Pick<Stores, 'threads' | 'runs'>;
  graphs: Pick<GraphRegistry, 'has' | 'ids'>;
  dispatcher: Pick<RunDispatcher, 'dispatch'>;
}

/**
 * Cancels a run: a queued one is settled at once; a dispatched or running one is flagged and its
 * worker told over pub/sub. Thread deletion uses it too, for runs that may already be gone.
 */
export async function signalCancel(deps: CancelDeps, threadId: string, runId: string, action: 'interrupt' | 'rollback'): Promise<CancelRunResult> {
  const result = await deps.stores.runs.cancel(threadId, runId, action);
  if (result === 'signalled') await deps.cancelSignals.publish({ thread_id: threadId, run_id: runId, action });
  return result;
}

export function createRunsService(deps: RunsServiceDeps) {
  const { threads, runs } = deps.stores;

  const resolveAssistant = (assistantId: string | undefined): string => {
    const id = assistantId ?? DEFAULT_GRAPH_ID;
    if (!deps.graphs.has(id)) {
      throw new NotFoundError(`No assistant found for "${id}". Use a configured graph id (${deps.graphs.ids().join(', ')}).`);
    }
    return id;
  };

  async function cancel(threadId: string, runId: string, action: 'interrupt' | 'rollback'): Promise<void> {
    if ((await signalCancel(deps, threadId, runId, action)) === 'missing') {
      throw new NotFoundError(`Run ${runId} not found on thread ${threadId}`);
    }
  }

  return {
    cancel,

    async create(threadId: string | null, body: RunCreate): Promise<CreatedRun> {
      const assistantId = resolveAssistant(body.assistant_id);
      const stateless = threadId === null;
      const tid = threadId ?? randomUUID();
      if (stateless) {
        await threads.create({ threadId: tid, metadata: { graph_id: assistantId, assistant_id: assistantId }, ifExists: 'raise' });
      } else if (!(await threads.get(tid))) {
        if (body.if_not_exists !== 'create') throw new NotFoundError(`Thread ${tid} not found`);
        await threads.create({ threadId: tid, metadata: {}, ifExists: 'do_nothing' });
      }
      const thread = await threads.require(tid);
      if (thread.metadata.graph_id !== assistantId) {
        await threads.patchMetadata(tid, { graph_id: assistantId, assistant_id: assistantId });
      }

      const strategy = body.multitask_strategy ?? 'enqueue';
      const streamModes: StreamMode[] = body.stream_mode === undefined ? ['values'] : Array.isArray(body.stream_mode) ? body.stream_mode : [body.stream_mode];
      const kwargs: RunKwargs = {
        input: body.input ?? null,
        command: body.command ?? null,
        config: { ...(body.config ?? {}) },
        context: body.context ?? null,
        stream_mode: streamModes.length > 0 ? streamModes : ['values'],
        stream_subgraphs: body.stream_subgraphs ?? false,
        stream_resumable: body.stream_resumable ?? false,
        interrupt_before: body.interrupt_before ?? null,
        interrupt_after: body.interrupt_after ?? null,
        checkpoint: body.checkpoint ?? (body.checkpoint_id ? { checkpoint_id: body.checkpoint_id } : null),
        on_disconnect: body.on_disconnect ?? 'cancel',
        ...(stateless ? { on_completion: body.on_completion ?? 'delete' } : {}),
      };
      const now = nowIso();
      const run: StoredRun = {
        run_id: randomUUID(),
        thread_id: tid,
        assistant_id: assistantId,
        status: 'pending',
        created_at: now,
        updated_at: now,
        metadata: { ...(body.metadata ?? {}) },
        kwargs,
        multitask_strategy: strategy,
        attempt: 0,
        cancel: null,
        temporary: stateless,
      };
      const created = await runs.create(run, strategy);
      if (created.dispatch) {
        await deps.dispatcher.dispatch(tid, run.run_id);
      } else if (strategy === 'interrupt' || strategy === 'rollback') {
        // The new run waits at the head of the queue; cancelling the active run hands it over.
        await cancel(tid, created.waitingBehind, strategy);
      }
      const contentLocation = stateless ? `/runs/${run.run_id}` : `/threads/${tid}/runs/${run.run_id}`;
      return { run, contentLocation, streamLocation: `/threads/${tid}/runs/${run.run_id}/stream` };
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
      if (!threadId) throw new NotFoundError(`Run ${runId} not found`);
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
  };
}

export type RunsService = ReturnType<typeof createRunsService>;
