// Issue "exactly-once runs under faults", for stream clients: one that resumes with the id of the
// run's `end` is answered at once. The stream hub's shared read blocks for ten minutes here, so
// an answer that waited for its timer would miss every deadline of this file.
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, parseSse, userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('echo') }, streamBlockMs: 600_000 });
});
afterAll(async () => {
  await stack?.close();
});

/** Starts a run in the background (endpoint 3 answers SSE unless the client asks for JSON). */
async function startRun(assistantId: string, payload: Parameters<Client['runs']['create']>[2]): Promise<{ threadId: string; runId: string }> {
  const { thread_id: threadId } = await stack.client.threads.create();
  const background = new Client({ apiUrl: stack.apiUrl, defaultHeaders: { Accept: 'application/json' } });
  return { threadId, runId: (await background.runs.create(threadId, assistantId, payload)).run_id };
}

describe('a client that resumes with the id of the end event', () => {
  const finishedRun = async () => {
    const { threadId, runId } = await startRun('echo', { input: userInput('done') });
    await stack.client.runs.join(threadId, runId);
    const all = await collect(stack.client.runs.joinStream(threadId, runId, { lastEventId: '-1' }));
    const end = all.at(-1);
    expect(end?.event).toBe('end');
    return { threadId, runId, endId: end?.id as string };
  };

  it('is sent end at once over SSE', async () => {
    const { threadId, runId, endId } = await finishedRun();
    const events = await collect(stack.client.runs.joinStream(threadId, runId, { lastEventId: endId }));
    expect(events).toEqual([{ event: 'end', data: {}, id: endId }]);
    // And on the wire, for a client without the SDK.
    const res = await fetch(`${stack.apiUrl}/threads/${threadId}/runs/${runId}/stream`, { headers: { 'last-event-id': endId } });
    expect(parseSse(await res.text())).toEqual([{ event: 'end', data: {}, id: endId }]);
  });

  it('is sent end at once over WebSocket, then closed with 1000', async () => {
    const { threadId, runId, endId } = await finishedRun();
    const ws = new WebSocket(`${stack.url.replace('http', 'ws')}/api/langgraph/threads/${threadId}/runs/stream`);
    const seen: unknown[] = [];
    const code = await new Promise<number>((resolve, reject) => {
      ws.onopen = () => ws.send(JSON.stringify({ action: 'join', run_id: runId, last_event_id: endId }));
      ws.onmessage = (msg) => seen.push(JSON.parse(String(msg.data)));
      ws.onclose = (close) => resolve(close.code);
      ws.onerror = () => reject(new Error('websocket error'));
    });
    expect(code).toBe(1000);
    expect(seen).toEqual([{ event: 'end', data: {}, id: endId }]);
  });
});
