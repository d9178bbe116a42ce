// What a run route does once its input is read: start a run and stream it (SSE) or wait for its
// result, cancel one, follow one. Both /api/langgraph's run routes (runs.routes.ts) and DeerFlow's
// gateway twins under /api (gateway/deerflow-runs.routes.ts) answer through these, so the two
// route tables differ only in paths, defaults and the headers that point back at the run.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Identity } from '../auth/identity.js';
import { isStreamCursor } from '../store/run-stream.js';
import type { CancelRunResult } from '../store/runs.js';
import type { RunFollow } from '../streams/run-follow.js';
import { relayResult, relaySse, type FailedWaitAnswer, type RelayDeps } from './run-relay.js';
import type { RuntimeSettings } from './runtime-deps.js';
import { StreamCursorInvalidError } from './runtime.errors.js';
import type { RunCancelMany, RunCreate } from './runs.schemas.js';
import type { CreatedRun, RunsService } from './runs.service.js';

export interface RunHandlerDeps {
  runs: RunsService;
  follow: RunFollow;
  settings: RuntimeSettings;
}

/** The headers that point a client at a run: `Content-Location` (the run), `Location` (its stream). */
export interface RunLocator {
  created(created: CreatedRun): Record<string, string>;
  existing(threadId: string, runId: string): Record<string, string>;
}

/** Where one route table's runs differ from another's: options, never a copy of the handlers. */
export interface RunProfile {
  locate: RunLocator;
  /** The run-create body as this table takes it (its defaults, its refusals); as sent when absent. */
  body?: (body: RunCreate) => RunCreate;
  /** What a wait answers for a failed run; LangGraph's `{__error__}` when absent. */
  failedWait?: FailedWaitAnswer;
}

/** /api/langgraph's: the paths admission names (a stateless run's is `/runs/{id}`). */
export const LANGGRAPH_PROFILE: RunProfile = {
  locate: {
    created: (created) => ({ 'Content-Location': created.contentLocation, Location: created.streamLocation }),
    existing: (threadId, runId) => ({ 'Content-Location': `/threads/${threadId}/runs/${runId}`, Location: `/threads/${threadId}/runs/${runId}/stream` }),
  },
};

/** How long cancelling a pending run waits for the worker that settles it (see `cancel`). */
const PENDING_CANCEL_WAIT_MS = 10_000;

/** `done`, or nothing after `ms`: the caller answers either way. */
async function settledWithin(done: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Cancels one run so that the answer is seen: a pending run that holds its thread (waiting out
 * `after_seconds`, or for a worker) is settled by the worker that takes it at once, and the answer
 * waits for that, so `GET /runs?status=interrupted` right after it finds the run. Bounded: with no
 * worker free, the cancel answers anyway and the run settles when one takes it. A run queued
 * behind another is settled by the cancel itself. `wait` waits for any run to settle.
 */
async function cancelVisibly(
  follow: RunFollow,
  target: { threadId: string; runId: string; pending: boolean },
  cancel: () => Promise<CancelRunResult>,
  wait: boolean,
): Promise<void> {
  const waiter = wait || target.pending ? follow.settled(target.threadId, target.runId) : null;
  try {
    const result = await cancel();
    if (wait) await waiter?.done;
    else if (waiter && result === 'signalled') await settledWithin(waiter.done, PENDING_CANCEL_WAIT_MS);
  } finally {
    waiter?.stop();
  }
}

const cancelsOnDisconnect = (body: RunCreate) => (body.on_disconnect ?? 'cancel') === 'cancel';

export function createRunHandlers(deps: RunHandlerDeps, profile: RunProfile) {
  const { runs, follow } = deps;
  const { locate, failedWait } = profile;
  const take = profile.body ?? ((body: RunCreate) => body);
  const relay: RelayDeps = {
    follow,
    cancelIfRunning: (threadId, runId) => runs.cancelIfRunning(threadId, runId),
    heartbeatMs: deps.settings.heartbeatMs,
    keepAliveMs: deps.settings.keepAliveMs,
  };

  /** Follows an existing run as SSE from the start, or after a `Last-Event-ID` of its stream. */
  const followStream = async (req: FastifyRequest, reply: FastifyReply, threadId: string, runId: string, cancelOnDisconnect: boolean) => {
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string' && lastEventId !== '' && !isStreamCursor(lastEventId)) {
      throw new StreamCursorInvalidError(`Last-Event-ID "${lastEventId.slice(0, 64)}" is not an event id of this stream`);
    }
    await relaySse(reply, relay, {
      threadId,
      runId,
      afterId: typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : '0',
      cancelOnDisconnect,
      headers: locate.existing(threadId, runId),
    });
  };

  return {
    /** Creates a run in the background: the caller answers with the record. */
    async create(identity: Identity, reply: FastifyReply, threadId: string | null, sent: RunCreate): Promise<CreatedRun> {
      const created = await runs.create(threadId, take(sent), identity);
      void reply.headers(locate.created(created));
      return created;
    },

    /** Creates a run and streams it as SSE. */
    async streamNew(req: FastifyRequest, reply: FastifyReply, threadId: string | null, sent: RunCreate): Promise<void> {
      const body = take(sent);
      const created = await runs.create(threadId, body, req.identity);
      await relaySse(reply, relay, {
        threadId: created.run.thread_id,
        runId: created.run.run_id,
        afterId: '0',
        cancelOnDisconnect: cancelsOnDisconnect(body),
        headers: locate.created(created),
      });
    },

    /** Creates a run and answers with the thread's values when it ends. */
    async waitNew(req: FastifyRequest, reply: FastifyReply, threadId: string | null, sent: RunCreate): Promise<void> {
      const body = take(sent);
      const created = await runs.create(threadId, { ...body, stream_mode: body.stream_mode ?? ['values'] }, req.identity);
      const tid = created.run.thread_id;
      const { Location: _stream, ...headers } = locate.created(created);
      const target = { threadId: tid, runId: created.run.run_id, cancelOnDisconnect: cancelsOnDisconnect(body), headers };
      await relayResult(reply, relay, target, () => runs.threadValues(tid), failedWait);
    },

    /**
     * Cancels a run; answers 204 after it settled when asked to wait, else 202. A pending run that
     * holds its thread (waiting out `after_seconds`, or for a worker) is settled by the worker that
     * takes it at once: the answer waits for that, so that a cancel that answers is seen (`GET
     * /runs?status=interrupted` right after it finds the run). Bounded: with no worker free, the
     * cancel answers anyway and the run settles when one takes it. A run queued behind another
     * is settled by the cancel itself.
     */
    async cancel(threadId: string, runId: string, action: 'interrupt' | 'rollback', wait: boolean): Promise<202 | 204> {
      const before = await runs.get(threadId, runId);
      await cancelVisibly(follow, { threadId, runId, pending: before.status === 'pending' }, () => runs.cancel(threadId, runId, action), wait);
      return wait ? 204 : 202;
    },

    /** Bulk cancel: as a single cancel, once this answers every pending run it named shows as cancelled. */
    async cancelMany(body: RunCancelMany, caller: Identity, action: 'interrupt' | 'rollback'): Promise<void> {
      const targets = await runs.cancelTargets(body, caller);
      await Promise.all(targets.map((target) => cancelVisibly(follow, target, () => runs.stop(target.threadId, target.runId, action), false)));
    },

    /** Follows an existing run as SSE (a run of another thread, or none, is a 404). */
    async joinStream(req: FastifyRequest, reply: FastifyReply, threadId: string, runId: string, cancelOnDisconnect: boolean): Promise<void> {
      await runs.get(threadId, runId);
      await followStream(req, reply, threadId, runId, cancelOnDisconnect);
    },

    /** Waits for an existing run and answers with the thread's values. */
    async joinResult(reply: FastifyReply, threadId: string, runId: string, cancelOnDisconnect: boolean): Promise<void> {
      await runs.get(threadId, runId);
      await relayResult(reply, relay, { threadId, runId, cancelOnDisconnect, headers: {} }, () => runs.threadValues(threadId), failedWait);
    },
  };
}

export type RunHandlers = ReturnType<typeof createRunHandlers>;
