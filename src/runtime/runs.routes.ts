// /api/langgraph runs: create (SSE, background or wait), list, get, cancel, join, join stream,
// delete; the stateless /runs/stream, /runs/wait and /runs/batch; and bulk /runs/cancel.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorResponses, noContentResponses, RunParamsSchema, ThreadParamsSchema } from './common.schemas.js';
import type { RunFollow } from '../streams/run-follow.js';
import { relayResult, relaySse, type RelayDeps } from './run-relay.js';
import {
  CancelManyQuerySchema,
  CancelQuerySchema,
  isTrue,
  JoinQuerySchema,
  RunBatchResultSchema,
  RunBatchSchema,
  RunCancelManySchema,
  RunCreateSchema,
  RunListQuerySchema,
  RunListSchema,
  RunSchema,
  StatelessRunParamsSchema,
  type RunCreate,
} from './runs.schemas.js';
import type { CreatedRun, RunsService } from './runs.service.js';
import type { RuntimeSettings } from './runtime-deps.js';
import { isStreamCursor } from '../store/run-stream.js';
import { publicRun, type CancelRunResult } from '../store/runs.js';
import { StreamCursorInvalidError } from './runtime.errors.js';

const tags = ['runs'];

/** How long cancelling a pending run waits for the worker that settles it (see the cancel route). */
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

const sseResponse = { 200: { description: 'Server-Sent Events: metadata, one event per chunk, end.', type: 'string' as const }, ...errorResponses };

const wantsJson = (req: FastifyRequest) => {
  const accept = req.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/event-stream');
};

export interface RunRoutesDeps {
  runs: RunsService;
  follow: RunFollow;
  settings: RuntimeSettings;
}

export async function runRoutes(app: FastifyInstance, deps: RunRoutesDeps): Promise<void> {
  const { runs, follow } = deps;
  const relay: RelayDeps = {
    follow,
    cancelIfRunning: (threadId, runId) => runs.cancelIfRunning(threadId, runId),
    heartbeatMs: deps.settings.heartbeatMs,
    keepAliveMs: deps.settings.keepAliveMs,
  };
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  const locationHeaders = (created: Pick<CreatedRun, 'contentLocation' | 'streamLocation'>) => ({
    'Content-Location': created.contentLocation,
    Location: created.streamLocation,
  });

  const streamNew = async (req: FastifyRequest, reply: FastifyReply, threadId: string | null, body: RunCreate) => {
    const created = await runs.create(threadId, body, req.identity);
    await relaySse(reply, relay, {
      threadId: created.run.thread_id,
      runId: created.run.run_id,
      afterId: '0',
      cancelOnDisconnect: (body.on_disconnect ?? 'cancel') === 'cancel',
      headers: locationHeaders(created),
    });
  };

  const waitNew = async (req: FastifyRequest, reply: FastifyReply, threadId: string | null, body: RunCreate) => {
    const created = await runs.create(threadId, { ...body, stream_mode: body.stream_mode ?? ['values'] }, req.identity);
    const tid = created.run.thread_id;
    await relayResult(
      reply,
      relay,
      {
        threadId: tid,
        runId: created.run.run_id,
        cancelOnDisconnect: (body.on_disconnect ?? 'cancel') === 'cancel',
        headers: { 'Content-Location': created.contentLocation },
      },
      () => runs.threadValues(tid),
    );
  };

  // Endpoint 3: SSE as the spec says; with `Accept: application/json`, a background run.
  r.post(
    '/threads/:thread_id/runs',
    { schema: { tags, params: ThreadParamsSchema, body: RunCreateSchema, response: { ...sseResponse, 200: RunSchema } } },
    async (req, reply) => {
      if (!wantsJson(req)) return streamNew(req, reply, req.params.thread_id, req.body);
      const created = await runs.create(req.params.thread_id, req.body, req.identity);
      void reply.headers(locationHeaders(created));
      return publicRun(created.run);
    },
  );

  // Endpoint 5. The WebSocket on the same path is registered in runs.ws.ts.
  r.post(
    '/threads/:thread_id/runs/stream',
    { schema: { tags, params: ThreadParamsSchema, body: RunCreateSchema, response: sseResponse } },
    (req, reply) => streamNew(req, reply, req.params.thread_id, req.body),
  );

  r.post(
    '/threads/:thread_id/runs/wait',
    { schema: { tags, params: ThreadParamsSchema, body: RunCreateSchema, response: errorResponses } },
    (req, reply) => waitNew(req, reply, req.params.thread_id, req.body),
  );

  r.post('/runs/stream', { schema: { tags, body: RunCreateSchema, response: sseResponse } }, (req, reply) =>
    streamNew(req, reply, null, req.body),
  );

  r.post('/runs/wait', { schema: { tags, body: RunCreateSchema, response: errorResponses } }, (req, reply) =>
    waitNew(req, reply, null, req.body),
  );

  r.post('/runs', { schema: { tags, body: RunCreateSchema, response: { 200: RunSchema, ...errorResponses } } }, async (req, reply) => {
    const created = await runs.create(null, req.body, req.identity);
    void reply.headers(locationHeaders(created));
    return publicRun(created.run);
  });

  r.post('/runs/batch', { schema: { tags, body: RunBatchSchema, response: { 200: RunBatchResultSchema, ...errorResponses } } }, async (req) =>
    (await runs.createBatch(req.body, req.identity)).map(publicRun),
  );

  // Bulk cancel, LangGraph's shape: `{thread_id, run_ids}` or `{status}`, `?action=` as for one run.
  r.post(
    '/runs/cancel',
    { schema: { tags, body: RunCancelManySchema, querystring: CancelManyQuerySchema, response: { ...noContentResponses, ...errorResponses } } },
    async (req, reply) => {
      const targets = await runs.cancelTargets(req.body, req.identity);
      // As a single cancel: once this answers, every pending run it named shows as cancelled.
      await Promise.all(targets.map((target) => cancelVisibly(follow, target, () => runs.stop(target.threadId, target.runId, req.query.action), false)));
      return reply.code(204).send(null);
    },
  );

  r.get(
    '/threads/:thread_id/runs',
    { schema: { tags, params: ThreadParamsSchema, querystring: RunListQuerySchema, response: { 200: RunListSchema, ...errorResponses } } },
    async (req) => ({ runs: await runs.list(req.params.thread_id, req.query) }),
  );

  r.get('/threads/:thread_id/runs/:run_id', { schema: { tags, params: RunParamsSchema, response: { 200: RunSchema, ...errorResponses } } }, (req) =>
    runs.get(req.params.thread_id, req.params.run_id),
  );

  r.delete('/threads/:thread_id/runs/:run_id', { schema: { tags, params: RunParamsSchema, response: { ...noContentResponses, ...errorResponses } } }, async (req, reply) => {
    await runs.remove(req.params.thread_id, req.params.run_id);
    return reply.code(204).send(null);
  });

  r.post(
    '/threads/:thread_id/runs/:run_id/cancel',
    { schema: { tags, params: RunParamsSchema, querystring: CancelQuerySchema, response: { ...noContentResponses, ...errorResponses } } },
    async (req, reply) => {
      const { thread_id: threadId, run_id: runId } = req.params;
      const before = await runs.get(threadId, runId);
      const wait = isTrue(req.query.wait);
      await cancelVisibly(follow, { threadId, runId, pending: before.status === 'pending' }, () => runs.cancel(threadId, runId, req.query.action), wait);
      return reply.code(wait ? 204 : 202).send(null);
    },
  );

  r.get(
    '/threads/:thread_id/runs/:run_id/join',
    { schema: { tags, params: RunParamsSchema, querystring: JoinQuerySchema, response: errorResponses } },
    async (req, reply) => {
      const { thread_id: threadId, run_id: runId } = req.params;
      await runs.get(threadId, runId);
      await relayResult(reply, relay, { threadId, runId, cancelOnDisconnect: isTrue(req.query.cancel_on_disconnect), headers: {} }, () =>
        runs.threadValues(threadId),
      );
    },
  );

  const joinStream = async (req: FastifyRequest, reply: FastifyReply, threadId: string, runId: string, cancelFlag?: boolean | string) => {
    await runs.get(threadId, runId);
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string' && lastEventId !== '' && !isStreamCursor(lastEventId)) {
      throw new StreamCursorInvalidError(`Last-Event-ID "${lastEventId.slice(0, 64)}" is not an event id of this stream`);
    }
    await relaySse(reply, relay, {
      threadId,
      runId,
      afterId: typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : '0',
      cancelOnDisconnect: isTrue(cancelFlag),
      headers: { 'Content-Location': `/threads/${threadId}/runs/${runId}`, Location: `/threads/${threadId}/runs/${runId}/stream` },
    });
  };

  r.get(
    '/threads/:thread_id/runs/:run_id/stream',
    { schema: { tags, params: RunParamsSchema, querystring: JoinQuerySchema, response: sseResponse } },
    (req, reply) => joinStream(req, reply, req.params.thread_id, req.params.run_id, req.query.cancel_on_disconnect),
  );

  r.get(
    '/runs/:run_id/stream',
    { schema: { tags, params: StatelessRunParamsSchema, querystring: JoinQuerySchema, response: sseResponse } },
    async (req, reply) => joinStream(req, reply, await runs.threadOf(req.params.run_id), req.params.run_id, req.query.cancel_on_disconnect),
  );
}
