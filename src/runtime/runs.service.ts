// Runs: creation with the multitask strategy, cancel, and following a run's event stream.
// The route files only translate HTTP; everything a run means lives here.
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../errors.js';
import { DEFAULT_GRAPH_ID } from '../../graphs/registry.js';
import { publishCancel } from '../queue/control.js';
import type { RunKwargs, StreamMode } from '../queue/run-kwargs.js';
import { isRunSettled, nowIso, type StoredRun } from '../store/records.js';
import type { HubSubscriber, HubSubscription } from '../store/run-stream-hub.js';
import { appendedAt, type StreamEntry } from '../store/run-stream.js';
import { publicRun, type CancelRunResult } from '../store/runs.js';
import type { RunCreate, RunListQuery } from './runs.schemas.js';
import type { RuntimeDeps } from './runtime-deps.js';

export interface CreatedRun {
  run: StoredRun;
  /** Where the run can be read (`Content-Location`), and joined (`Location`). */
  contentLocation: string;
  streamLocation: string;
}

/**
 * Bytes handed to a streaming client's socket and not yet written out, past which it takes no
 * more entries and is paused until its socket drains: with its socket's own buffer, all that a
 * client that stops reading costs.
 */
export const CLIENT_QUEUE_BYTES = 256 * 1024;

/** A streaming client of a run, which can fall behind. */
export interface StreamClient {
  /**
   * Writes entries to the client, in order, until CLIENT_QUEUE_BYTES wait for it; returns how
   * many it took. Fewer than all means it is paused, and resume() goes on after the last one.
   */
  onEntries(entries: readonly StreamEntry[]): number;
  onDone(): void;
}

export interface ClientFollow {
  /** After a pause, the client has caught up: go on from Redis after the last entry it was given. */
  resume(): void;
  stop(): void;
}


/**
 * Cancels a run: a queued one is settled at once; a dispatched or running one is flagged and its
 * worker told over pub/sub. Thread deletion uses it too, for runs that may already be gone.
 */
export async function signalCancel(
  deps: Pick<RuntimeDeps, 'stores' | 'redis'>,
  threadId: string,
  runId: string,
  action: 'interrupt' | 'rollback',
): Promise<CancelRunResult> {
  const result = await deps.stores.runs.cancel(threadId, runId, action);
  if (result === 'signalled') await publishCancel(deps.redis, { thread_id: threadId, run_id: runId, action });
  return result;
}

export function createRunsService(deps: RuntimeDeps) {
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

  /** Follows a run's events after `afterId`. */
  function follow(threadId: string, runId: string, afterId: string, follower: HubSubscriber): HubSubscription {
    return deps.hub.subscribe(threadId, runId, afterId, follower);
  }

  /**
   * Follows a run for a streaming client (SSE or WebSocket), counting relay lag and paused
   * clients. A client that reads slower than its run writes is not buffered for without bound:
   * it takes entries only while little waits for it, the follow pauses at the first it leaves,
   * and resume() picks up after the last entry it took, so every entry still arrives once and in
   * order.
   */
  function followClient(threadId: string, runId: string, afterId: string, transport: 'sse' | 'websocket', client: StreamClient): ClientFollow {
    let paused = false;
    let stopped = false;
    const setPaused = (value: boolean) => {
      if (paused === value) return;
      paused = value;
      deps.metrics.waitingClients.add(value ? 1 : -1, { transport });
    };
    const subscription = follow(threadId, runId, afterId, {
      onEntries: (entries) => {
        const taken = stopped ? entries.length : client.onEntries(entries);
        const now = Date.now();
        for (let i = 0; i < taken; i++) deps.metrics.relayLagSeconds.observe(Math.max(0, now - appendedAt((entries[i] as StreamEntry).id)) / 1000);
        if (taken < entries.length) setPaused(true);
        return taken;
      },
      onDone: () => client.onDone(),
    });
    return {
      resume() {
        if (!paused || stopped) return;
        setPaused(false);
        subscription.resume();
      },
      stop() {
        stopped = true;
        setPaused(false);
        subscription.stop();
      },
    };
  }

  /** Resolves when the run's stream has ended; collects the last `values` and any `error`. */
  function settled(threadId: string, runId: string): { done: Promise<{ values?: string; error?: string }>; stop: () => void } {
    let values: string | undefined;
    let error: string | undefined;
    let stop: () => void = () => {};
    const done = new Promise<{ values?: string; error?: string }>((resolve) => {
      const subscription = follow(threadId, runId, '0', {
        onEntries(entries) {
          for (const entry of entries) {
            if (entry.event === 'values') values = entry.data;
            else if (entry.event === 'error') error = entry.data;
          }
        },
        onDone: () => resolve({ ...(values !== undefined ? { values } : {}), ...(error !== undefined ? { error } : {}) }),
      });
      stop = () => subscription.stop();
    });
    return { done, stop };
  }

  return {
    cancel,
    follow,
    followClient,
    settled,

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

    /** A client that went away cancels its run, unless the run has already finished. */
    async cancelIfRunning(threadId: string, runId: string): Promise<boolean> {
      if (isRunSettled(await runs.get(threadId, runId))) return false;
      await cancel(threadId, runId, 'interrupt');
      return true;
    },
  };
}

export type RunsService = ReturnType<typeof createRunsService>;
