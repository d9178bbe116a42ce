// RunStore: run records, the per-thread run queue and the active-run slot.
// One run holds a thread at a time; the Lua scripts keep that invariant atomic.
import type { RedisClient } from './redis.js';
import { keys } from './keys.js';
import { jsonReader, type JsonReader, type OnDamagedRecord } from './json.js';
import { RunNotFoundError, ThreadBusyError, ThreadNotFoundError } from './store.errors.js';
import {
  nowIso,
  type MultitaskStrategy,
  type Run,
  type RunFence,
  type RunStatus,
  type StoredRun,
  type ThreadStatus,
} from './records.js';
import { requireScript, type ScriptCaller } from './scripts.js';
import { appendedChannel } from './run-stream.js';

/**
 * `existed`: a run with this id was there already and nothing changed; `holdsThread` says whether
 * it is the thread's active run (a caller that crashed before dispatching it dispatches it again).
 */
export type CreateRunResult =
  | { dispatch: true }
  | { dispatch: false; waitingBehind: string }
  | { dispatch: false; existed: true; holdsThread: boolean };
/** A claim of a live run takes a new attempt; `attempt` is the claim's fencing token. */
export type StartRunResult =
  /**
   * `run`: its record as the claim left it, `checkpoint_before` set; `latest`: the thread's
   * newest root checkpoint when the run was claimed.
   */
  | { kind: 'started'; attempt: number; run: StoredRun; latest: string | null }
  /** A pending run that may be waiting out `after_seconds`: not claimed; ask again with `due` once its time has come. */
  | { kind: 'check-due' }
  | { kind: 'missing' }
  | { kind: 'terminal'; status: RunStatus; attempt: number }
  | { kind: 'cancelled'; action: 'interrupt' | 'rollback'; attempt: number }
  /** `failed`: the attempts whose workers died, not counting hand-backs. */
  | { kind: 'exhausted'; attempt: number; failed: number }
  /**
   * A live worker holds the run under `attempt` (its lease is live, or lapsed while Redis was
   * down and it may yet re-take it): not claimed; ask again in `waitMs`.
   */
  | { kind: 'held'; attempt: number; waitMs: number };

/** How a claim's hold on a run lasts; see start-run-3.lua and renew-run-lease-1.lua. */
export interface RunLeaseTimes {
  /** How long a hold lasts without renewal. */
  leaseMs: number;
  /** How long after a Redis restart a hold that lapsed while Redis was down may still be re-taken. */
  graceMs: number;
}
export type CancelRunResult = 'missing' | 'terminal' | 'cancelled' | 'signalled';

export interface FinishRun {
  /** The attempt that settles the run; Redis refuses any other (WARREN_FENCED). */
  fence: RunFence;
  /** The run's final status, or `deleted` to remove it (rollback). */
  status: RunStatus | 'deleted';
  threadStatus: Exclude<ThreadStatus, 'busy'>;
  values?: Record<string, unknown> | null;
  interrupts?: Record<string, unknown>;
  /** The `error` event appended before `end`. */
  error?: { error: string; message: string };
  /** How long the stream stays joinable after `end`. */
  retentionSeconds: number;
}

export interface RunStore {
  /** `threadMetadata`: the thread's metadata to store with the run (its graph and assistant noted), if it changes. */
  create(run: StoredRun, strategy: MultitaskStrategy, threadMetadata?: Record<string, unknown>): Promise<CreateRunResult>;
  get(threadId: string, runId: string): Promise<StoredRun | null>;
  require(threadId: string, runId: string): Promise<StoredRun>;
  /** The thread a run belongs to, from the run id alone. */
  threadOf(runId: string): Promise<string | null>;
  list(threadId: string, query: { limit: number; offset: number; status?: RunStatus }): Promise<StoredRun[]>;
  /** Ids of the thread's runs that are pending or running, newest first. */
  inflight(threadId: string): Promise<StoredRun[]>;
  /** Every pending or running run, on any thread (bulk cancel by status). */
  inflightEverywhere(): Promise<StoredRun[]>;
  /**
   * Claims the run, and answers in the same round trip with what its worker needs before the
   * graph starts. Without `lease`, a hold nobody keeps (the next claim takes over at once).
   * `due`: the caller found the run due, so a pending run with `after_seconds` is claimed too.
   */
  start(threadId: string, runId: string, maxAttempts: number, lease?: RunLeaseTimes, options?: { due?: boolean }): Promise<StartRunResult>;
  /**
   * Renews the hold of the attempt that claimed the run (and re-takes it after an outage, if no
   * one claimed it meanwhile): true if held, false once the run no longer runs (settled or
   * handed back). Rejects with a WARREN_FENCED refusal once another attempt holds it.
   */
  renewLease(fence: RunFence, leaseMs: number): Promise<boolean>;
  /** Keeps, once, how many messages preceded the run's own (the history feed counts it on first need). */
  recordMessagesBefore(threadId: string, runId: string, count: number): Promise<void>;
  /** A graceful hand-back: the attempt is not counted against the limit. */
  handBack(fence: RunFence): Promise<void>;
  /**
   * Settles the run and appends its `error` (if any) and `end`, in one step; returns the id of
   * the queued run that now holds the thread, if any.
   */
  finish(input: FinishRun): Promise<string | null>;
  cancel(threadId: string, runId: string, action: 'interrupt' | 'rollback'): Promise<CancelRunResult>;
  /** The run currently holding the thread, if any. */
  active(threadId: string): Promise<string | null>;
  /** Removes every run record of the thread (thread deletion). */
  removeAll(threadId: string): Promise<string[]>;
  remove(threadId: string, runId: string): Promise<void>;
  /** Lets every run record and stream of the thread expire (stateless runs' temporary threads). */
  expireAll(threadId: string, seconds: number): Promise<void>;
}

function runToFields(run: StoredRun): string[] {
  return [
    'run_id', run.run_id,
    'thread_id', run.thread_id,
    'assistant_id', run.assistant_id,
    'status', run.status,
    'created_at', run.created_at,
    'updated_at', run.updated_at,
    'metadata', JSON.stringify(run.metadata),
    'kwargs', JSON.stringify(run.kwargs),
    'multitask_strategy', run.multitask_strategy,
    'attempt', String(run.attempt),
    'cancel', run.cancel ?? '',
    'temporary', run.temporary ? '1' : '0',
  ];
}

/** A run's hash as its record; a damaged JSON field reads as empty and is reported under the run's key. */
export function runFromHash(hash: Record<string, string>, json: JsonReader): StoredRun | null {
  if (!hash.run_id || !hash.thread_id) return null;
  const key = keys.run(hash.thread_id, hash.run_id);
  return {
    run_id: hash.run_id,
    thread_id: hash.thread_id,
    assistant_id: hash.assistant_id ?? '',
    status: (hash.status as RunStatus) ?? 'pending',
    created_at: hash.created_at ?? '',
    updated_at: hash.updated_at ?? '',
    metadata: json(hash.metadata, {}, `${key}#metadata`),
    kwargs: json(hash.kwargs, {}, `${key}#kwargs`),
    multitask_strategy: (hash.multitask_strategy as MultitaskStrategy) ?? 'enqueue',
    attempt: Number(hash.attempt ?? 0),
    cancel: hash.cancel === 'interrupt' || hash.cancel === 'rollback' ? hash.cancel : null,
    temporary: hash.temporary === '1',
    ...(hash.checkpoint_before !== undefined ? { checkpoint_before: hash.checkpoint_before || null } : {}),
    ...(hash.messages_before !== undefined && /^\d+$/.test(hash.messages_before) ? { messages_before: Number(hash.messages_before) } : {}),
    ...(hash.error ? { error: hash.error } : {}),
  };
}

/** The wire shape of a run: internals stay inside. */
export function publicRun(run: StoredRun): Run {
  const { attempt: _a, cancel: _c, temporary: _t, checkpoint_before: _cb, messages_before: _mb, error: _e, ...wire } = run;
  return wire;
}

/** The keys a run's scripts touch on its thread (one slot). */
function threadKeys(threadId: string, runId: string) {
  return {
    thread: keys.thread(threadId),
    run: keys.run(threadId, runId),
    runs: keys.threadRuns(threadId),
    active: keys.activeRun(threadId),
    queue: keys.runQueue(threadId),
  };
}

export function createRunStore(redis: RedisClient, scripts: Record<string, ScriptCaller>, onDamaged: OnDamagedRecord): RunStore {
  return new RedisRunStore(redis, scripts, jsonReader(onDamaged));
}

class RedisRunStore implements RunStore {
  private readonly createScript: ScriptCaller;
  private readonly startScript: ScriptCaller;
  private readonly finishScript: ScriptCaller;
  private readonly handBackScript: ScriptCaller;
  private readonly renewLeaseScript: ScriptCaller;
  private readonly setOnceScript: ScriptCaller;
  private readonly cancelScript: ScriptCaller;

  constructor(
    private readonly redis: RedisClient,
    scripts: Record<string, ScriptCaller>,
    private readonly json: JsonReader,
  ) {
    this.createScript = requireScript(scripts, 'createRun');
    this.startScript = requireScript(scripts, 'startRun');
    this.finishScript = requireScript(scripts, 'finishRun');
    this.handBackScript = requireScript(scripts, 'handBackRun');
    this.renewLeaseScript = requireScript(scripts, 'renewRunLease');
    this.setOnceScript = requireScript(scripts, 'setHashFieldOnce');
    this.cancelScript = requireScript(scripts, 'cancelRun');
  }

  async get(threadId: string, runId: string): Promise<StoredRun | null> {
    return runFromHash(await this.redis.hgetall(keys.run(threadId, runId)), this.json);
  }

  async require(threadId: string, runId: string): Promise<StoredRun> {
    const run = await this.get(threadId, runId);
    if (!run) throw new RunNotFoundError(`Run ${runId} not found on thread ${threadId}`);
    return run;
  }

  threadOf(runId: string): Promise<string | null> {
    return this.redis.hget(keys.runThreads(), runId);
  }

  async create(run: StoredRun, strategy: MultitaskStrategy, threadMetadata?: Record<string, unknown>): Promise<CreateRunResult> {
    const k = threadKeys(run.thread_id, run.run_id);
    const now = nowIso();
    // The run id's thread is noted in the same round trip (it lives on another slot), and taken
    // back when the run is refused: nothing reads it before the run's creator answers. (Only a
    // run id chosen by Warren, a cron tick's, can be admitted twice at once; a refusal's undo
    // landing after the other admission's note would leave that run reachable by its thread only.)
    const [reply] = await Promise.all([
      this.createScript(
        [k.thread, k.run, k.runs, k.active, k.queue],
        [run.run_id, strategy, now, Date.parse(run.created_at), threadMetadata ? JSON.stringify(threadMetadata) : '', ...runToFields(run)],
      ) as Promise<[number, string?]>,
      this.redis.hset(keys.runThreads(), run.run_id, run.thread_id),
    ]).catch(async (err: unknown) => {
      // The error that matters is the one thrown below; an entry left behind names a thread
      // without the run, which reads as "not found", as a missing entry would.
      await this.redis.hdel(keys.runThreads(), run.run_id).catch(() => undefined);
      throw err;
    });
    const code = Number(reply[0]);
    if (code < 0) await this.redis.hdel(keys.runThreads(), run.run_id);
    if (code === -1) throw new ThreadNotFoundError(`Thread ${run.thread_id} not found`);
    if (code === -2) {
      throw new ThreadBusyError(`Thread ${run.thread_id} is busy with run ${reply[1]}; multitask_strategy is reject`);
    }
    if (code === 2) return { dispatch: false, existed: true, holdsThread: reply[1] === run.run_id };
    return code === 0 ? { dispatch: true } : { dispatch: false, waitingBehind: String(reply[1]) };
  }

  async list(threadId: string, { limit, offset, status }: { limit: number; offset: number; status?: RunStatus }): Promise<StoredRun[]> {
    if (!status) {
      const ids = await this.redis.zrevrange(keys.threadRuns(threadId), offset, offset + limit - 1);
      return this.readMany(threadId, ids);
    }
    const all = await this.readMany(threadId, await this.redis.zrevrange(keys.threadRuns(threadId), 0, -1));
    return all.filter((r) => r.status === status).slice(offset, offset + limit);
  }

  async inflight(threadId: string): Promise<StoredRun[]> {
    const all = await this.readMany(threadId, await this.redis.zrevrange(keys.threadRuns(threadId), 0, -1));
    return all.filter((r) => r.status === 'pending' || r.status === 'running');
  }

  async inflightEverywhere(): Promise<StoredRun[]> {
    // The run-to-thread index names every run; its records are read a page at a time.
    const out: StoredRun[] = [];
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(keys.runThreads(), cursor, 'COUNT', 500);
      cursor = next;
      // Runs of different threads live on different slots: one HGETALL each, sent together.
      const reads: Promise<Record<string, string>>[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) reads.push(this.redis.hgetall(keys.run(flat[i + 1] as string, flat[i] as string)));
      for (const hash of await Promise.all(reads)) {
        const run = runFromHash(hash, this.json);
        if (run && (run.status === 'pending' || run.status === 'running')) out.push(run);
      }
    } while (cursor !== '0');
    return out;
  }

  async start(threadId: string, runId: string, maxAttempts: number, { leaseMs, graceMs }: RunLeaseTimes = { leaseMs: 0, graceMs: 0 }, { due = false }: { due?: boolean } = {}): Promise<StartRunResult> {
    const reply = (await this.startScript(
      [keys.run(threadId, runId), keys.thread(threadId), keys.checkpointIds(threadId, '')],
      [nowIso(), maxAttempts, Math.ceil(leaseMs), Math.ceil(graceMs), due ? '1' : '0'],
    )) as string[];
    const [kind, value, third] = reply;
    switch (kind) {
      case 'started': {
        const hash: Record<string, string> = {};
        for (let i = 3; i + 1 < reply.length; i += 2) hash[reply[i] as string] = reply[i + 1] as string;
        const run = runFromHash(hash, this.json);
        // The script read the record it had just written: it cannot be gone.
        if (!run) throw new RunNotFoundError(`Run ${runId} not found on thread ${threadId}`);
        return { kind, attempt: Number(value), run, latest: third || null };
      }
      case 'check-due':
        return { kind };
      case 'terminal':
        return { kind, status: value as RunStatus, attempt: Number(third) };
      case 'cancelled':
        return { kind, action: value === 'rollback' ? 'rollback' : 'interrupt', attempt: Number(third) };
      case 'exhausted':
        return { kind, attempt: Number(value), failed: Number(third) };
      case 'held':
        return { kind, attempt: Number(value), waitMs: Number(third) };
      default:
        return { kind: 'missing' };
    }
  }

  async recordMessagesBefore(threadId: string, runId: string, count: number): Promise<void> {
    // Only a run that exists keeps it: HSETNX on a deleted run would leave a half record.
    await this.setOnceScript([keys.run(threadId, runId)], ['messages_before', String(count)]);
  }

  async renewLease({ threadId, runId, attempt }: RunFence, leaseMs: number): Promise<boolean> {
    return Number(await this.renewLeaseScript([keys.run(threadId, runId)], [String(attempt), Math.ceil(leaseMs)])) === 1;
  }

  async handBack({ threadId, runId, attempt }: RunFence): Promise<void> {
    await this.handBackScript([keys.run(threadId, runId)], [String(attempt)]);
  }

  async finish({ fence, status, threadStatus, values, interrupts, error, retentionSeconds }: FinishRun): Promise<string | null> {
    const { threadId, runId } = fence;
    const k = threadKeys(threadId, runId);
    const now = nowIso();
    const next = await this.finishScript(
      [k.run, k.thread, k.active, k.queue, k.runs, keys.runStream(threadId, runId)],
      [
        runId,
        status,
        threadStatus,
        now,
        values === undefined ? '' : JSON.stringify(values),
        interrupts === undefined ? '' : JSON.stringify(interrupts),
        String(fence.attempt),
        error === undefined ? '' : JSON.stringify(error),
        retentionSeconds,
        appendedChannel(this.redis, threadId, runId),
      ],
    );
    if (status === 'deleted') await this.redis.hdel(keys.runThreads(), runId);
    // The script set the thread's updated_at to `now`; XX: a thread deleted meanwhile is not put back in the index.
    await this.redis.zadd(keys.threadIndex(), 'XX', Date.parse(now), threadId);
    return typeof next === 'string' ? next : null;
  }

  async cancel(threadId: string, runId: string, action: 'interrupt' | 'rollback'): Promise<CancelRunResult> {
    const k = threadKeys(threadId, runId);
    const result = (await this.cancelScript([k.run, k.thread, k.active, k.queue, k.runs], [runId, action, nowIso()])) as CancelRunResult;
    if (result === 'cancelled' && action === 'rollback') await this.redis.hdel(keys.runThreads(), runId);
    return result;
  }

  active(threadId: string): Promise<string | null> {
    return this.redis.get(keys.activeRun(threadId));
  }

  async removeAll(threadId: string): Promise<string[]> {
    const ids = await this.redis.zrange(keys.threadRuns(threadId), 0, -1);
    // The thread's keys (one slot) in one pipeline; the global run → thread index after, on
    // its own (its slot is another): an index entry without a record is skipped by readers.
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.del(keys.run(threadId, id), keys.runStream(threadId, id));
    pipeline.del(keys.threadRuns(threadId), keys.activeRun(threadId), keys.runQueue(threadId));
    await pipeline.exec();
    if (ids.length > 0) await this.redis.hdel(keys.runThreads(), ...ids);
    return ids;
  }

  async expireAll(threadId: string, seconds: number): Promise<void> {
    const ids = await this.redis.zrange(keys.threadRuns(threadId), 0, -1);
    const pipeline = this.redis.pipeline();
    for (const id of ids) {
      pipeline.expire(keys.run(threadId, id), seconds);
      pipeline.expire(keys.runStream(threadId, id), seconds);
    }
    pipeline.expire(keys.threadRuns(threadId), seconds);
    pipeline.del(keys.activeRun(threadId), keys.runQueue(threadId));
    await pipeline.exec();
  }

  async remove(threadId: string, runId: string): Promise<void> {
    await this.redis
      .pipeline()
      .del(keys.run(threadId, runId), keys.runStream(threadId, runId))
      .zrem(keys.threadRuns(threadId), runId)
      .exec();
    // The global index on its own: another slot than the thread's (see keys.ts).
    await this.redis.hdel(keys.runThreads(), runId);
  }

  private async readMany(threadId: string, ids: string[]): Promise<StoredRun[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(keys.run(threadId, id));
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([, h]) => runFromHash(h as Record<string, string>, this.json)).filter((r): r is StoredRun => r !== null);
  }
}
