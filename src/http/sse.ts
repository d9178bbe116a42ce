// Server-Sent Events framing, in one guarded place. `event` and `id` may hold no CR or LF;
// `data` is one line of JSON. A heartbeat comment keeps proxies from closing idle streams.
import type { FastifyReply } from 'fastify';
import { InternalInvariantError } from '../errors.js';

export interface SseStream {
  send(event: string, data: string, id?: string): boolean;
  /** Writes frames already built with frameEvent (one buffer shared by many clients). */
  sendFrames(frames: Buffer): boolean;
  comment(text: string): void;
  end(): void;
  readonly closed: boolean;
  /** Resolves when the client goes away or the stream is ended. */
  readonly done: Promise<void>;
}

const NEWLINE = /[\r\n]/;

export function frameEvent(event: string, data: string, id?: string): string {
  if (NEWLINE.test(event) || (id !== undefined && NEWLINE.test(id))) throw new InternalInvariantError('SSE event and id must be one line');
  // JSON.stringify never emits raw newlines, but guard anyway: split into data lines.
  const dataLines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join('');
  return `event: ${event}\n${dataLines}${id !== undefined ? `id: ${id}\n` : ''}\n`;
}

export function openSse(
  reply: FastifyReply,
  options: { headers?: Record<string, string>; heartbeatMs: number; status?: number },
): SseStream {
  reply.hijack();
  const raw = reply.raw;
  // Hijacked replies skip Fastify's onSend hooks, so carry over headers plugins already set (CORS).
  const inherited = reply.getHeaders() as Record<string, string>;
  raw.writeHead(options.status ?? 200, {
    ...inherited,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
    ...options.headers,
  });
  raw.flushHeaders?.();
  let closed = false;
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  // A client that is not reading has bytes waiting for it already: a heartbeat would only queue.
  const heartbeat = setInterval(() => {
    if (!raw.writableNeedDrain) write(': heartbeat\n\n');
  }, options.heartbeatMs);
  heartbeat.unref();
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    resolveDone();
  };
  raw.on('close', close);
  const write = (chunk: string | Buffer): boolean => {
    if (closed || raw.writableEnded || raw.destroyed) return false;
    return raw.write(chunk);
  };
  return {
    send: (event, data, id) => write(frameEvent(event, data, id)),
    sendFrames: (frames) => write(frames),
    comment: (text) => void write(`: ${text.replace(NEWLINE, ' ')}\n\n`),
    end() {
      if (!closed && !raw.writableEnded) raw.end();
      close();
    },
    get closed() {
      return closed;
    },
    done,
  };
}
