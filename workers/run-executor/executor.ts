// One job is one run: claim it, stream the graph into the run's Redis Stream, settle it, and
// hand the thread to its next queued run. Crash-safe: every step can be repeated by the next
// worker that takes the job, and settling twice is harmless.
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { Logger } from 'pino';
import { RunError } from '../../src/errors.js';
import type { GraphRegistry } from '../../src/graphs/registry.js';
import { toWire, toWireJson } from '../../src/graphs/serialize.js';
import type { RunDispatcher, RunJob } from '../../src/queue/run-queue.js';
import type { RunStatus, StoredRun, ThreadStatus } from '../../src/store/records.js';
import type { RunStreams, RunStreamWriter } from '../../src/store/run-stream.js';
import type { RunStore } from '../../src/store/runs.js';
import type { ThreadStore } from '../../src/store/threads.js';
import { FencedCheckpointSaver } from './fenced-saver.js';
import { StreamBarrier } from './stream-barrier.js';
import { streamGraph, type WireStreamMode } from './graph-stream.js';
import { graphConfig, graphInput, runKwargs } from './run-config.js';

/** Why a run's AbortSignal fired; BullMQ passes it through as the abort reason. */
export type StopReason = 'interrupt' | 'rollback' | 'shutdown';

/** The checkpoint operations a run needs: where it started, and undoing it. */
export interface RunCheckpoints {
  /** The saver runs write through (each run gets its own fenced view of it). */
  saver: BaseCheckpointSaver;
  latestId(threadId: string): Promise<string | null>;
  /** Deletes the thread's checkpoints newer than `checkpointId` (all of them when null). */
  rollbackTo(threadId: string, checkpointId: string | null): Promise<void>;
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
  log: Logger;
}

export type ExecuteOutcome = 'settled' | 'handed-back';

interface Settlement {
  status: RunStatus | 'deleted';
  threadStatus: Exclude<ThreadStatus, 'busy'>;
  error?: { error: string; message: string };
}

export function errorPayload(err: unknown): { error: string; message: string } {
  if (err instanceof RunError) return { error: err.errorName, message: err.message };
  if (err instanceof Error) return { error: err.name || 'Error', message: err.message || String(err) };
  return { error: 'Error', message: typeof err === 'string' ? err : JSON.stringify(err) };
}

export async function executeRun(job: RunJob, signal: AbortSignal, deps: ExecutorDeps): Promise<ExecuteOutcome> {
  const { runs, streams, settings } = deps;
  const threadId = job.thread_id;
  const runId = job.run_id;
  const log = deps.log.child({ run_id: runId, thread_id: threadId });
  const writer = streams.writer(threadId, runId);

  const claim = await runs.start(threadId, runId, settings.maxAttempts);
  switch (claim.kind) {
    case 'missing':
      log.info('run no longer exists; skipping');
      return 'settled';
    case 'terminal':
      await resumeSettled(deps, threadId, runId, writer);
      return 'settled';
    case 'cancelled':
      await settle(deps, threadId, runId, writer, cancelledSettlement(claim.action), {});
      return 'settled';
    case 'exhausted': {
      const error = {
        error: 'RunAttemptsExhausted',
        message: `Run ${runId} failed after ${claim.attempt} attempts: the workers running it stopped unexpectedly.`,
      };
      log.error({ run_attempt: claim.attempt }, error.message);
      await settle(deps, threadId, runId, writer, { status: 'error', threadStatus: 'error', error }, {});
      return 'settled';
    }
    case 'started':
      break;
  }

  const attempt = claim.attempt;
  const run = await runs.require(threadId, runId);
  const kwargs = runKwargs(run);
  const started = Date.now();
  log.info({ run_attempt: attempt, run_queue_ms: started - Date.parse(run.created_at) }, 'run started');

  const latest = await deps.checkpoints.latestId(threadId);
  const before = run.checkpoint_before === undefined ? await runs.recordCheckpointBefore(threadId, runId, latest) : run.checkpoint_before;
  const resumeFromCheckpoint = latest !== before;
  run.checkpoint_before = before;

  await writer.append('metadata', toWireJson({ run_id: runId, attempt }));

  let settlement: Settlement;
  let values: Record<string, unknown> | null | undefined;
  let interrupts: Record<string, unknown> | undefined;
  const barrier = new StreamBarrier();
  const saver = new FencedCheckpointSaver(deps.checkpoints.saver, () => barrier.caughtUp());
  // A failed append stops the graph at once, rather than when its next event comes along; the
  // signal keeps the first failure as its reason.
  const appendFailed = new AbortController();
  try {
    const config = graphConfig(run, kwargs, attempt, settings.defaultRecursionLimit);
    // LangGraph uses a checkpointer lent through the config before the graph's own.
    config.configurable = { ...config.configurable, __pregel_checkpointer: saver };
    const graph = await deps.graphs.load(run.assistant_id, config);
    const modes: WireStreamMode[] = kwargs.stream_mode?.length ? kwargs.stream_mode : ['values'];
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
          saver.fence();
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
    settlement = {
      status: 'success',
      threadStatus: Object.keys(interrupts).length > 0 ? 'interrupted' : 'idle',
    };
  } catch (err) {
    saver.fence();
    const reason = signal.aborted ? (signal.reason as StopReason | undefined) : undefined;
    if (reason === 'shutdown') {
      log.info({ run_attempt: attempt }, 'run handed back on shutdown');
      return 'handed-back';
    }
    if (reason === 'interrupt' || reason === 'rollback') {
      settlement = cancelledSettlement(reason);
    } else {
      const error = errorPayload(appendFailed.signal.aborted ? appendFailed.signal.reason : err);
      log.warn({ err, run_attempt: attempt }, 'run failed');
      settlement = { status: 'error', threadStatus: 'error', error };
    }
    if (settlement.status !== 'deleted') values = await currentValues(deps, run).catch(() => undefined);
  }

  await settle(deps, threadId, runId, writer, settlement, { values, interrupts }, run);
  log.info({ run_attempt: attempt, run_exec_ms: Date.now() - started, status: settlement.status }, 'run finished');
  return 'settled';
}

function cancelledSettlement(action: 'interrupt' | 'rollback'): Settlement {
  return action === 'rollback' ? { status: 'deleted', threadStatus: 'idle' } : { status: 'interrupted', threadStatus: 'idle' };
}

function collectInterrupts(tasks: readonly { id: string; interrupts?: readonly unknown[] }[] | undefined) {
  const out: Record<string, unknown> = {};
  for (const task of tasks ?? []) if (task.interrupts && task.interrupts.length > 0) out[task.id] = toWire(task.interrupts);
  return out;
}

async function currentValues(deps: ExecutorDeps, run: StoredRun): Promise<Record<string, unknown>> {
  const graph = await deps.graphs.load(run.assistant_id, { configurable: { thread_id: run.thread_id } });
  const state = await graph.getState({ configurable: { thread_id: run.thread_id } });
  return toWire<Record<string, unknown>>(state.values ?? {});
}

/**
 * An earlier attempt settled this run and died before finishing the job: make sure the thread's
 * next run was dispatched (idempotent: the job id is the run id) and that the stream has `end`.
 */
async function resumeSettled(deps: ExecutorDeps, threadId: string, runId: string, writer: RunStreamWriter) {
  const active = await deps.runs.active(threadId);
  if (active && active !== runId) await deps.dispatcher.dispatch(threadId, active);
  const last = await deps.streams.lastEntry(threadId, runId);
  if (last?.event !== 'end') await writer.close(deps.settings.streamRetentionSeconds);
}

async function settle(
  deps: ExecutorDeps,
  threadId: string,
  runId: string,
  writer: RunStreamWriter,
  settlement: Settlement,
  state: { values?: Record<string, unknown> | null; interrupts?: Record<string, unknown> },
  run?: StoredRun,
): Promise<void> {
  if (settlement.status === 'deleted') {
    const before = run?.checkpoint_before ?? (await deps.runs.get(threadId, runId))?.checkpoint_before ?? null;
    await deps.checkpoints.rollbackTo(threadId, before);
  }
  if (settlement.error) await writer.append('error', toWireJson(settlement.error));
  const next = await deps.runs.finish({
    threadId,
    runId,
    status: settlement.status,
    threadStatus: settlement.threadStatus,
    ...(state.values !== undefined ? { values: state.values } : {}),
    ...(state.interrupts !== undefined ? { interrupts: state.interrupts } : {}),
  });
  if (next) await deps.dispatcher.dispatch(threadId, next);
  await deps.countFinished?.(settlement.status === 'deleted' ? 'rolled_back' : settlement.status).catch(() => undefined);
  // `end` goes last, so a client that sees it finds the run and thread already settled.
  await writer.close(deps.settings.streamRetentionSeconds);
  if (run?.temporary && (run.kwargs as { on_completion?: string }).on_completion !== 'keep') {
    // The stream and run record stay joinable for the retention period, then expire.
    await deps.runs.expireAll(threadId, deps.settings.streamRetentionSeconds);
    await deps.threads.remove(threadId);
    await deps.checkpoints.deleteThread(threadId);
  }
}
