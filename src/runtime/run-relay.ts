// Relays a run's event stream to an HTTP client: as SSE (stream, join stream) or as one JSON
// result after whitespace keep-alives (wait, join). WebSocket relaying is in runs.ws.ts.
import type { FastifyReply } from 'fastify';
import { frameEvent, openSse } from '../http/sse.js';
import type { StreamEntry } from '../store/run-stream.js';
import type { RunsService } from './runs.service.js';
import type { RuntimeDeps } from './runtime-deps.js';

export interface RelayTarget {
  threadId: string;
  runId: string;
  /** Resume after this stream id (`0`/`-1`: from the start). */
  afterId: string;
  cancelOnDisconnect: boolean;
  headers: Record<string, string>;
}

// The hub hands the same batch to every client of a run: frame and encode it once for all.
const framedBatches = new WeakMap<readonly StreamEntry[], Buffer>();

function framesOf(entries: readonly StreamEntry[]): Buffer {
  let frames = framedBatches.get(entries);
  if (!frames) {
    frames = Buffer.from(entries.map((e) => frameEvent(e.event, e.data, e.id)).join(''), 'utf8');
    framedBatches.set(entries, frames);
  }
  return frames;
}

export async function relaySse(
  reply: FastifyReply,
  runs: RunsService,
  target: RelayTarget,
  heartbeatMs: number,
  metrics: RuntimeDeps['metrics'],
): Promise<void> {
  const sse = openSse(reply, { headers: target.headers, heartbeatMs });
  metrics.openConnections.add(1, { transport: 'sse' });
  let finished = false;
  const following = runs.followClient(target.threadId, target.runId, target.afterId, 'sse', {
    onEntries: (entries) => {
      if (sse.sendFrames(framesOf(entries)) || sse.closed) return true;
      reply.raw.once('drain', () => following.resume());
      return false;
    },
    onDone: () => {
      finished = true;
      sse.end();
    },
  });
  await sse.done;
  metrics.openConnections.add(-1, { transport: 'sse' });
  following.stop();
  if (!finished && target.cancelOnDisconnect) await cancelIfRunning(reply, runs, target);
}

export async function relayResult(
  reply: FastifyReply,
  runs: RunsService,
  target: Omit<RelayTarget, 'afterId'>,
  keepAliveMs: number,
  fallbackValues: () => Promise<unknown>,
): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
    ...target.headers,
  });
  const keepAlive = setInterval(() => raw.write('\n'), keepAliveMs);
  keepAlive.unref();
  const waiter = runs.settled(target.threadId, target.runId);
  let clientGone = false;
  raw.on('close', () => {
    if (raw.writableEnded) return;
    clientGone = true;
    waiter.stop();
    clearInterval(keepAlive);
  });
  try {
    const result = await Promise.race([
      waiter.done,
      new Promise<null>((resolve) => raw.once('close', () => resolve(null))),
    ]);
    if (!result || clientGone) {
      if (target.cancelOnDisconnect) await cancelIfRunning(reply, runs, { ...target, afterId: '0' });
      return;
    }
    const body = result.error
      ? `{"__error__":${result.error}}`
      : (result.values ??
        JSON.stringify(
          (await fallbackValues().catch((err: unknown) => {
            // The run is over either way: answer with null values, and say why.
            reply.log.warn({ err, run_id: target.runId }, 'could not read the thread values for the wait answer');
            return null;
          })) ?? null,
        ));
    raw.end(body);
  } finally {
    clearInterval(keepAlive);
    waiter.stop();
  }
}

async function cancelIfRunning(reply: FastifyReply, runs: RunsService, target: RelayTarget) {
  try {
    if (await runs.cancelIfRunning(target.threadId, target.runId)) {
      reply.log.info({ run_id: target.runId }, 'client disconnected: run cancelled');
    }
  } catch (err) {
    reply.log.warn({ err, run_id: target.runId }, 'cancel on disconnect failed');
  }
}
