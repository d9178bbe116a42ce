// The WebSocket on the path of endpoint 5: run, cancel, resume, and bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('echo', 'counter') } });
});
afterAll(async () => stack?.close());

interface WsEvent {
  event: string;
  data: unknown;
  id?: string;
}

/** Opens a socket, sends `first`, and gathers messages until the server closes it. */
function session(threadId: string, first: unknown, onEvent?: (e: WsEvent, ws: WebSocket) => void) {
  const ws = new WebSocket(`${stack.url.replace('http', 'ws')}/api/langgraph/threads/${threadId}/runs/stream`);
  const events: WsEvent[] = [];
  const closed = new Promise<{ code: number; events: WsEvent[] }>((resolve, reject) => {
    ws.onopen = () => ws.send(JSON.stringify(first));
    ws.onmessage = (msg) => {
      const event = JSON.parse(String(msg.data)) as WsEvent;
      events.push(event);
      onEvent?.(event, ws);
    };
    ws.onclose = (close) => resolve({ code: close.code, events });
    ws.onerror = () => reject(new Error('websocket error'));
  });
  return { ws, closed };
}

const newThread = async () => (await stack.client.threads.create()).thread_id;

describe('WebSocket runs', () => {
  it('runs: the first message is the run input; events arrive as {event, data, id}; close 1000 after end', async () => {
    const id = await newThread();
    const { code, events } = await session(id, { assistant_id: 'echo', input: userInput('ws'), stream_mode: ['values'] }).closed;
    expect(code).toBe(1000);
    expect(events.map((e) => e.event)).toEqual(['metadata', 'values', 'values', 'end']);
    expect(events.every((e) => typeof e.id === 'string')).toBe(true);
    expect(JSON.stringify(events[2]?.data)).toContain('echo: ws');
  });

  it('cancels on {"action":"cancel"}', async () => {
    const id = await newThread();
    let sent = false;
    const { code, events } = await session(
      id,
      { assistant_id: 'counter', input: { count: 0 }, stream_mode: ['custom'], config: { configurable: { target: 500, tick_ms: 20 } } },
      (event, ws) => {
        if (event.event === 'custom' && !sent) {
          sent = true;
          ws.send(JSON.stringify({ action: 'cancel' }));
        }
      },
    ).closed;
    expect(code).toBe(1000);
    const runId = (events[0]?.data as { run_id: string }).run_id;
    expect((await stack.client.runs.get(id, runId)).status).toBe('interrupted');
    expect(events.filter((e) => e.event === 'custom').length).toBeLessThan(500);
  });

  it('resumes on a new connection with {"action":"join", run_id, last_event_id}', async () => {
    const id = await newThread();
    const first = session(
      id,
      {
        assistant_id: 'counter',
        input: { count: 0 },
        stream_mode: ['custom'],
        on_disconnect: 'continue',
        config: { configurable: { target: 10, tick_ms: 30 } },
      },
      (event, ws) => {
        if (event.event === 'custom' && (event.data as { count: number }).count === 3) ws.close();
      },
    );
    const { events: before } = await first.closed;
    const runId = (before[0]?.data as { run_id: string }).run_id;
    const lastId = before.at(-1)?.id;
    const { code, events: after } = await session(id, { action: 'join', run_id: runId, last_event_id: lastId }).closed;
    expect(code).toBe(1000);
    const counts = [...before, ...after].filter((e) => e.event === 'custom').map((e) => (e.data as { count: number }).count);
    expect(counts).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(after.at(-1)?.event).toBe('end');
  });

  it('closes with 1008 after an error carrying {detail} on bad input', async () => {
    const id = await newThread();
    const bad = await session(id, { assistant_id: 'echo', stream_mode: ['tools'] }).closed;
    expect(bad.code).toBe(1008);
    expect(bad.events[0]).toMatchObject({ event: 'error', data: { detail: expect.stringMatching(/stream_mode/) } });
    const unknown = await session(id, { assistant_id: 'nope' }).closed;
    expect(unknown.code).toBe(1008);
    expect(JSON.stringify(unknown.events[0])).toMatch(/nope/);
  });
});
