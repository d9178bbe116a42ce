// Slow and stalled clients (issue 7): a request that trickles in (slow-loris headers or body)
// is cut with 408 at the request timeout, a client that stops reading is dropped at the idle
// timeout, and the server stays up throughout. Long streams, waits and WebSockets, which send
// heartbeats, outlive both limits. The limits are shortened here: 1 s and 1.5 s.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_TIMEOUTS } from '../../src/app.js';
import { collect, userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const REQUEST_MS = 1000;
const IDLE_MS = 1500;
let stack: Stack;
let port: number;

beforeAll(async () => {
  // A wait's keep-alive newline comes as often as a stream's heartbeat: at its default of 1 s, a
  // loaded machine that delays one by half a second lets the shortened idle limit close the wait.
  stack = await startStack({ config: { graphs: testGraphs('counter') }, heartbeatMs: 200, keepAliveMs: 200, timeouts: { requestMs: REQUEST_MS, idleMs: IDLE_MS } });
  port = Number(new URL(stack.url).port);
});
afterAll(async () => stack?.close());

interface Outcome {
  /** What the server sent before it closed the connection. */
  text: string;
  /** From the first byte written to the server closing the connection. */
  ms: number;
}

/** Writes `head`, then one byte of `trickle` every `everyMs`, until the server hangs up. */
function slowClient(head: string, trickle: string, everyMs = 100): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const socket: Socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      let i = 0;
      timer = setInterval(() => {
        if (!socket.writable) return;
        socket.write(trickle[i % trickle.length] ?? 'x');
        i += 1;
      }, everyMs);
    });
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    // A write racing the server's close may fail with EPIPE/ECONNRESET: the outcome is the same.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, ms: Date.now() - started });
    });
    setTimeout(() => reject(new Error('the server never cut the slow client')), 15_000).unref();
  });
}

/** Endpoint 3 answers SSE unless the client asks for JSON, as LangGraph's runs.create expects. */
const jsonClient = () => new Client({ apiUrl: stack.apiUrl, defaultHeaders: { Accept: 'application/json' } });
const ok = async () => (await fetch(`${stack.url}/ok`)).status;

describe('slow-loris', () => {
  it('has a request timeout by default, and an idle timeout longer than any heartbeat', () => {
    expect(DEFAULT_HTTP_TIMEOUTS.requestMs).toBe(120_000);
    expect(DEFAULT_HTTP_TIMEOUTS.idleMs).toBeGreaterThan(60_000);
  });

  it('cuts an upload whose body trickles in with 408, keeps nothing of it, and stays up', async () => {
    const id = randomUUID();
    const boundary = 'slowloris';
    const head =
      `POST /api/threads/${id}/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 1000000\r\n\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const outcome = await slowClient(head, 'abcdefgh');
    expect(outcome.text).toMatch(/^HTTP\/1\.1 408 /);
    // Not before the limit; how soon after depends on the machine's load (the client's own 15 s
    // deadline catches a server that never cuts it).
    expect(outcome.ms).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(await ok()).toBe(200);
    const uploads = path.join(stack.home, 'threads', id, 'user-data', 'uploads');
    // The upload's clean-up runs after the socket is gone.
    await waitFor(async () => !existsSync(uploads) || readdirSync(uploads).length === 0, 'the cut upload to leave nothing behind');
  });

  it('cuts a JSON body that trickles in, and headers that trickle in', async () => {
    const json = await slowClient(
      'POST /api/langgraph/threads HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"metadata":{"a":"',
      'xyz',
    );
    expect(json.text).toMatch(/^HTTP\/1\.1 408 /);
    const headers = await slowClient('GET /api/models HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n'.repeat(50));
    expect(headers.text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('drops a connection that never sends a request', async () => {
    // Cut at all is the point: slowClient fails if the server keeps it past its own deadline.
    await expect(slowClient('', '', 60_000)).resolves.toBeDefined();
  });

  it('survives fifty slow clients at once, answering others meanwhile', async () => {
    const head = `POST /api/langgraph/threads HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`;
    const clients = Array.from({ length: 50 }, () => slowClient(head, ' ', 200));
    const during: number[] = [];
    for (let i = 0; i < 5; i++) {
      during.push(await ok());
      await new Promise((r) => setTimeout(r, 100));
    }
    const outcomes = await Promise.all(clients);
    expect(during).toEqual([200, 200, 200, 200, 200]);
    for (const outcome of outcomes) expect(outcome.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(await ok()).toBe(200);
  });

  it('drops a client that stops reading a large download', async () => {
    const id = randomUUID();
    const dir = path.join(stack.home, 'threads', id, 'user-data', 'outputs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'big.bin'), '');
    truncateSync(path.join(dir, 'big.bin'), 256 * 1024 * 1024);
    // The server's end of the connection: its close is what the idle limit must bring about.
    const serverSide = new Promise<Socket>((resolve) => stack.api.app.server.once('connection', resolve));
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET /api/threads/${id}/artifacts/mnt/user-data/outputs/big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
    socket.on('error', () => undefined);
    // Read nothing: the kernel buffers fill, and the server's socket goes quiet.
    socket.pause();
    const server = await serverSide;
    const started = Date.now();
    const closedAfter = await new Promise<number>((resolve, reject) => {
      server.once('close', () => resolve(Date.now() - started));
      setTimeout(() => reject(new Error('the server kept the stalled download open')), IDLE_MS * 4).unref();
    });
    expect(closedAfter).toBeGreaterThanOrEqual(IDLE_MS - 100);
    socket.destroy();
    expect(await ok()).toBe(200);
  });
});

// Side by side, so the suite waits for the slowest only.
describe.concurrent('long-lived responses outlive both limits', () => {
  // 6 steps of 450 ms: about 2.7 s, well past the 1 s request and 1.5 s idle limits.
  const slowRun = { input: userInput('count'), config: { configurable: { target: 6, tick_ms: 450 } } };

  it('streams a 2.7-second run over SSE to its end', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const started = Date.now();
    const events = await collect(stack.client.runs.stream(id, 'counter', { ...slowRun, streamMode: ['custom'] }));
    expect(Date.now() - started).toBeGreaterThan(2500);
    expect(events.filter((e) => e.event === 'custom')).toHaveLength(6);
    expect(events.at(-1)?.event).toBe('end');
  });

  it('answers a 2.7-second wait', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const values = (await stack.client.runs.wait(id, 'counter', slowRun)) as { count: number };
    expect(values.count).toBe(6);
  });

  it('keeps a joined SSE stream open through a quiet stretch on heartbeats alone', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    // One step of 2.7 s: nothing but heartbeats for longer than the idle limit.
    const run = await jsonClient().runs.create(id, 'counter', { input: userInput('quiet'), config: { configurable: { target: 1, tick_ms: 2700 } } });
    const events = await collect(stack.client.runs.joinStream(id, run.run_id));
    expect(events.at(-1)?.event).toBe('end');
    expect((await stack.client.runs.get(id, run.run_id)).status).toBe('success');
  });

  it('keeps a 2.7-second WebSocket run open to its end', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const ws = new WebSocket(`${stack.url.replace('http', 'ws')}/api/langgraph/threads/${id}/runs/stream`);
    const seen: string[] = [];
    const code = await new Promise<number>((resolve, reject) => {
      ws.onopen = () => ws.send(JSON.stringify({ assistant_id: 'counter', ...slowRun, stream_mode: ['custom'] }));
      ws.onmessage = (msg) => seen.push((JSON.parse(String(msg.data)) as { event: string }).event);
      ws.onclose = (close) => resolve(close.code);
      ws.onerror = () => reject(new Error('websocket error'));
    });
    expect(code).toBe(1000);
    expect(seen.filter((e) => e === 'custom')).toHaveLength(6);
    expect(seen.at(-1)).toBe('end');
  });
});
