// A small SSE client over node:http: it can bind a chosen loopback source address (so each
// simulated client counts as its own address at the proxy's rate limit) and resumes with
// Last-Event-ID after a dropped connection, as browsers and the LangGraph SDK do.
import http from 'node:http';
import { parseSse, type SseEvent } from './sse.js';

export interface SseRequest {
  url: string;
  method?: 'GET' | 'POST';
  body?: unknown;
  localAddress?: string;
  headers?: Record<string, string>;
}

export interface SseResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  /** True when the connection ended without the stream's `end` event. */
  dropped: boolean;
}

export function sseRequest(
  req: SseRequest,
  onEvent?: (e: SseEvent) => void,
  onStart?: (headers: http.IncomingHttpHeaders) => void,
): Promise<SseResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(req.url);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: req.method ?? (body ? 'POST' : 'GET'),
        ...(req.localAddress ? { localAddress: req.localAddress } : {}),
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...req.headers },
        agent: false,
      },
      (res) => {
        onStart?.(res.headers);
        const events: SseEvent[] = [];
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          const cut = buffer.lastIndexOf('\n\n');
          if (cut < 0) return;
          for (const event of parseSse(buffer.slice(0, cut + 2))) {
            events.push(event);
            onEvent?.(event);
          }
          buffer = buffer.slice(cut + 2);
        });
        const finish = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, events, dropped: events.at(-1)?.event !== 'end' });
        res.on('end', finish);
        res.on('error', finish);
        res.on('aborted', finish);
      },
    );
    request.on('error', (err) => reject(err));
    if (body) request.write(body);
    request.end();
  });
}

/**
 * Starts a run's stream and follows it to `end`, reconnecting to the `Location` with the last
 * id seen whenever the connection drops. Returns every event received, in order.
 */
export async function followRun(
  start: SseRequest,
  options: {
    base: string;
    maxReconnects?: number;
    onEvent?: (e: SseEvent) => void;
    /** Called with each (re)connection's response headers. */
    onStart?: (headers: http.IncomingHttpHeaders) => void;
  },
): Promise<{ events: SseEvent[]; reconnects: number; location: string }> {
  const first = await sseRequest(start, options.onEvent, options.onStart);
  if (first.status !== 200) throw new Error(`stream start answered ${first.status}`);
  const location = String(first.headers.location ?? '');
  const events = [...first.events];
  let reconnects = 0;
  let dropped = first.dropped;
  while (dropped) {
    if (reconnects >= (options.maxReconnects ?? 20)) throw new Error(`gave up after ${reconnects} reconnects`);
    reconnects += 1;
    await new Promise((r) => setTimeout(r, 200));
    try {
      const lastId = events.at(-1)?.id ?? '-1';
      const next = await sseRequest(
        { url: `${options.base}${location}`, ...(start.localAddress ? { localAddress: start.localAddress } : {}), headers: { 'last-event-id': lastId } },
        options.onEvent,
        options.onStart,
      );
      if (next.status !== 200) continue;
      events.push(...next.events);
      dropped = next.dropped;
    } catch {
      // connection refused while the proxy fails over: try again
    }
  }
  return { events, reconnects, location };
}
