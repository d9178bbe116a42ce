// A lean SSE client for fan-out and idle connections, where one bench process holds up to
// thousands of streams: node:http with one socket each, and the receipt time taken once per
// network chunk before any parsing, so the client's own work adds as little as possible to the
// lag it measures. (Runs themselves are driven by the official SDK: see sdk-run.ts.)
import { request, type IncomingMessage } from 'node:http';

export interface SseEvent {
  event: string;
  data: string;
  id: string;
  /** performance.now() when the chunk holding the event arrived. */
  at: number;
  /** Date.now() at the same moment (to compare with epoch-ms stream ids). */
  wall: number;
}

export interface SseStream {
  /** Resolves with the HTTP status once the response headers are in. */
  readonly opened: Promise<number>;
  /** Resolves when the server ends the stream or the socket closes. */
  readonly closed: Promise<void>;
  events(): number;
  /** Headers received and not closed since. */
  isOpen(): boolean;
  close(): void;
}

function parseBlock(block: string, at: number, wall: number): SseEvent | null {
  let event = 'message';
  let data = '';
  let id = '';
  for (const line of block.split('\n')) {
    if (line.startsWith('data:')) data += (data ? '\n' : '') + line.slice(line[5] === ' ' ? 6 : 5);
    else if (line.startsWith('event:')) event = line.slice(line[6] === ' ' ? 7 : 6);
    else if (line.startsWith('id:')) id = line.slice(line[3] === ' ' ? 4 : 3);
  }
  return data || event !== 'message' ? { event, data, id, at, wall } : null;
}

export function openSse(url: string, headers: Record<string, string>, onEvent: (e: SseEvent) => void): SseStream {
  let count = 0;
  let open = false;
  let response: IncomingMessage | null = null;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const resolveClosed = () => {
    open = false;
    markClosed();
  };
  const opened = new Promise<number>((resolve, reject) => {
    const req = request(url, { method: 'GET', agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      response = res;
      open = res.statusCode === 200;
      resolve(res.statusCode ?? 0);
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const at = performance.now();
        const wall = Date.now();
        buffer += chunk.includes('\r') ? chunk.replace(/\r\n?/g, '\n') : chunk;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const parsed = parseBlock(buffer.slice(0, cut), at, wall);
          buffer = buffer.slice(cut + 2);
          if (parsed) {
            count++;
            onEvent(parsed);
          }
          cut = buffer.indexOf('\n\n');
        }
      });
      res.on('close', resolveClosed);
      res.on('error', resolveClosed);
    });
    req.on('error', (err) => {
      reject(err);
      resolveClosed();
    });
    req.end();
  });
  opened.catch(() => undefined);
  return {
    opened,
    closed,
    events: () => count,
    isOpen: () => open,
    close: () => {
      response?.destroy();
      resolveClosed();
    },
  };
}
