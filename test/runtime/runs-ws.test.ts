// The WebSocket on the path of endpoint 5: run, cancel, resume, and bad input.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { waitFor, waitForMetric } from '../support/wait-for.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('echo', 'counter', 'blob') } });
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

  it('a client that stops reading is paused rather than buffered for, and then gets every event once', async () => {
    const id = await newThread();
    const done = await session(id, { assistant_id: 'blob', input: {}, stream_mode: ['custom'], config: { configurable: { events: 3000, kib: 8 } } }).closed;
    const runId = (done.events[0]?.data as { run_id: string }).run_id;

    // A bare WebSocket client over TCP, so that it can stop reading.
    const { hostname, port } = new URL(stack.url);
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.write(
      `GET /api/langgraph/threads/${id}/runs/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    await waitFor(async () => Buffer.concat(chunks).includes('\r\n\r\n'), 'the upgrade');
    // One masked text frame (a zero mask leaves the payload as it is).
    const join = Buffer.from(JSON.stringify({ action: 'join', run_id: runId }));
    socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | join.length, 0, 0, 0, 0]), join]));
    socket.pause();
    await waitForMetric(stack.url, 'warren_stream_clients_waiting{transport="websocket"}', 1);
    socket.resume();
    // Until the server's close frame (the socket itself stays open: this client never answers it).
    const frames = () => {
      const all = Buffer.concat(chunks);
      const received = all.subarray(all.indexOf('\r\n\r\n') + 4);
      const texts: WsEvent[] = [];
      let closing = false;
      for (let at = 0; at + 2 <= received.length; ) {
        const opcode = (received[at] as number) & 0x0f;
        let length = (received[at + 1] as number) & 0x7f;
        let start = at + 2;
        if (length === 126) [length, start] = [received.readUInt16BE(at + 2), at + 4];
        else if (length === 127) [length, start] = [Number(received.readBigUInt64BE(at + 2)), at + 10];
        if (start + length > received.length) break;
        if (opcode === 1) texts.push(JSON.parse(received.subarray(start, start + length).toString('utf8')) as WsEvent);
        if (opcode === 8) closing = true;
        at = start + length;
      }
      return { texts, closing };
    };
    await waitFor(async () => frames().closing, 'the close frame');
    socket.destroy();
    expect(Buffer.concat(chunks).toString('latin1', 0, 12)).toMatch(/^HTTP\/1\.1 101/);
    const messages = frames().texts;
    const custom = messages.filter((m) => m.event === 'custom').map((m) => (m.data as { i: number }).i);
    expect(custom).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    expect(messages.at(-1)?.event).toBe('end');
    await waitForMetric(stack.url, 'warren_stream_clients_waiting{transport="websocket"}', 0);
  });
});
