// Relays a run's event stream to an HTTP client: as SSE (stream, join stream) or as one JSON
// result after whitespace keep-alives (wait, join). WebSocket relaying is in runs.ws.ts.
import type { FastifyReply } from 'fastify';
import { frameEvent, openSse } from '../http/sse.js';
import type { StreamEntry } from '../store/run-stream.js';
import { CLIENT_QUEUE_BYTES, type RunFollow } from '../streams/run-follow.js';

export interface RelayDeps {
  follow: RunFollow;
  /** Cancels a run whose client went away, unless it has finished; true when it cancelled. */
  cancelIfRunning(threadId: string, runId: string): Promise<boolean>;
  heartbeatMs: number;
  /** Interval of the whitespace keep-alive on a JSON result. */
  keepAliveMs: number;
}

export interface RelayTarget {
  threadId: string;
  runId: string;
  /** Resume after this stream id (`0`/`-1`: from the start). */
  afterId: string;
  cancelOnDisconnect: boolean;
  headers: Record<string, string>;
}

/** About how many bytes of SSE frames go to a client in one write (one event, when that is larger). */
const CHUNK_BYTES = 64 * 1024;

interface Chunk {
  frames: Buffer;
  /** Index of the first entry after this chunk. */
  next: number;
}

// The hub hands the same batch to every client of a run: frame and encode it once for all. A
// batch is framed in chunks, each only when a client first reaches it, so a client whose socket
// is full stops at one chunk, and a batch nobody reads to its end is never framed whole.
const framedBatches = new WeakMap<readonly StreamEntry[], Chunk[]>();

function chunkOf(entries: readonly StreamEntry[], index: number): Chunk | undefined {
  let chunks = framedBatches.get(entries);
  if (!chunks) {
    chunks = [];
    framedBatches.set(entries, chunks);
  }
  while (chunks.length <= index) {
    let at = chunks[chunks.length - 1]?.next ?? 0;
    if (at >= entries.length) return undefined;
    let text = '';
    while (at < entries.length && (text === '' || text.length < CHUNK_BYTES)) {
      const e = entries[at] as StreamEntry;
      text += frameEvent(e.event, e.data, e.id);
      at += 1;
    }
    chunks.push({ frames: Buffer.from(text, 'utf8'), next: at });
  }
  return chunks[index];
}

export async function relaySse(reply: FastifyReply, deps: RelayDeps, target: RelayTarget): Promise<void> {
  const sse = openSse(reply, { headers: target.headers, heartbeatMs: deps.heartbeatMs });
  const closeConnection = deps.follow.connection('sse');
  let finished = false;
  const following = deps.follow.client(target.threadId, target.runId, target.afterId, 'sse', {
    onEntries: (entries) => {
      // Chunk by chunk, while less than CLIENT_QUEUE_BYTES wait for the client. Not until the
      // first write that returns false: writes are corked until the next tick, so that is only
      // "16 KiB written in this tick", and a fast reader would be paused after every chunk.
      let taken = 0;
      for (let i = 0; ; i++) {
        if (sse.closed) return entries.length;
        if (reply.raw.writableLength >= CLIENT_QUEUE_BYTES) {
          // A write since the last 'drain' returned false, so another 'drain' will come.
          reply.raw.once('drain', () => following.resume());
          return taken;
        }
        const chunk = chunkOf(entries, i);
        if (!chunk) return entries.length;
        sse.sendFrames(chunk.frames);
        taken = chunk.next;
      }
    },
    onDone: () => {
      finished = true;
      sse.end();
    },
  });
  await sse.done;
  closeConnection();
  following.stop();
  if (!finished && target.cancelOnDisconnect) await cancelIfRunning(reply, deps, target);
}

/**
 * The body a wait answers for a run that failed, from its `error` event data (JSON) and a reader
 * of the thread's values.
 */
export type FailedWaitAnswer = (error: string, threadValues: () => Promise<unknown>) => Promise<string>;

/** LangGraph's: the error under `__error__`. */
export const LANGGRAPH_FAILED_WAIT: FailedWaitAnswer = async (error) => `{"__error__":${error}}`;

export async function relayResult(
  reply: FastifyReply,
  deps: RelayDeps,
  target: Omit<RelayTarget, 'afterId'>,
  fallbackValues: () => Promise<unknown>,
  failed: FailedWaitAnswer = LANGGRAPH_FAILED_WAIT,
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
  const keepAlive = setInterval(() => raw.write('\n'), deps.keepAliveMs);
  keepAlive.unref();
  const waiter = deps.follow.settled(target.threadId, target.runId);
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
      if (target.cancelOnDisconnect) await cancelIfRunning(reply, deps, { ...target, afterId: '0' });
      return;
    }
    const threadValues = () =>
      fallbackValues().catch((err: unknown) => {
        // The run is over either way: answer with null values, and say why.
        reply.log.warn({ err, run_id: target.runId }, 'could not read the thread values for the wait answer');
        return null;
      });
    const body = result.error ? await failed(result.error, threadValues) : (result.values ?? JSON.stringify((await threadValues()) ?? null));
    raw.end(body);
  } finally {
    clearInterval(keepAlive);
    waiter.stop();
  }
}

async function cancelIfRunning(reply: FastifyReply, deps: RelayDeps, target: RelayTarget) {
  try {
    if (await deps.cancelIfRunning(target.threadId, target.runId)) {
      reply.log.info({ run_id: target.runId }, 'client disconnected: run cancelled');
    }
  } catch (err) {
    reply.log.warn({ err, run_id: target.runId }, 'cancel on disconnect failed');
  }
}
