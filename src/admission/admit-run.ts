// Run admission: what turns a run-create body into a stored, queued run. The runs routes admit
// a client's run here; a cron tick (in a worker) admits its run here too, with an id derived
// from the tick, so that a tick taken twice starts one run.
import { randomUUID } from 'node:crypto';
import type { Identity } from '../auth/identity.js';
import { RunNotFoundError, ThreadNotFoundError } from '../store/store.errors.js';
import type { GraphRegistry } from '../../graphs/registry.js';
import { runStartsAt, type RunKwargs, type StreamMode } from '../queue/run-kwargs.js';
import type { RunDispatcher } from '../queue/run-queue.js';
import { nowIso, type StoredRun } from '../store/records.js';
import type { CreateRunResult } from '../store/runs.js';
import type { CustomAgentStore } from '../agents/agents.js';
import type { Stores } from '../stores.js';
import { signalCancel, type CancelDeps } from './cancel-run.js';
import { mergeAssistant, resolveRunAssistant } from './run-assistant.js';
import { checkAgentName, checkCheckpointThread, checkWebhook, refuseUnsupported } from './run-checks.js';
import type { RunCreate } from './run-create.schema.js';
import type { SystemAssistantDefaults } from '../config/langgraph-config.js';

export interface RunAdmissionDeps extends CancelDeps {
  stores: Pick<Stores, 'threads' | 'runs' | 'assistants'>;
  graphs: Pick<GraphRegistry, 'has' | 'ids'>;
  /** The system assistants' config and context (LANGGRAPH_CONFIG). */
  systemDefaults?: ReadonlyMap<string, SystemAssistantDefaults>;
  dispatcher: Pick<RunDispatcher, 'dispatch' | 'promote'>;
  /** Custom agents, so that a run naming an unknown one is refused before it is queued. */
  agents: Pick<CustomAgentStore, 'get'>;
  /** Whether webhooks may go to loopback and private addresses (config `webhooks`). */
  webhooksAllowPrivate?: boolean;
}

/**
 * `recursion_limit` of the runs Warren starts itself (crons now, chat channels later), as the
 * spec gives for its gateway and channel paths; a `recursion_limit` of their own still wins.
 */
export const SELF_STARTED_RECURSION_LIMIT = 100;

/** What a caller that is not an HTTP client (a cron tick) sets on the runs it starts. */
export interface AdmitOptions {
  /** The run's id; a run with this id already there makes admission a no-op. */
  runId?: string;
  /** A stateless run's new thread id (default: random). */
  statelessThreadId?: string;
  /** `config.recursion_limit` when neither the body nor the assistant sets one. */
  defaultRecursionLimit?: number;
}

export interface AdmittedRun {
  run: StoredRun;
  /** False when a run with the requested id existed: nothing was created. */
  created: boolean;
  /** Where the run can be read (`Content-Location`), and joined (`Location`). */
  contentLocation: string;
  streamLocation: string;
}

function runKwargs(body: RunCreate, merged: ReturnType<typeof mergeAssistant>, graphId: string, assistantId: string, stateless: boolean): RunKwargs {
  const streamModes: StreamMode[] = body.stream_mode === undefined ? ['values'] : Array.isArray(body.stream_mode) ? body.stream_mode : [body.stream_mode];
  return {
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
}

const locations = (run: StoredRun, stateless: boolean) => ({
  contentLocation: stateless ? `/runs/${run.run_id}` : `/threads/${run.thread_id}/runs/${run.run_id}`,
  streamLocation: `/threads/${run.thread_id}/runs/${run.run_id}/stream`,
});

/** A run that is already there: dispatched again if it holds its thread (its creator may have died first). */
async function existing(deps: RunAdmissionDeps, run: StoredRun, holdsThread: boolean, stateless: boolean): Promise<AdmittedRun> {
  if (holdsThread && run.status === 'pending') await deps.dispatcher.dispatch(run.thread_id, run.run_id, runStartsAt(run.created_at, run.kwargs));
  return { run, created: false, ...locations(run, stateless) };
}

/** The run's thread, and its metadata with the run's graph and assistant noted when that changes it. */
interface PreparedThread {
  threadId: string;
  /** Stored with the run (create-run), so a refused run notes nothing. */
  metadata?: Record<string, unknown>;
}

/** The run's thread, made when it must be (a stateless run's, or `if_not_exists`), its graph and assistant noted. */
async function preparedThread(
  deps: RunAdmissionDeps,
  threadId: string | null,
  body: RunCreate,
  owner: string,
  options: AdmitOptions,
  graphId: string,
  assistantId: string,
): Promise<PreparedThread> {
  const { threads } = deps.stores;
  const noted = { graph_id: graphId, assistant_id: assistantId };
  if (threadId === null) {
    const tid = options.statelessThreadId ?? randomUUID();
    const thread = await threads.create({ threadId: tid, metadata: noted, ifExists: options.statelessThreadId ? 'do_nothing' : 'raise', owner });
    return { threadId: tid, ...notedIn(thread.metadata, noted) };
  }
  // Its metadata alone: a long conversation's values are not read to start a run.
  let metadata = await threads.metadataOf(threadId);
  if (!metadata) {
    if (body.if_not_exists !== 'create') throw new ThreadNotFoundError(`Thread ${threadId} not found`);
    metadata = (await threads.create({ threadId, metadata: noted, ifExists: 'do_nothing', owner })).metadata;
  }
  return { threadId, ...notedIn(metadata, noted) };
}

/** `metadata` with the run's graph and assistant, when it does not name them already. */
function notedIn(metadata: Record<string, unknown>, noted: { graph_id: string; assistant_id: string }): { metadata?: Record<string, unknown> } {
  if (metadata.graph_id === noted.graph_id && metadata.assistant_id === noted.assistant_id) return {};
  return { metadata: { ...metadata, ...noted } };
}

/** The new run's record, before it is stored. */
function pendingRun(runId: string | undefined, threadId: string, assistantId: string, body: RunCreate, kwargs: RunKwargs, stateless: boolean): StoredRun {
  const now = nowIso();
  return {
    run_id: runId ?? randomUUID(),
    thread_id: threadId,
    assistant_id: assistantId,
    status: 'pending',
    created_at: now,
    updated_at: now,
    metadata: { ...(body.metadata ?? {}) },
    kwargs,
    multitask_strategy: body.multitask_strategy ?? 'enqueue',
    attempt: 0,
    cancel: null,
    temporary: stateless,
  };
}

/**
 * A stored run goes on the queue when it holds its thread; otherwise it waits behind the
 * thread's active run, which `interrupt` and `rollback` cancel.
 */
async function queueOrWait(deps: RunAdmissionDeps, run: StoredRun, created: Exclude<CreateRunResult, { existed: true }>): Promise<void> {
  const { thread_id: tid, kwargs, multitask_strategy: strategy } = run;
  if (created.dispatch) {
    await deps.dispatcher.dispatch(tid, run.run_id, kwargs.after_seconds ? runStartsAt(run.created_at, kwargs) : undefined);
  } else if (strategy === 'interrupt' || strategy === 'rollback') {
    // The new run waits at the head of the queue; cancelling the active run hands it over.
    const result = await signalCancel(deps, tid, created.waitingBehind, strategy);
    if (result === 'missing') throw new RunNotFoundError(`Run ${created.waitingBehind} not found on thread ${tid}`);
    // A run still waiting out `after_seconds` has no worker to tell: make its job due, and the
    // worker that takes it settles it as cancelled.
    if (result === 'signalled') await deps.dispatcher.promote(tid, created.waitingBehind);
  }
}

export function createRunAdmission(deps: RunAdmissionDeps) {
  const { runs } = deps.stores;
  const assistantDeps = { assistants: deps.stores.assistants, graphs: deps.graphs, ...(deps.systemDefaults ? { systemDefaults: deps.systemDefaults } : {}) };

  /**
   * Checks a body without storing anything (what a cron does with its payload when it is
   * created), and answers the assistant it resolved, which admission goes on with.
   */
  async function check(body: RunCreate, caller: Identity) {
    refuseUnsupported(body);
    await checkAgentName(body, deps.agents, caller);
    await checkWebhook(body.webhook, deps.webhooksAllowPrivate ?? false);
    return resolveRunAssistant(assistantDeps, body.assistant_id, caller);
  }

  /**
   * Stores and queues the run. `caller` is who it runs for: the client, or the owner of the cron
   * or chat that starts it; a thread it makes is theirs. Reaching `threadId` was checked before.
   */
  async function admit(threadId: string | null, body: RunCreate, caller: Identity, options: AdmitOptions = {}): Promise<AdmittedRun> {
    const stateless = threadId === null;
    if (options.runId) {
      // Before a stateless run's thread is made: a run that ended has deleted its thread.
      const ownerThread = await runs.threadOf(options.runId);
      const found = ownerThread ? await runs.get(ownerThread, options.runId) : null;
      if (found) return existing(deps, found, (await runs.active(found.thread_id)) === found.run_id, stateless);
    }
    checkCheckpointThread(body.checkpoint, threadId);
    const assistant = await check(body, caller);
    const { assistantId, graphId } = assistant;
    // The assistant's config and context under the run's own, as LangGraph merges them.
    const merged = mergeAssistant(assistant, body.config, body.context);
    if (options.defaultRecursionLimit !== undefined) merged.config.recursion_limit ??= options.defaultRecursionLimit;
    const thread = await preparedThread(deps, threadId, body, caller.user, options, graphId, assistantId);
    const tid = thread.threadId;

    const kwargs = runKwargs(body, merged, graphId, assistantId, stateless);
    const run = pendingRun(options.runId, tid, assistantId, body, kwargs, stateless);
    const created = await runs.create(run, run.multitask_strategy, thread.metadata);
    if ('existed' in created) return existing(deps, (await runs.get(tid, run.run_id)) ?? run, created.holdsThread, stateless);
    // The thread's index follows its new metadata while the run is queued.
    await Promise.all([queueOrWait(deps, run, created), thread.metadata && deps.stores.threads.touch(tid)]);
    return { run, created: true, ...locations(run, stateless) };
  }

  return { admit, check };
}

export type RunAdmission = ReturnType<typeof createRunAdmission>;
