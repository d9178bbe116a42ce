// The spec's wording over plain HTTP: SSE framing and headers, the `values`, `messages` and
// `end` events, the 422 for `tools`, wait's keep-alive and error shape, and a client that
// drops its stream mid-run and rejoins with the last id it saw.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { parseSse, userInput, type SseEvent } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { waitForMetric } from '../support/wait-for.js';

let stack: Stack;
let llm: ScriptedOpenAI;
beforeAll(async () => {
  llm = await startScriptedOpenAI();
  process.env.WARREN_TEST_OPENAI_URL = llm.url;
  stack = await startStack({
    config: { graphs: testGraphs('echo', 'chat', 'counter', 'blob') },
    heartbeatMs: 100,
    keepAliveMs: 50,
  });
});
afterAll(async () => {
  await stack?.close();
  await llm?.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${stack.apiUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });


/** Splits one HTTP/1.1 response off the front of `text`, decoding a chunked body. */
function nextResponse(text: string): { status: number; headers: string; body: string; rest: string } {
  const headEnd = text.indexOf('\r\n\r\n');
  const headers = text.slice(0, headEnd);
  const status = Number(headers.split(' ')[1]);
  let at = headEnd + 4;
  if (!/transfer-encoding: chunked/i.test(headers)) {
    const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? text.length - at);
    return { status, headers, body: text.slice(at, at + length), rest: text.slice(at + length) };
  }
  let body = '';
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at);
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    expect(Number.isNaN(size)).toBe(false);
    at = lineEnd + 2;
    if (size === 0) return { status, headers, body, rest: text.slice(text.indexOf('\r\n', at) + 2) };
    body += text.slice(at, at + size);
    expect(text.slice(at + size, at + size + 2)).toBe('\r\n');
    at += size + 2;
  }
}

const newThread = async () => ((await (await post('/threads', {})).json()) as { thread_id: string }).thread_id;

describe('runs over plain HTTP', () => {
  it('endpoint 3 answers SSE with values, messages and end, with the documented headers', async () => {
    llm.push({ content: 'Hello there friend' });
    const id = await newThread();
    const res = await post(`/threads/${id}/runs`, {
      assistant_id: 'chat',
      input: userInput('hi'),
      stream_mode: ['values', 'messages-tuple'],
      config: { recursion_limit: 10 },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const location = res.headers.get('location') ?? '';
    expect(res.headers.get('content-location')).toMatch(new RegExp(`^/threads/${id}/runs/[\\w-]+$`));
    expect(location).toBe(`${res.headers.get('content-location')}/stream`);
    const text = await res.text();
    // The first event is metadata; heartbeat comments (not events) may come before it while a
    // busy machine's worker picks the run up.
    expect(text.replace(/^(: heartbeat\n\n)+/, '')).toMatch(/^event: metadata\ndata: \{.*\}\nid: \d+-\d+\n\n/);
    const events = parseSse(text);
    const values = events.filter((e) => e.event === 'values').at(-1)?.data as { messages: { role: string; content: string }[] };
    expect(values.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hi'],
      ['assistant', 'Hello there friend'],
    ]);
    const chunk = events.find((e) => e.event === 'messages' && JSON.stringify(e.data).includes('Hello'))?.data as [{ content: string; role: string }];
    expect(chunk[0]).toMatchObject({ role: 'assistant' });
    expect(typeof chunk[0].content).toBe('string');
    expect(events.at(-1)).toMatchObject({ event: 'end', data: {} });
  });

  it('sends heartbeat comments while a run is quiet', async () => {
    const id = await newThread();
    const res = await post(`/threads/${id}/runs/stream`, {
      assistant_id: 'counter',
      input: { count: 0 },
      config: { configurable: { target: 3, tick_ms: 150 } },
    });
    const text = await res.text();
    expect(text).toContain(': heartbeat\n\n');
  });

  it('with Accept: application/json, endpoint 3 creates a background run', async () => {
    const id = await newThread();
    const res = await post(`/threads/${id}/runs`, { assistant_id: 'echo', input: userInput('x') }, { accept: 'application/json' });
    expect(res.status).toBe(200);
    const run = (await res.json()) as { run_id: string; status: string };
    expect(res.headers.get('content-location')).toBe(`/threads/${id}/runs/${run.run_id}`);
    const joined = await fetch(`${stack.apiUrl}/threads/${id}/runs/${run.run_id}/join`);
    expect(JSON.stringify(await joined.json())).toContain('echo: x');
  });

  it.each([['tools'], ['messages'], ['nonsense']])('refuses stream_mode %s with 422 {detail}', async (mode) => {
    const id = await newThread();
    for (const body of [{ stream_mode: [mode] }, { stream_mode: mode }]) {
      const res = await post(`/threads/${id}/runs/stream`, { assistant_id: 'echo', input: userInput('x'), ...body });
      expect(res.status).toBe(422);
      const { detail } = (await res.json()) as { detail: string };
      // The key, the value given and the values allowed.
      expect(detail).toMatch(/stream_mode/);
      expect(detail).toContain(`"${mode}"`);
      expect(detail).toContain('"messages-tuple"');
    }
  });

  it('refuses malformed bodies with 4xx {detail}, never 5xx', async () => {
    const id = await newThread();
    const raw = await fetch(`${stack.apiUrl}/threads/${id}/runs/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":' });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toHaveProperty('detail');
    const badLimit = await post(`/threads/${id}/runs/wait`, { assistant_id: 'echo', config: { recursion_limit: 0 } });
    expect(badLimit.status).toBe(422);
    const badLast = await fetch(`${stack.apiUrl}/threads/${id}/runs/00000000-0000-0000-0000-000000000000/stream`, {
      headers: { 'last-event-id': 'garbage' },
    });
    expect([400, 404]).toContain(badLast.status);
  });

  it('wait sends whitespace keep-alives, then the values; a failure is {"__error__": {error, message}}', async () => {
    const id = await newThread();
    const ok = await post(`/threads/${id}/runs/wait`, { assistant_id: 'counter', input: { count: 0 }, config: { configurable: { target: 3, tick_ms: 60 } } });
    const text = await ok.text();
    expect(text.startsWith('\n')).toBe(true);
    expect(JSON.parse(text)).toMatchObject({ count: 3 });
    const failed = await post(`/threads/${id}/runs/wait`, {
      assistant_id: 'counter',
      input: { count: 0 },
      config: { recursion_limit: 3, configurable: { target: 50 } },
    });
    const body = (await failed.json()) as { __error__: { error: string; message: string } };
    expect(body.__error__.error).toBe('GraphRecursionError');
    expect(body.__error__.message).toMatch(/recursion/i);
    // What an HTTP client sets, not the JavaScript option's name.
    expect(body.__error__.message).toContain('config.recursion_limit');
  });

  it('a client that drops mid-run and rejoins with its last id gets every later event exactly once', async () => {
    const id = await newThread();
    const res = await post(
      `/threads/${id}/runs/stream`,
      {
        assistant_id: 'counter',
        input: { count: 0 },
        stream_mode: ['custom', 'values'],
        on_disconnect: 'continue',
        config: { configurable: { target: 12, tick_ms: 40 } },
      },
      {},
    );
    const location = res.headers.get('location') as string;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const seen: SseEvent[] = [];
    while (seen.filter((e) => e.event === 'custom').length < 3) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended early');
      text += new TextDecoder().decode(value);
      const complete = text.slice(0, text.lastIndexOf('\n\n') + 2);
      seen.splice(0, seen.length, ...parseSse(complete));
    }
    await reader.cancel();
    const lastId = seen.at(-1)?.id as string;

    const rejoined = await fetch(`${stack.apiUrl}${location}`, { headers: { 'last-event-id': lastId } });
    const rest = parseSse(await rejoined.text());
    const all = [...seen, ...rest];
    const ids = all.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const counts = all.filter((e) => e.event === 'custom').map((e) => (e.data as { count: number }).count);
    expect(counts).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(all.at(-1)?.event).toBe('end');

    const full = parseSse(await (await fetch(`${stack.apiUrl}${location}`, { headers: { 'last-event-id': '-1' } })).text());
    expect(full.map((e) => e.id)).toEqual(ids);
  });

  it('a streaming client that disconnects cancels its run by default', async () => {
    const id = await newThread();
    const controller = new AbortController();
    const res = await fetch(`${stack.apiUrl}/threads/${id}/runs/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'counter', input: { count: 0 }, config: { configurable: { target: 500, tick_ms: 20 } } }),
      signal: controller.signal,
    });
    const runPath = res.headers.get('content-location') as string;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    const deadline = Date.now() + 20_000;
    let status = '';
    while (Date.now() < deadline) {
      status = ((await (await fetch(`${stack.apiUrl}${runPath}`)).json()) as { status: string }).status;
      if (status === 'interrupted') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe('interrupted');
  });

  // The body's framing on the wire, read from a raw socket against what fetch parsed: plain bytes
  // then close for an HTTP/1.0 client, and well-formed chunks for a stream request pipelined
  // behind another on one connection.
  describe('stream bodies on the wire', () => {
    const finishedRun = async () => {
      const threadId = await newThread();
      const res = await post(`/threads/${threadId}/runs/wait`, { assistant_id: 'echo', input: userInput('wire') });
      expect(res.status).toBe(200);
      const runs = (await (await fetch(`${stack.apiUrl}/threads/${threadId}/runs`)).json()) as { runs: { run_id: string }[] };
      const runId = runs.runs[0]?.run_id as string;
      const viaFetch = parseSse(await (await fetch(`${stack.apiUrl}/threads/${threadId}/runs/${runId}/stream`)).text());
      return { path: `${new URL(stack.apiUrl).pathname}/threads/${threadId}/runs/${runId}/stream`, expected: viaFetch };
    };

    /** Sends raw bytes and collects everything until the server closes the connection. */
    const exchange = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const { hostname, port } = new URL(stack.apiUrl);
        const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(request));
        let received = '';
        socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
        setTimeout(() => reject(new Error(`the server never closed the connection: ${received.slice(-200)}`)), 10_000).unref();
      });

    it('an HTTP/1.0 client gets plain SSE bytes, then the connection closes', async () => {
      const { path, expected } = await finishedRun();
      const raw = await exchange(`GET ${path} HTTP/1.0\r\nHost: x\r\n\r\n`);
      const headEnd = raw.indexOf('\r\n\r\n');
      const head = raw.slice(0, headEnd);
      const body = raw.slice(headEnd + 4);
      expect(head).toMatch(/^HTTP\/1\.[01] 200/);
      expect(head).not.toMatch(/transfer-encoding/i);
      expect(parseSse(Buffer.from(body, 'latin1').toString('utf8'))).toEqual(expected);
    });

    it('a stream request pipelined behind another gets well-formed chunks after the first answer, then the close it asked for', async () => {
      const { path, expected } = await finishedRun();
      const raw = await exchange(
        // The last request asks for the connection to close after its answer: the server must honour it.
        `GET ${path.replace(/\/runs\/.*$/, '')} HTTP/1.1\r\nHost: x\r\n\r\n` + `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      const first = nextResponse(raw);
      expect(first.status).toBe(200);
      expect(JSON.parse(first.body)).toHaveProperty('thread_id');
      const second = nextResponse(first.rest);
      expect(second.status).toBe(200);
      expect(second.headers).toMatch(/content-type: text\/event-stream/i);
      expect(parseSse(Buffer.from(second.body, 'latin1').toString('utf8'))).toEqual(expected);
      expect(second.rest).toBe('');
    });
  });

  it('a client that stops reading is paused rather than buffered for, and then gets every event once', async () => {
    const threadId = await newThread();
    // 3,000 events of 8 KiB: three catch-up batches, far more than the socket buffers hold.
    const res = await post(`/threads/${threadId}/runs/wait`, {
      assistant_id: 'blob',
      input: {},
      stream_mode: ['custom'],
      config: { configurable: { events: 3000, kib: 8 } },
    });
    expect(res.status).toBe(200);
    const runs = (await (await fetch(`${stack.apiUrl}/threads/${threadId}/runs`)).json()) as { runs: { run_id: string }[] };
    const path = `${new URL(stack.apiUrl).pathname}/threads/${threadId}/runs/${runs.runs[0]?.run_id}/stream`;

    const { hostname, port } = new URL(stack.apiUrl);
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    let received = '';
    await new Promise<void>((resolve) =>
      socket.once('data', (c: Buffer) => {
        received += c.toString('latin1');
        socket.pause();
        resolve();
      }),
    );
    // Not reading: the API stops taking events for this client instead of holding them all.
    await waitForMetric(stack.url, 'warren_stream_clients_waiting{transport="sse"}', 1);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
    socket.resume();
    await closed;
    const events = parseSse(Buffer.from(nextResponse(received).body, 'latin1').toString('utf8'));
    expect(events.filter((e) => e.event === 'custom').map((e) => (e.data as { i: number }).i)).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    expect(events.at(-1)?.event).toBe('end');
    await waitForMetric(stack.url, 'warren_stream_clients_waiting{transport="sse"}', 0);
  });
});
