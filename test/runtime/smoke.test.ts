import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('echo') } });
});
afterAll(async () => stack?.close());

describe('smoke', () => {
  it('streams a run of the echo graph', async () => {
    const thread = await stack.client.threads.create();
    const events: { event: string; data: unknown }[] = [];
    for await (const part of stack.client.runs.stream(thread.thread_id, 'echo', {
      input: { messages: [{ role: 'user', content: 'hi' }] },
      streamMode: ['values', 'custom'],
    })) {
      events.push({ event: part.event, data: part.data });
    }
    console.log(JSON.stringify(events, null, 1));
    expect(events.at(0)?.event).toBe('metadata');
    expect(events.at(-1)?.event).toBe('end');
  });
});
