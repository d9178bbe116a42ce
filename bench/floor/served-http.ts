// The HTTP side the served floors share: a bare node:http server answering the calls the bench's
// client makes (`threads.create`, then `runs.stream`; for fan-out, a background run and joining
// its stream) and nothing else. No framework, no validation, no auth: the least an HTTP server
// can do for the LangGraph SDK.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { BaseMessage } from '@langchain/core/messages';

/** What the client sent to start a run: its input and config (`configurable.gated` picks the bench's gated model). */
export interface RunBody {
  input?: unknown;
  config?: { configurable?: Record<string, unknown> };
}

/** Streams one run to `res` as SSE; the head is written already. */
export type StreamRun = (threadId: string, runId: string, body: RunBody, res: ServerResponse) => Promise<void>;

/** What a floor answers beyond `threads.create` and `runs.stream`: a run started in the background, and joining its stream. */
export interface BackgroundRuns {
  start(threadId: string, runId: string, body: RunBody): Promise<void>;
  /** Streams the run from its first event (the bench joins with `Last-Event-ID: -1`); the head is written already. */
  join(runId: string, res: ServerResponse): Promise<void>;
}

/** A message as LangGraph servers put it on the wire: its fields and its type, not LangChain's constructor form. */
function wire(value: unknown): unknown {
  if (value instanceof BaseMessage) return { ...value.toDict().data, type: value.getType() };
  if (Array.isArray(value)) return value.map(wire);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wire(v)]));
  return value;
}

/** A graph chunk as the JSON of one SSE event. */
export const wireJson = (chunk: unknown): string => JSON.stringify(wire(chunk));

export const sseEvent = (event: string, data: string, id?: string): string => `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${data}\n\n`;

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function createThread(res: ServerResponse): void {
  const now = new Date().toISOString();
  json(res, 200, { thread_id: randomUUID(), created_at: now, updated_at: now, metadata: {}, status: 'idle', values: null, interrupts: {} });
}

const SSE_HEAD = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

async function streamNewRun(threadId: string, body: RunBody, res: ServerResponse, streamRun: StreamRun): Promise<void> {
  const runId = randomUUID();
  res.writeHead(200, { ...SSE_HEAD, 'content-location': `/threads/${threadId}/runs/${runId}` });
  res.write(sseEvent('metadata', JSON.stringify({ run_id: runId, attempt: 1 })));
  await streamRun(threadId, runId, body, res);
}

async function startBackgroundRun(threadId: string, body: RunBody, res: ServerResponse, runs: BackgroundRuns): Promise<void> {
  const runId = randomUUID();
  await runs.start(threadId, runId, body);
  const now = new Date().toISOString();
  json(res, 200, { run_id: runId, thread_id: threadId, assistant_id: 'chat', status: 'pending', created_at: now, updated_at: now, metadata: {}, multitask_strategy: 'enqueue', kwargs: {} });
}

async function joinRun(runId: string, res: ServerResponse, runs: BackgroundRuns): Promise<void> {
  res.writeHead(200, SSE_HEAD);
  await runs.join(runId, res);
}

type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void> | null;

function routes(streamRun: StreamRun, runs: BackgroundRuns | null): Route[] {
  const match = (method: string, pattern: RegExp, handle: (m: RegExpExecArray, req: IncomingMessage, res: ServerResponse) => Promise<void>): Route => (req, res) => {
    const m = req.method === method ? pattern.exec(req.url ?? '') : null;
    return m ? handle(m, req, res) : null;
  };
  const table: Route[] = [
    match('POST', /^\/threads$/, (_m, req, res) => body(req).then(() => createThread(res))),
    match('POST', /^\/threads\/([^/]+)\/runs\/stream$/, (m, req, res) => body(req).then((b) => streamNewRun(m[1] as string, b as RunBody, res, streamRun))),
  ];
  if (runs) {
    table.push(
      match('POST', /^\/threads\/([^/]+)\/runs$/, (m, req, res) => body(req).then((b) => startBackgroundRun(m[1] as string, b as RunBody, res, runs))),
      match('GET', /^\/threads\/[^/]+\/runs\/([^/]+)\/stream$/, (m, _req, res) => joinRun(m[1] as string, res, runs)),
    );
  }
  return table;
}

/** Listens on 127.0.0.1:`port`, tells the parent (IPC) once it does, and stops on SIGTERM. */
export function serveBenchCalls(port: number, streamRun: StreamRun, runs: BackgroundRuns | null = null, onStop: () => Promise<void> = async () => {}): void {
  const table = routes(streamRun, runs);
  const server = createServer((req, res) => {
    let handled: Promise<void> | null = null;
    for (const route of table) if ((handled = route(req, res))) break;
    handled ??= Promise.resolve(json(res, 404, { detail: `a served floor answers only the bench's calls, not ${req.method} ${req.url}` }));
    handled.catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { detail: String(err) });
      else res.end(sseEvent('error', JSON.stringify({ message: String(err) })));
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1', () => process.send?.({ ready: port }));
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void onStop().finally(() => process.exit(0)));
  });
}
