// One job is one run: claim it, stream the graph into the run's Redis Stream, settle it, and
// hand the thread to its next queued run. Crash-safe: every step can be repeated by the next
// worker that takes the job, and settling twice is harmless. Each claim takes a new attempt,
// and every write of the run carries it: once another worker has claimed the run, Redis
// refuses this one's writes and it stops (see src/store/scripts/append-run-events-2.lua).
import { context } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { isRedisUnreachable, RunError } from '../../src/errors.js';
import { isFenceRefusal, isLineageRefusal, scriptRefusal } from '../../src/store/script-errors.js';
import { DEFAULT_GRAPH_ID } from '../../graphs/registry.js';
import { toWire, toWireJson } from '../../graphs/serialize.js';
import { readRunKwargs, runStartsAt, type RunKwargs } from '../../src/queue/run-kwargs.js';
import type { RunJob } from '../../src/queue/run-queue.js';
import type { RunFence, StoredRun } from '../../src/store/records.js';
import type { RunStreamWriter } from '../../src/store/run-stream.js';
import { StreamBufferFullError } from '../../src/store/store.errors.js';
import { FencedCheckpointSaver } from './fenced-saver.js';
import { StreamBarrier } from './stream-barrier.js';
import { eventDataJson, streamGraph, type GraphEvent, type WireStreamMode } from './graph-stream.js';
import { graphConfig, graphInput } from './run-config.js';
import { observeRun, type RunObserver } from './run-observer.js';
import { cancelledSettlement, resumeSettled, settle, type Settlement } from './run-settle.js';
import type { ExecutorDeps } from './executor-deps.js';

/**
 * Why a run's AbortSignal fired; BullMQ passes it through as the abort reason. `lost`: the
 * worker could not renew its lock, so another worker may already hold the run.
 */
export type StopReason = 'interrupt' | 'rollback' | 'shutdown' | 'lost';

/** How a run ended on this worker, for its metrics: set as the run goes. */
interface RunTally {
  startedAt: number | null;
  status: string;
}

/** A run claimed by this attempt: what the steps from its first write to its settling share. */
interface ClaimedRun {
  deps: ExecutorDeps;
  fence: RunFence;
  /** The run's record, with `checkpoint_before` kept. */
  run: StoredRun;
  writer: RunStreamWriter;
  log: Logger;
  tally: RunTally;
  /** When it started, ms since the epoch. */
  started: number;
  /** The thread has moved on from where the run started: the graph goes on from its checkpoint. */
  resumeFromCheckpoint: boolean;
  /** The thread's newest root checkpoint when the run was claimed. */
  latest: string | null;
}

/** The graph's run within an attempt: what streaming it and stopping it share. */
interface GraphRun {
  claimed: ClaimedRun;
  kwargs: RunKwargs;
  /** The job's stop switch (StopReason). */
  signal: AbortSignal;
  barrier: StreamBarrier;
  saver: FencedCheckpointSaver;
  /** Aborted with the first failed append. */
  appendFailed: AbortController;
  observer: RunObserver | undefined;
  /** The thread's values and interrupts to settle with, once known. */
  values?: Record<string, unknown> | null | undefined;
  interrupts?: Record<string, unknown> | undefined;
}

/**
 * `lost`: another attempt holds the run, or this worker gave it up (Redis away too long); it
 * wrote nothing after it learnt so. `held`: a live worker holds the run (its job came back
 * through BullMQ's stalled check after an outage): not claimed; ask again in `waitMs`.
 * `notDue`: the run waits out its `after_seconds` until `dueAt` (ms since the epoch): not claimed.
 */
export type ExecuteOutcome = 'settled' | 'handed-back' | 'lost' | { held: { waitMs: number } } | { notDue: { dueAt: number } };

/** A run this worker stops without settling it. */
type Unsettled = 'handed-back' | 'lost';

/**
 * Keeps a claimed run's hold (run-leases.ts) until the returned function is called: renews it,
 * and stops the run (`lost`) once it can no longer be kept.
 */
export type HoldRun = (fence: RunFence) => () => void;
/** How a run that ran ends: its settlement and what it leaves the thread, or unsettled. */
type Ending = ({ settlement: Settlement } & Pick<GraphRun, 'values' | 'interrupts'>) | Unsettled;

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
function runDueAt(run: StoredRun | null): number | null {
  if (!run || run.status !== 'pending' || run.cancel) return null;
  const afterSeconds = (run.kwargs as { after_seconds?: unknown }).after_seconds;
  if (typeof afterSeconds !== 'number' || afterSeconds <= 0) return null;
  const dueAt = runStartsAt(run.created_at, { after_seconds: afterSeconds });
  return dueAt > Date.now() ? dueAt : null;
}

export async function executeRun(job: RunJob, signal: AbortSignal, deps: ExecutorDeps, hold?: HoldRun): Promise<ExecuteOutcome> {
  const log = deps.log.child({ run_id: job.run_id, thread_id: job.thread_id });
  // Until it is known otherwise, a run that stops early was lost (a fence refusal, a throw).
  const tally: RunTally = { startedAt: null, status: 'lost' };
  try {
    return await claimAndRun(job, signal, deps, log, tally, hold);
  } catch (err) {
    // Redis refused a write: a newer attempt holds the run. Stop here, writing nothing more.
    if (!isFenceRefusal(err)) throw err;
    log.warn({ err }, 'run lost to a newer attempt; stopped without writing');
    return 'lost';
  } finally {
    if (tally.startedAt !== null) deps.metrics?.runEnded(tally.status, (Date.now() - tally.startedAt) / 1000);
  }
}

async function claimAndRun(job: RunJob, signal: AbortSignal, deps: ExecutorDeps, log: Logger, tally: RunTally, hold: HoldRun | undefined): Promise<ExecuteOutcome> {
  const claim = await claimRun(job, deps, log);
  if (!claim) return 'settled';
  if ('held' in claim || 'notDue' in claim) return claim;
  const release = hold?.(claim.fence);
  try {
    return await runClaimed(deps, claim, signal, log, tally);
  } finally {
    release?.();
  }
}

async function runClaimed(deps: ExecutorDeps, claim: Claim, signal: AbortSignal, log: Logger, tally: RunTally): Promise<ExecuteOutcome> {
  const { fence } = claim;
  const claimed = await startRun(deps, claim, log, tally);
  const kwargs = await readKwargs(claimed);
  if (!kwargs) return 'settled';
  const ending = await runGraph(claimed, kwargs, signal);
  if (ending === 'lost' || ending === 'handed-back') return ending;
  const { run, started } = claimed;
  const { settlement, values, interrupts } = ending;
  await settle(deps, fence, settlement, { values, interrupts }, run, kwargs);
  tally.status = settlement.status === 'deleted' ? 'rolled_back' : settlement.status;
  if (settlement.status === 'success' && values && graphIdOf(run) === DEFAULT_GRAPH_ID && deps.rememberTurn) {
    // After the settle: a turn is remembered once it is the thread's. Losing it costs one update's input, never the run.
    await deps.rememberTurn(fence.threadId, values).catch((err: unknown) => log.warn({ err }, 'could not note the turn for memory'));
  }
  log.info({ run_attempt: fence.attempt, run_exec_ms: Date.now() - started, status: settlement.status }, 'run finished');
  return 'settled';
}

/** A run this worker claimed: its fence, its record as the claim left it, and the thread's newest checkpoint then. */
interface Claim {
  fence: RunFence;
  run: StoredRun;
  latest: string | null;
}

/**
 * Claims the run for a new attempt; null when there is nothing to run: the run is gone, or the
 * claim found it settled, cancelled or out of attempts (settled here); `held` when a live worker
 * holds it; `notDue` when it waits out its `after_seconds`.
 */
async function claimRun(job: RunJob, deps: ExecutorDeps, log: Logger): Promise<Claim | { held: { waitMs: number } } | { notDue: { dueAt: number } } | null> {
  const threadId = job.thread_id;
  const runId = job.run_id;
  const { maxAttempts, lease } = deps.settings;
  let claim = await deps.runs.start(threadId, runId, maxAttempts, lease);
  if (claim.kind === 'check-due') {
    // Only a run whose kwargs may hold `after_seconds` costs this read.
    const dueAt = runDueAt(await deps.runs.get(threadId, runId));
    if (dueAt !== null) return { notDue: { dueAt } };
    claim = await deps.runs.start(threadId, runId, maxAttempts, lease, { due: true });
  }
  if (claim.kind === 'missing' || claim.kind === 'check-due') {
    log.info('run no longer exists; skipping');
    return null;
  }
  if (claim.kind === 'held') {
    log.info({ run_attempt: claim.attempt, wait_ms: claim.waitMs }, 'run held by a live worker; its job waits');
    return { held: { waitMs: claim.waitMs } };
  }
  const fence: RunFence = { threadId, runId, attempt: claim.attempt };
  switch (claim.kind) {
    case 'terminal':
      await resumeSettled(deps, threadId, runId);
      return null;
    case 'cancelled':
      await settle(deps, fence, cancelledSettlement(claim.action), {});
      return null;
    case 'exhausted': {
      const error = {
        error: 'RunAttemptsExhausted',
        message: `Run ${runId} failed after ${claim.failed} attempts: the workers running it stopped unexpectedly.`,
      };
      log.error({ run_attempt: claim.attempt }, error.message);
      await settle(deps, fence, { status: 'error', threadStatus: 'error', error }, {});
      return null;
    }
    case 'started':
      return { fence, run: claim.run, latest: claim.latest };
  }
}

/** Starts a claimed run: logs and counts its start, and sees where it started. */
async function startRun(deps: ExecutorDeps, { fence, run, latest }: Claim, log: Logger, tally: RunTally): Promise<ClaimedRun> {
  const { attempt } = fence;
  const writer = deps.streams.writer(fence);
  const started = Date.now();
  log.info({ run_attempt: attempt, run_queue_ms: started - Date.parse(run.created_at) }, 'run started');
  tally.startedAt = started;
  // A retried attempt's wait would count the earlier attempt's run time as waiting.
  deps.metrics?.runStarted(attempt === 1 ? (started - Date.parse(run.created_at)) / 1000 : null);
  // The claim kept the first attempt's starting point; a later attempt finds the thread moved on.
  const resumeFromCheckpoint = latest !== (run.checkpoint_before ?? null);
  return { deps, fence, run, writer, log, tally, started, resumeFromCheckpoint, latest };
}

/** The run's kwargs; null when its record cannot be read, and the run is settled as failed. */
async function readKwargs(claimed: ClaimedRun): Promise<RunKwargs | null> {
  const { deps, fence, run, log, tally } = claimed;
  try {
    return readRunKwargs(run.kwargs);
  } catch (err) {
    // A record this release cannot read (another release wrote it, or a hand edit): the run
    // fails with an error its clients can see, and the thread moves on to its next run.
    log.warn({ err, run_attempt: fence.attempt }, 'run record does not match the run contract');
    tally.status = 'error';
    await claimed.writer.append('metadata', metadataJson(fence));
    await settle(deps, fence, { status: 'error', threadStatus: 'error', error: errorPayload(err) }, {}, run);
    return null;
  }
}

/**
 * Runs the graph with its checkpoints fenced and held behind its appends, and says how the run
 * ends: settled as `ending` says, or lost, or handed back (nothing left to write).
 */
async function runGraph(claimed: ClaimedRun, kwargs: RunKwargs, signal: AbortSignal): Promise<Ending> {
  const { deps, fence, log } = claimed;
  const barrier = new StreamBarrier();
  const forkFrom = kwargs.checkpoint?.checkpoint_id ?? null;
  // Each checkpoint goes to Redis behind the events the graph produced before it (stream-barrier.ts).
  const saver = new FencedCheckpointSaver(
    deps.checkpoints.saverFor(fence, forkFrom),
    () => barrier.ahead(() => claimed.writer.sendQueued()),
    { threadId: fence.threadId, id: claimed.latest },
  );
  // A failed append stops the graph at once, rather than when its next event comes along; the
  // signal keeps the first failure as its reason.
  const appendFailed = new AbortController();
  const observer = observerFor(deps, fence.threadId, fence.runId, log);
  const graphRun: GraphRun = { claimed, kwargs, signal, barrier, saver, appendFailed, observer };
  let settlement: Settlement | Unsettled;
  try {
    settlement = await streamRun(graphRun);
  } catch (err) {
    settlement = await stopped(graphRun, err);
  }
  if (settlement === 'lost' || settlement === 'handed-back') return settlement;
  // The run's token tally is complete before its end is visible.
  await observer?.flush();
  return { settlement, values: graphRun.values, interrupts: graphRun.interrupts };
}

/** Streams the graph to its end; the settlement of a run that ran through. */
async function streamRun(graphRun: GraphRun): Promise<Settlement> {
  const { claimed, kwargs, observer, saver } = graphRun;
  const { deps, fence, run } = claimed;
  const { threadId, runId } = fence;
  // Not awaited, as no event is: the graph starts while `metadata` is on its way.
  appendInOrder(graphRun, 'metadata', metadataJson(fence));
  const config = graphConfig(run, kwargs, fence.attempt, deps.settings.defaultRecursionLimit);
  if (observer) config.callbacks = [observer];
  // LangGraph uses a checkpointer lent through the config before the graph's own.
  config.configurable = { ...config.configurable, __pregel_checkpointer: saver };
  const graph = await deps.graphs.load(graphIdOf(run), config);
  const modes: WireStreamMode[] = kwargs.stream_mode?.length ? kwargs.stream_mode : ['values'];
  if (fence.attempt > 1 && modes.includes('values')) {
    // A taken-over run starts again from its last checkpoint: a client that rebuilds from
    // `values` gets that state first, and so drops what the lost attempt had streamed past it.
    const resumed = await graph.getState({ configurable: { thread_id: threadId } });
    appendInOrder(graphRun, 'values', toWireJson(resumed.values ?? {}));
  }
  const events = streamGraph(graph, graphInput(kwargs, claimed.resumeFromCheckpoint), {
    modes,
    subgraphs: kwargs.stream_subgraphs ?? false,
    config,
    signal: AbortSignal.any([graphRun.signal, graphRun.appendFailed.signal]),
    runId,
  });
  await appendEvents(graphRun, events);
  // Through the run's own checkpointer, which knows the checkpoint it has just stored.
  const state = await graph.getState({ configurable: { thread_id: threadId, __pregel_checkpointer: saver } });
  graphRun.values = toWire<Record<string, unknown>>(state.values ?? {});
  const interrupts = (graphRun.interrupts = collectInterrupts(state.tasks));
  // A graph stopped with tasks left to run was interrupted: by `interrupt()`, or statically
  // (`interrupt_before`/`interrupt_after`), which leaves the tasks without interrupt values.
  return {
    status: 'success',
    threadStatus: (state.next ?? []).length > 0 || Object.keys(interrupts).length > 0 ? 'interrupted' : 'idle',
  };
}

/** The run's first event: which run, and which attempt of it, the stream is from. */
const metadataJson = ({ runId, attempt }: RunFence): string => toWireJson({ run_id: runId, attempt });

/**
 * Appends one event without waiting for Redis: the writer keeps events in the order appended,
 * the barrier sends every checkpoint behind the events before it (stream-barrier.ts), and a
 * failed append fences the saver before anything else can be stored, then stops the graph.
 */
function appendInOrder({ claimed, barrier, saver, appendFailed }: GraphRun, event: string, dataJson: string): void {
  const appended = barrier.appendStarted();
  void claimed.writer.append(event, dataJson).then(
    () => appended(),
    (error: unknown) => {
      void saver.fence();
      appendFailed.abort(error);
      appended();
    },
  );
}

/**
 * Appends the graph's events to the run's stream (appendInOrder), and returns once every append
 * has settled: the graph need not wait a Redis round trip per token.
 */
async function appendEvents(graphRun: GraphRun, events: AsyncIterable<GraphEvent>): Promise<void> {
  const { barrier, appendFailed } = graphRun;
  for await (const graphEvent of barrier.track(events)) {
    if (appendFailed.signal.aborted) throw appendFailed.signal.reason;
    appendInOrder(graphRun, graphEvent.event, eventDataJson(graphEvent));
  }
  // Every append settled (stored or failed), whatever order their replies came in.
  await barrier.caughtUp();
  if (appendFailed.signal.aborted) throw appendFailed.signal.reason;
}

/**
 * The graph stopped early (a stop signal, a failed append, a throw): the run was lost, is
 * handed back on shutdown, or settles as cancelled or failed, with the thread's values as they are.
 */
async function stopped(graphRun: GraphRun, err: unknown): Promise<Settlement | Unsettled> {
  const { deps, fence, run, log, tally } = graphRun.claimed;
  const { signal, appendFailed } = graphRun;
  const attempt = fence.attempt;
  // What the stopped graph still had in flight lands before the run settles or rolls back.
  await graphRun.saver.fence();
  const reason = signal.aborted ? (signal.reason as StopReason | undefined) : undefined;
  const cause: unknown = appendFailed.signal.aborted ? appendFailed.signal.reason : err;
  if (reason === 'lost' || isFenceRefusal(cause) || isFenceRefusal(err)) {
    graphRun.claimed.writer.discard(`attempt ${attempt} lost the run`);
    log.warn({ err: cause, run_attempt: attempt }, 'run lost: a newer attempt holds it, or Redis was away too long; stopped without writing');
    return 'lost';
  }
  if (cause instanceof StreamBufferFullError || isRedisUnreachable(cause)) {
    // Redis has been away longer than this worker can hold the run: nothing can be settled, and
    // nothing buffered may land later. Its job comes back through BullMQ's stalled check.
    graphRun.claimed.writer.discard(`attempt ${attempt} gave the run up while Redis was away`);
    log.warn({ err: cause, run_attempt: attempt }, 'run given up: Redis was away too long; stopped without writing');
    return 'lost';
  }
  // The events appended before the stop land before the run's `end` (or the next attempt's first).
  await graphRun.barrier.settled();
  if (reason === 'shutdown') {
    await deps.runs.handBack(fence);
    tally.status = 'handed_back';
    log.info({ run_attempt: attempt }, 'run handed back on shutdown');
    return 'handed-back';
  }
  let settlement: Settlement;
  if (reason === 'interrupt' || reason === 'rollback') {
    settlement = cancelledSettlement(reason);
  } else {
    const error = errorPayload(cause);
    log.warn({ err: cause, run_attempt: attempt }, 'run failed');
    settlement = { status: 'error', threadStatus: 'error', error };
  }
  if (settlement.status !== 'deleted') {
    graphRun.values = await currentValues(deps, run).catch((error: unknown) => {
      // The thread keeps the values it had; the run still settles.
      log.warn({ err: error, run_attempt: attempt }, 'could not read the thread values after the run stopped');
      return undefined;
    });
  }
  return settlement;
}

/** The run's observer (spans, model and tool metrics, token usage), when this worker observes runs. */
function observerFor(deps: ExecutorDeps, threadId: string, runId: string, log: Logger): RunObserver | undefined {
  const { metrics, usage } = deps;
  if (!metrics) return undefined;
  return observeRun({ root: context.active(), metrics, ...(usage ? { usage } : {}), threadId, runId, log });
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

/** A run of a client-created assistant names its graph; a system assistant's id is its graph's. */
export const graphIdOf = (run: StoredRun): string => (typeof run.kwargs.graph_id === 'string' ? run.kwargs.graph_id : run.assistant_id);
