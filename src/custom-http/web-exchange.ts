// Fastify ↔ WHATWG: a request as a `Request` a project's app can read, and a `Response` written
// back to the client. Bodies are streams both ways: nothing here reads a body into memory.
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Connection-level headers: they describe one hop, and the next hop sets its own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'content-length']);

export function webHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    // HTTP/2 pseudo-headers (`:path`) are no header a Request may carry.
    if (value === undefined || name.startsWith(':') || HOP_BY_HOP.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) out.append(name, one);
  }
  return out;
}

/** `headers` as Node's request headers (light-my-request's and Fastify's shape). */
export function nodeHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) if (!HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

export interface WebRequestParts {
  /** The path the app sees (LangGraph's, without Warren's prefix), with the query string. */
  pathAndQuery: string;
  /** A stream (the raw request), a string (a body Fastify already parsed, as sent again), or none. */
  body: Readable | string | null;
  signal: AbortSignal;
}

export function toWebRequest(request: FastifyRequest, parts: WebRequestParts): Request {
  const host = request.headers.host ?? 'localhost';
  const url = new URL(parts.pathAndQuery, `${request.protocol}://${host}`);
  const method = request.method;
  const body = method === 'GET' || method === 'HEAD' || parts.body === null ? null : typeof parts.body === 'string' ? parts.body : (Readable.toWeb(parts.body) as ReadableStream);
  const headers = webHeaders(request.headers);
  // A re-sent parsed body is JSON (the only type LangGraph's routes read), of its new length.
  if (typeof parts.body === 'string') headers.set('content-type', request.headers['content-type'] ?? 'application/json');
  // `duplex` is required by Node's fetch for a streamed body; TypeScript's DOM types lack it.
  const init: RequestInit & { duplex?: 'half' } = { method, headers, body, signal: parts.signal, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) };
  return new Request(url, init);
}

/** The path after `prefix`, with the query string: `/api/langgraph/threads?x=1` → `/threads?x=1`. */
export function pathUnder(url: string, prefix: string): string {
  if (prefix === '') return url;
  const rest = url.slice(prefix.length);
  return rest === '' || rest.startsWith('?') ? `/${rest}` : rest;
}

/** Writes `response` as the reply: status, headers (every Set-Cookie), and the body as it streams. */
export function sendWebResponse(reply: FastifyReply, response: Response): FastifyReply {
  void reply.code(response.status);
  const cookies = response.headers.getSetCookie();
  for (const [name, value] of response.headers) {
    if (HOP_BY_HOP.has(name) || name === 'set-cookie') continue;
    void reply.header(name, value);
  }
  if (cookies.length > 0) void reply.header('set-cookie', cookies);
  if (response.body === null) return reply.send();
  // Fastify pipes the stream with backpressure; a client that leaves destroys it, which cancels the app's body.
  return reply.send(Readable.fromWeb(response.body as NodeWebStream<Uint8Array>));
}
