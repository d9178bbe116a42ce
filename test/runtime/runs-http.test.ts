// The spec's wording over plain HTTP: SSE framing and headers, the `values`, `messages` and
// `end` events, the 422 for `tools`, wait's keep-alive and error shape, and a client that
// drops its stream mid-run and rejoins with the last id it saw.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { parseSse, userInput, type SseEvent } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

let stack: Stack;
let llm: ScriptedOpenAI;
beforeAll(async () => {
  llm = await startScriptedOpenAI();
  process.env.WARREN_TEST_OPENAI_URL = llm.url;
  stack = await startStack({ config: { graphs: testGraphs('echo', 'chat', 'counter') }, heartbeatMs: 100, keepAliveMs: 50 });
});
afterAll(async () => {
  await stack?.close();
  await llm?.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${stack.apiUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

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
    expect(text).toMatch(/^event: metadata\ndata: \{.*\}\nid: \d+-\d+\n\n/);
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
      expect(((await res.json()) as { detail: string }).detail).toMatch(/stream_mode/);
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
});
