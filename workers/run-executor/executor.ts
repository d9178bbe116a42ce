// One job is one run: claim it, stream the graph into the run's Redis Stream, settle it, and
// hand the thread to its next queued run. Crash-safe: every step can be repeated by the next
// worker that takes the job, and settling twice is harmless. Each claim takes a new attempt,
// and every write of the run carries it: once another worker has claimed the run, Redis
// refuses this one's writes and it stops (see src/store/scripts/append-run-event-2.lua).
import { context } from '@opentelemetry/api';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { Logger } from 'pino';
import { RunError } from '../../src/errors.js';
import { isFenceRefusal, isLineageRefusal, scriptRefusal } from '../../src/store/script-errors.js';
import { DEFAULT_GRAPH_ID, type GraphRegistry } from '../../graphs/registry.js';
import { toWire, toWireJson } from '../../graphs/serialize.js';
import { readRunKwargs, runStartsAt, type RunKwargs } from '../../src/queue/run-kwargs.js';
import type { RunDispatcher, RunJob } from '../../src/queue/run-queue.js';
import type { WebhookDispatcher } from '../../src/webhooks/webhooks.js';
import type { RunFence, RunStatus, StoredRun, ThreadStatus } from '../../src/store/records.js';
import type { WorkerMetrics } from '../../src/metrics/worker-metrics.js';
import type { RunStreams } from '../../src/store/run-stream.js';
import type { RunUsageStore } from '../../src/store/run-usage.js';
import type { RunStore } from '../../src/store/runs.js';
import type { ThreadStore } from '../../src/store/threads.js';
import { FencedCheckpointSaver } from './fenced-saver.js';
import { StreamBarrier } from './stream-barrier.js';
import { streamGraph, type WireStreamMode } from './graph-stream.js';
import { graphConfig, graphInput } from './run-config.js';
import { observeRun, type RunObserver } from './run-observer.js';

/**
 * Why a run's AbortSignal fired; BullMQ passes it through as the abort reason. `lost`: the
 * worker could not renew its lock, so another worker may already hold the run.
 */
export type StopReason = 'interrupt' | 'rollback' | 'shutdown' | 'lost';

/** The checkpoint operations a run needs: where it started, writing, and undoing it. */
export interface RunCheckpoints {
  /** The saver a run writes through: fenced by its attempt, kept on the thread's lineage. */
  saverFor(fence: RunFence, forkFrom: string | null): BaseCheckpointSaver;
  latestId(threadId: string): Promise<string | null>;
  /** Deletes the run's checkpoints newer than `checkpointId` (all of them when null); fenced. */
  rollBack(fence: RunFence, checkpointId: string | null): Promise<void>;
  deleteThread(threadId: string): Promise<void>;
}

export interface ExecutorDeps {
  runs: RunStore;
  threads: ThreadStore;
  streams: RunStreams;
  graphs: GraphRegistry;
  checkpoints: RunCheckpoints;
  dispatcher: RunDispatcher;
  settings: { maxAttempts: number; defaultRecursionLimit: number; streamRetentionSeconds: number };
  /** Counts a run's final status for /metrics. */
  countFinished?: (status: string) => Promise<void>;
  /** This worker's metrics (runs, model and tool calls); absent, runs are not observed. */
  metrics?: WorkerMetrics;
  /** Where a run's model calls record their token usage. */
  usage?: Pick<RunUsageStore, 'add'>;
  /** Queues the delivery of a run's `webhook` once it has settled. */
  webhooks?: Pick<WebhookDispatcher, 'enqueue'>;
  /** Notes a finished turn of the lead agent for the user's next memory update. */
  rememberTurn?: (threadId: string, values: Record<string, unknown>) => Promise<void>;
  log: Logger;
}

/** How a run ended on this worker, for its metrics: set as the run goes. */
interface RunTally {
  startedAt: number | null;
  status: string;
}

/** `lost`: another attempt holds the run; this worker wrote nothing after it learnt so. */
export type ExecuteOutcome = 'settled' | 'handed-back' | 'lost';

interface Settlement {
  status: RunStatus | 'deleted';
  threadStatus: Exclude<ThreadStatus, 'busy'>;
  error?: { error: string; message: string };
}

/**
 * LangGraph's own message tells a JavaScript caller to set `recursionLimit`; an HTTP client sets
 * `config.recursion_limit` in the run request, and the operator the default in config.yaml.
 */
function recursionMessage(original: string): string {
  const limit = /limit of (\d+)/.exec(original)?.[1];
  return (
    `Recursion limit${limit ? ` of ${limit}` : ''} reached without hitting a stop condition. ` +
    'Raise it with "config.recursion_limit" in the run request (the default is runtime.default_recursion_limit in config.yaml).'
  );
}

export function errorPayload(err: unknown): { error: string; message: string } {
  if (err instanceof RunError) return { error: err.errorName, message: err.message };
  if (isLineageRefusal(err)) {
    return { error: 'CheckpointConflict', message: `The thread's state changed under the run: ${scriptRefusal(err as Error).message}` };
  }
  if (err instanceof Error && err.name === 'GraphRecursionError') return { error: err.name, message: recursionMessage(err.message) };
  if (err instanceof Error) return { error: err.name || 'Error', message: err.message || String(err) };
  return { error: 'Error', message: typeof err === 'string' ? err : JSON.stringify(err) };
}

/**
 * When a run asked for with `after_seconds` is not due yet, the time it is due (ms since the
 * epoch); otherwise null. A run reaches a worker early when it took over its thread from an
 * earlier run (dispatched at once); a cancelled one is settled at once, whatever its delay.
 */
export async function runDueAt(job: RunJob, deps: Pick<ExecutorDeps, 'runs'>): Promise<number | null> {
  const run = await deps.runs.get(job.thread_id, job.run_id);
  if (!run || run.status !== 'pending' || run.cancel) return null;
  const afterSeconds = (run.kwargs as { after_seconds?: unknown }).after_seconds;
  if (typeof afterSeconds !== 'number' || afterSeconds <= 0) return null;
  const dueAt = runStartsAt(run.created_at, { after_seconds: afterSeconds });
  return dueAt > Date.now() ? dueAt : null;
}

export async function executeRun(job: RunJob, signal: AbortSignal, deps: ExecutorDeps): Promise<ExecuteOutcome> {
  const log = deps.log.child({ run_id: job.run_id, thread_id: job.thread_id });
  // Until it is known otherwise, a run that stops early was lost (a fence refusal, a throw).
  const tally: RunTally = { startedAt: null, status: 'lost' };
  try {
    return await claimAndRun(job, signal, deps, log, tally);
  } catch (err) {
    // Redis refused a write: a newer attempt holds the run. Stop here, writing nothing more.
    if (!isFenceRefusal(err)) throw err;
    log.warn({ err }, 'run lost to a newer attempt; stopped without writing');
    return 'lost';
  } finally {
    if (tally.startedAt !== null) deps.metrics?.runEnded(tally.status, (Date.now() - tally.startedAt) / 1000);
  }
}

async function claimAndRun(job: RunJob, signal: AbortSignal, deps: ExecutorDeps, log: Logger, tally: RunTally): Promise<ExecuteOutcome> {
  const { runs, streams, settings } = deps;
  const threadId = job.thread_id;
  const runId = job.run_id;

  const claim = await runs.start(threadId, runId, settings.maxAttempts);
  if (claim.kind === 'missing') {
    log.info('run no longer exists; skipping');
    return 'settled';
  }
  const fence: RunFence = { threadId, runId, attempt: claim.attempt };
  switch (claim.kind) {
    case 'terminal':
      await resumeSettled(deps, threadId, runId);
      return 'settled';
    case 'cancelled':
      await settle(deps, fence, cancelledSettlement(claim.action), {});
      return 'settled';
    case 'exhausted': {
      const error = {
        error: 'RunAttemptsExhausted',
        message: `Run ${runId} failed after ${claim.failed} attempts: the workers running it stopped unexpectedly.`,
      };
      log.error({ run_attempt: claim.attempt }, error.message);
      await settle(deps, fence, { status: 'error', threadStatus: 'error', error }, {});
      return 'settled';
    }
    case 'started':
      break;
  }

  const attempt = claim.attempt;
  const writer = streams.writer(fence);
  const run = await runs.require(threadId, runId);
  const started = Date.now();
  log.info({ run_attempt: attempt, run_queue_ms: started - Date.parse(run.created_at) }, 'run started');
  tally.startedAt = started;
  // A retried attempt's wait would count the earlier attempt's run time as waiting.
  deps.metrics?.runStarted(attempt === 1 ? (started - Date.parse(run.created_at)) / 1000 : null);

  const latest = await deps.checkpoints.latestId(threadId);
  const before = run.checkpoint_before === undefined ? await runs.recordCheckpointBefore(threadId, runId, latest) : run.checkpoint_before;
  const resumeFromCheckpoint = latest !== before;
  run.checkpoint_before = before;

  await writer.append('metadata', toWireJson({ run_id: runId, attempt }));

  let kwargs: RunKwargs;
  try {
    kwargs = readRunKwargs(run.kwargs);
  } catch (err) {
    // A record this release cannot read (another release wrote it, or a hand edit): the run
    // fails with an error its clients can see, and the thread moves on to its next run.
    log.warn({ err, run_attempt: attempt }, 'run record does not match the run contract');
    tally.status = 'error';
    await settle(deps, fence, { status: 'error', threadStatus: 'error', error: errorPayload(err) }, {}, run);
    return 'settled';
  }

  let settlement: Settlement;
  let values: Record<string, unknown> | null | undefined;
  let interrupts: Record<string, unknown> | undefined;
  const barrier = new StreamBarrier();
  const forkFrom = kwargs.checkpoint?.checkpoint_id ?? null;
  const saver = new FencedCheckpointSaver(deps.checkpoints.saverFor(fence, forkFrom), () => barrier.caughtUp());
  // A failed append stops the graph at once, rather than when its next event comes along; the
  // signal keeps the first failure as its reason.
  const appendFailed = new AbortController();
  const observer = observerFor(deps, threadId, runId, log);
  try {
    const config = graphConfig(run, kwargs, attempt, settings.defaultRecursionLimit);
    if (observer) config.callbacks = [observer];
    // LangGraph uses a checkpointer lent through the config before the graph's own.
    config.configurable = { ...config.configurable, __pregel_checkpointer: saver };
    const graph = await deps.graphs.load(graphIdOf(run), config);
    const modes: WireStreamMode[] = kwargs.stream_mode?.length ? kwargs.stream_mode : ['values'];
    if (attempt > 1 && modes.includes('values')) {
      // A taken-over run starts again from its last checkpoint: a client that rebuilds from
      // `values` gets that state first, and so drops what the lost attempt had streamed past it.
      const resumed = await graph.getState({ configurable: { thread_id: threadId } });
      await writer.append('values', toWireJson(resumed.values ?? {}));
    }
    const events = streamGraph(graph, graphInput(kwargs, resumeFromCheckpoint), {
      modes,
      subgraphs: kwargs.stream_subgraphs ?? false,
      config,
      signal: AbortSignal.any([signal, appendFailed.signal]),
      runId,
    });
    // Appends are not awaited one by one: the connection keeps them in order, and the graph
    // need not wait a Redis round trip per token. The barrier still holds every checkpoint until
    // the events before it are stored; a failed append fences the saver before anything else
    // can be stored, then fails the run.
    for await (const { event, data } of barrier.track(events)) {
      if (appendFailed.signal.aborted) throw appendFailed.signal.reason;
      const appended = barrier.appendStarted();
      void writer.append(event, toWireJson(data)).then(
        () => appended(),
        (error: unknown) => {
          void saver.fence();
          appendFailed.abort(error);
          appended();
        },
      );
    }
    // Every append settled (stored or failed), whatever order their replies came in.
    await barrier.caughtUp();
    if (appendFailed.signal.aborted) throw appendFailed.signal.reason;
    const state = await graph.getState({ configurable: { thread_id: threadId } });
    values = toWire<Record<string, unknown>>(state.values ?? {});
    interrupts = collectInterrupts(state.tasks);
    // A graph stopped with tasks left to run was interrupted: by `interrupt()`, or statically
    // (`interrupt_before`/`interrupt_after`), which leaves the tasks without interrupt values.
    settlement = {
      status: 'success',
      threadStatus: (state.next ?? []).length > 0 || Object.keys(interrupts).length > 0 ? 'interrupted' : 'idle',
    };
  } catch (err) {
    // What the stopped graph still had in flight lands before the run settles or rolls back.
    await saver.fence();
    const reason = signal.aborted ? (signal.reason as StopReason | undefined) : undefined;
    const cause: unknown = appendFailed.signal.aborted ? appendFailed.signal.reason : err;
    if (reason === 'lost' || isFenceRefusal(cause) || isFenceRefusal(err)) {
      log.warn({ err: cause, run_attempt: attempt }, 'run lost: its lock lapsed or a newer attempt holds it; stopped without writing');
      return 'lost';
    }
    if (reason === 'shutdown') {
      await deps.runs.handBack(fence);
      tally.status = 'handed_back';
      log.info({ run_attempt: attempt }, 'run handed back on shutdown');
      return 'handed-back';
    }
    if (reason === 'interrupt' || reason === 'rollback') {
      settlement = cancelledSettlement(reason);
    } else {
      const error = errorPayload(cause);
      log.warn({ err: cause, run_attempt: attempt }, 'run failed');
      settlement = { status: 'error', threadStatus: 'error', error };
    }
    if (settlement.status !== 'deleted') {
      values = await currentValues(deps, run).catch((error: unknown) => {
        // The thread keeps the values it had; the run still settles.
        log.warn({ err: error, run_attempt: attempt }, 'could not read the thread values after the run stopped');
        return undefined;
      });
    }
  }

  // The run's token tally is complete before its end is visible.
  await observer?.flush();
  await settle(deps, fence, settlement, { values, interrupts }, run, kwargs);
  tally.status = settlement.status === 'deleted' ? 'rolled_back' : settlement.status;
  if (settlement.status === 'success' && values && graphIdOf(run) === DEFAULT_GRAPH_ID && deps.rememberTurn) {
    // After the settle: a turn is remembered once it is the thread's. Losing it costs one update's input, never the run.
    await deps.rememberTurn(threadId, values).catch((err: unknown) => log.warn({ err }, 'could not note the turn for memory'));
  }
  log.info({ run_attempt: attempt, run_exec_ms: Date.now() - started, status: settlement.status }, 'run finished');
  return 'settled';
}

/** The run's observer (spans, model and tool metrics, token usage), when this worker observes runs. */
function observerFor(deps: ExecutorDeps, threadId: string, runId: string, log: Logger): RunObserver | undefined {
  const { metrics, usage } = deps;
  if (!metrics) return undefined;
  return observeRun({ root: context.active(), metrics, ...(usage ? { usage } : {}), threadId, runId, log });
}

function cancelledSettlement(action: 'interrupt' | 'rollback'): Settlement {
  return action === 'rollback' ? { status: 'deleted', threadStatus: 'idle' } : { status: 'interrupted', threadStatus: 'idle' };
}

/** LangGraph's shape: every pending task by id, with its interrupts (none for a static interrupt). */
function collectInterrupts(tasks: readonly { id: string; interrupts?: readonly unknown[] }[] | undefined) {
  const out: Record<string, unknown> = {};
  for (const task of tasks ?? []) out[task.id] = toWire(task.interrupts ?? []);
  return out;
}

async function currentValues(deps: ExecutorDeps, run: StoredRun): Promise<Record<string, unknown>> {
  const graph = await deps.graphs.load(graphIdOf(run), { configurable: { thread_id: run.thread_id } });
  const state = await graph.getState({ configurable: { thread_id: run.thread_id } });
  return toWire<Record<string, unknown>>(state.values ?? {});
}

/**
 * An earlier attempt settled this run (its `end` went with it) and died before finishing the
 * job: make sure the thread's next run was dispatched (idempotent: the job id is the run id).
 */
async function resumeSettled(deps: ExecutorDeps, threadId: string, runId: string) {
  const active = await deps.runs.active(threadId);
  if (active && active !== runId) await deps.dispatcher.dispatch(threadId, active);
  // Its webhook too (a no-op if it was queued): values from the thread, the error was in the stream.
  const webhook = webhookOf((await deps.runs.get(threadId, runId))?.kwargs);
  if (webhook) await queueWebhook(deps, threadId, runId, webhook, (await deps.threads.get(threadId))?.values ?? null, null);
}

/** A run of a client-created assistant names its graph; a system assistant's id is its graph's. */
export const graphIdOf = (run: StoredRun): string => (typeof run.kwargs.graph_id === 'string' ? run.kwargs.graph_id : run.assistant_id);

const webhookOf = (kwargs: RunKwargs | undefined): string | undefined => (typeof kwargs?.webhook === 'string' ? kwargs.webhook : undefined);

async function queueWebhook(
  deps: ExecutorDeps,
  threadId: string,
  runId: string,
  url: string,
  values: Record<string, unknown> | null,
  error: { error: string; message: string } | null,
): Promise<void> {
  if (!deps.webhooks) return;
  await deps.webhooks.enqueue({ thread_id: threadId, run_id: runId, url, values, error }).catch((err: unknown) => {
    // The run is settled; only its notification is lost, and the log says so.
    deps.log.warn({ err, run_id: runId, thread_id: threadId }, 'could not queue the run webhook');
  });
}

/** Every write here is fenced: a worker that lost the run settles nothing (WARREN_FENCED). */
async function settle(
  deps: ExecutorDeps,
  fence: RunFence,
  settlement: Settlement,
  state: { values?: Record<string, unknown> | null; interrupts?: Record<string, unknown> },
  run?: StoredRun,
  kwargs?: RunKwargs,
): Promise<void> {
  const { threadId, runId } = fence;
  if (settlement.status === 'deleted') {
    const before = run?.checkpoint_before ?? (await deps.runs.get(threadId, runId))?.checkpoint_before ?? null;
    await deps.checkpoints.rollBack(fence, before);
  }
  const next = await deps.runs.finish({
    fence,
    status: settlement.status,
    threadStatus: settlement.threadStatus,
    ...(state.values !== undefined ? { values: state.values } : {}),
    ...(state.interrupts !== undefined ? { interrupts: state.interrupts } : {}),
    ...(settlement.error ? { error: settlement.error } : {}),
    retentionSeconds: deps.settings.streamRetentionSeconds,
  });
  if (next) await deps.dispatcher.dispatch(threadId, next);
  const webhook = webhookOf(kwargs ?? (run ?? (deps.webhooks ? await deps.runs.get(threadId, runId) : null))?.kwargs);
  if (webhook && settlement.status !== 'deleted') await queueWebhook(deps, threadId, runId, webhook, state.values ?? null, settlement.error ?? null);
  await deps.countFinished?.(settlement.status === 'deleted' ? 'rolled_back' : settlement.status).catch((err: unknown) => {
    // A missed count costs /metrics one increment; the run is settled already.
    deps.log.warn({ err, run_id: runId, thread_id: threadId }, 'could not count the finished run');
  });
  if (run?.temporary && kwargs?.on_completion !== 'keep') {
    // The stream and run record stay joinable for the retention period, then expire.
    await deps.runs.expireAll(threadId, deps.settings.streamRetentionSeconds);
    await deps.threads.remove(threadId);
    // Whose the run was stays known as long as it can be joined, so no one else joins it.
    await deps.threads.expireOwner(threadId, deps.settings.streamRetentionSeconds);
    await deps.checkpoints.deleteThread(threadId);
  }
}
