// Runs: creation with the multitask strategy, get, list, cancel, delete. Following a run's
// event stream is run-follow.ts. The route files only translate HTTP; what a run means lives here.
import { randomUUID } from 'node:crypto';
import { BadRequestError, NotFoundError, ValidationError } from '../errors.js';
import { DEFAULT_GRAPH_ID, type GraphRegistry } from '../../graphs/registry.js';
import type { CancelMessage } from '../queue/control.js';
import { runStartsAt, type RunKwargs, type StreamMode } from '../queue/run-kwargs.js';
import type { RunDispatcher } from '../queue/run-queue.js';
import { isRunSettled, nowIso, type StoredRun } from '../store/records.js';
import { publicRun, type CancelRunResult } from '../store/runs.js';
import type { Stores } from '../store/stores.js';
import { isAgentName, type CustomAgentStore } from '../store/custom-agents.js';
import { assertPublicHost } from '../net/outbound-guard.js';
import { mergeAssistant, type AssistantsService } from './assistants.service.js';
import type { RunBatchItem, RunCancelMany, RunCreate, RunListQuery } from './runs.schemas.js';

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
  dispatcher: Pick<RunDispatcher, 'dispatch' | 'promote'>;
  /** Resolves a run's assistant (a system one, or one a client created) to its graph and settings. */
  assistants: Pick<AssistantsService, 'forRun'>;
  /** Custom agents, so that a run naming an unknown one is refused before it is queued. */
  agents: Pick<CustomAgentStore, 'get'>;
  /** Whether webhooks may go to loopback and private addresses (config `webhooks`). */
  webhooksAllowPrivate?: boolean;
}

/** A webhook must reach a public host (unless config allows private ones): refused now, not at the end. */
async function checkWebhook(url: string | null | undefined, allowPrivate: boolean): Promise<void> {
  if (!url) return;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ValidationError(`webhook: ${parsed.protocol} is not http or https.`);
  if (allowPrivate) return;
  await assertPublicHost(parsed, 'webhooks').catch((err: unknown) => {
    throw new ValidationError(`webhook: ${err instanceof Error ? err.message : String(err)}`);
  });
}

/** `agent_name` from `config.configurable` or `context` (DeerFlow's UI sends it in context). */
function agentNameOf(body: RunCreate): unknown {
  const configurable = body.config?.configurable as Record<string, unknown> | undefined;
  return configurable?.agent_name ?? (body.context as Record<string, unknown> | null | undefined)?.agent_name;
}

async function checkAgentName(body: RunCreate, agents: Pick<CustomAgentStore, 'get'>): Promise<void> {
  const name = agentNameOf(body);
  if (name === undefined || name === null || name === '') return;
  if (typeof name !== 'string' || !isAgentName(name)) {
    throw new ValidationError(`agent_name: ${JSON.stringify(name)} is not an agent name (letters, digits and hyphens, at most 64).`);
  }
  if (!(await agents.get(name.toLowerCase()))) throw new ValidationError(`agent_name: no custom agent named '${name.toLowerCase()}' (see GET /api/agents).`);
}

/**
 * LangGraph run-create fields Warren does not do, refused by name rather than dropped. A value
 * that asks for what Warren does anyway (`durability: "sync"`, an empty `feedback_keys`) passes.
 */
export function refuseUnsupported(body: RunCreate): void {
  const refuse = (field: string, why: string) => {
    throw new ValidationError(`${field}: ${why}`);
  };
  if (body.durability === 'exit' || body.checkpoint_during === false) {
    refuse(body.durability === 'exit' ? 'durability' : 'checkpoint_during', 'Warren stores a checkpoint after every step (runs resume from it after a worker fails); checkpointing only at exit is not supported');
  }
  if (body.feedback_keys && body.feedback_keys.length > 0) refuse('feedback_keys', 'LangSmith feedback URLs are not supported by Warren');
  if (body.langsmith_tracer) refuse('langsmith_tracer', 'LangSmith tracing per run is not supported by Warren');
  if (body.strict_resume === true) refuse('strict_resume', 'strict resume is not supported by Warren');
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


  async function stop(threadId: string, runId: string, action: 'interrupt' | 'rollback'): Promise<CancelRunResult> {
    const result = await signalCancel(deps, threadId, runId, action);
    // A run still waiting out `after_seconds` has no worker to tell: make its job due, and the
    // worker that takes it settles it as cancelled.
    if (result === 'signalled') await deps.dispatcher.promote(runId);
    return result;
  }

  async function cancel(threadId: string, runId: string, action: 'interrupt' | 'rollback'): Promise<void> {
    if ((await stop(threadId, runId, action)) === 'missing') throw new NotFoundError(`Run ${runId} not found on thread ${threadId}`);
  }

  /** The runs a bulk cancel names: by ids (on one thread, or found by id), or by status. */
  async function cancelTargets(body: RunCancelMany): Promise<Array<{ threadId: string; runId: string }>> {
    if (body.run_ids) {
      if (body.status) throw new BadRequestError('Give either run_ids or status, not both');
      return Promise.all(
        body.run_ids.map(async (runId) => {
          const threadId = body.thread_id ?? (await runs.threadOf(runId));
          if (!threadId || !(await runs.get(threadId, runId))) throw new NotFoundError(`Run ${runId} not found`);
          return { threadId, runId };
        }),
      );
    }
    if (!body.status) throw new BadRequestError('Give run_ids (with or without thread_id) or status');
    if (body.thread_id) await threads.require(body.thread_id);
    const inflight = body.thread_id ? await runs.inflight(body.thread_id) : await runs.inflightEverywhere();
    return inflight
      .filter((run) => body.status === 'all' || run.status === body.status)
      .map((run) => ({ threadId: run.thread_id, runId: run.run_id }));
  }

  const service = {
    cancel,

    /** `POST /runs/cancel`: every named run is cancelled, or none is when one is not found (404). */
    async cancelMany(body: RunCancelMany, action: 'interrupt' | 'rollback'): Promise<void> {
      const targets = await cancelTargets(body);
      for (const { threadId, runId } of targets) await stop(threadId, runId, action);
    },

    async create(threadId: string | null, body: RunCreate): Promise<CreatedRun> {
      refuseUnsupported(body);
      await checkAgentName(body, deps.agents);
      await checkWebhook(body.webhook, deps.webhooksAllowPrivate ?? false);
      const assistant = await deps.assistants.forRun(body.assistant_id);
      const { assistantId, graphId } = assistant;
      // The assistant's config and context under the run's own, as LangGraph merges them.
      const merged = mergeAssistant(assistant, body.config, body.context);
      const stateless = threadId === null;
      const tid = threadId ?? randomUUID();
      if (stateless) {
        await threads.create({ threadId: tid, metadata: { graph_id: graphId, assistant_id: assistantId }, ifExists: 'raise' });
      } else if (!(await threads.get(tid))) {
        if (body.if_not_exists !== 'create') throw new NotFoundError(`Thread ${tid} not found`);
        await threads.create({ threadId: tid, metadata: {}, ifExists: 'do_nothing' });
      }
      const thread = await threads.require(tid);
      if (thread.metadata.graph_id !== graphId || thread.metadata.assistant_id !== assistantId) {
        await threads.patchMetadata(tid, { graph_id: graphId, assistant_id: assistantId });
      }

      const strategy = body.multitask_strategy ?? 'enqueue';
      const streamModes: StreamMode[] = body.stream_mode === undefined ? ['values'] : Array.isArray(body.stream_mode) ? body.stream_mode : [body.stream_mode];
      const kwargs: RunKwargs = {
        input: body.input ?? null,
        command: body.command ?? null,
        config: merged.config,
        context: merged.context,
        ...(graphId !== assistantId ? { graph_id: graphId } : {}),
        stream_mode: streamModes.length > 0 ? streamModes : ['values'],
        stream_subgraphs: body.stream_subgraphs ?? false,
        stream_resumable: body.stream_resumable ?? false,
        interrupt_before: body.interrupt_before ?? null,
        interrupt_after: body.interrupt_after ?? null,
        checkpoint: body.checkpoint ?? (body.checkpoint_id ? { checkpoint_id: body.checkpoint_id } : null),
        on_disconnect: body.on_disconnect ?? 'cancel',
        ...(stateless ? { on_completion: body.on_completion ?? 'delete' } : {}),
        ...(body.after_seconds ? { after_seconds: body.after_seconds } : {}),
        ...(body.webhook ? { webhook: body.webhook } : {}),
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
        await deps.dispatcher.dispatch(tid, run.run_id, kwargs.after_seconds ? runStartsAt(run.created_at, kwargs) : undefined);
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

    /** `POST /runs/batch`: stateless background runs, created in the order given. */
    async createBatch(items: readonly RunBatchItem[]): Promise<StoredRun[]> {
      const bodies: RunCreate[] = items.map(({ assistantId, ...body }) => ({ ...body, assistant_id: body.assistant_id ?? assistantId }));
      // Every body is checked before any run is made: one bad entry creates none.
      for (const body of bodies) {
        refuseUnsupported(body);
        await deps.assistants.forRun(body.assistant_id);
      }
      const created: StoredRun[] = [];
      for (const body of bodies) created.push((await service.create(null, body)).run);
      return created;
    },
  };
  return service;
}

export type RunsService = ReturnType<typeof createRunsService>;
