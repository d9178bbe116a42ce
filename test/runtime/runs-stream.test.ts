// runs.stream with every valid stream mode, subgraphs, and a real chat model client talking
// to the scripted OpenAI-compatible server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { collect, names, userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

let stack: Stack;
let llm: ScriptedOpenAI;
beforeAll(async () => {
  llm = await startScriptedOpenAI();
  process.env.WARREN_TEST_OPENAI_URL = llm.url;
  stack = await startStack({ config: { graphs: testGraphs('echo', 'nested', 'chat', 'counter') } });
});
afterAll(async () => {
  await stack?.close();
  await llm?.close();
});

const streamOf = async (graph: string, modes: string[], extra: Record<string, unknown> = {}) => {
  const { thread_id: id } = await stack.client.threads.create();
  const events = await collect(
    stack.client.runs.stream(id, graph, { input: userInput('hi'), streamMode: modes as never, ...extra }),
  );
  return { id, events };
};

describe('runs.stream', () => {
  it('starts with metadata {run_id, attempt} and ends with end', async () => {
    const { events } = await streamOf('echo', ['values']);
    expect(events[0]).toMatchObject({ event: 'metadata', data: { attempt: 1 } });
    expect((events[0]?.data as { run_id: string }).run_id).toBeTruthy();
    expect(events.at(-1)).toEqual({ event: 'end', data: {}, id: expect.any(String) });
    expect(events.every((e) => typeof e.id === 'string')).toBe(true);
  });

  it('values: the full state after each step', async () => {
    const { events } = await streamOf('echo', ['values']);
    const values = events.filter((e) => e.event === 'values');
    expect(values).toHaveLength(2);
    const last = values.at(-1)?.data as { messages: { content: string; type: string; role: string }[] };
    expect(last.messages.map((m) => [m.type, m.role, m.content])).toEqual([
      ['human', 'user', 'hi'],
      ['ai', 'assistant', 'echo: hi'],
    ]);
  });

  it('updates, custom, debug, tasks and checkpoints', async () => {
    const { events } = await streamOf('echo', ['updates', 'custom', 'debug', 'tasks', 'checkpoints']);
    const kinds = new Set(names(events));
    for (const mode of ['updates', 'custom', 'debug', 'tasks', 'checkpoints']) expect(kinds.has(mode)).toBe(true);
    expect(events.find((e) => e.event === 'updates')?.data).toMatchObject({ respond: { messages: [{ content: 'echo: hi' }] } });
    expect(events.find((e) => e.event === 'custom')?.data).toEqual({ echoed: 'hi' });
    expect(kinds.has('values')).toBe(false);
  });

  it('events: the callback event stream', async () => {
    const { events } = await streamOf('echo', ['events']);
    const evs = events.filter((e) => e.event === 'events').map((e) => (e.data as { event: string }).event);
    expect(evs).toContain('on_chain_start');
    expect(evs).toContain('on_chain_end');
  });

  it('messages-tuple: token chunks from the model as [message, metadata]', async () => {
    llm.push({ content: 'The quick brown fox' });
    const { events } = await streamOf('chat', ['messages-tuple', 'values']);
    const tuples = events.filter((e) => e.event === 'messages').map((e) => e.data as [{ content: string; type: string; role: string; id: string }, { langgraph_node: string }]);
    expect(tuples.length).toBeGreaterThan(2);
    expect(tuples.map(([m]) => m.content).join('')).toBe('The quick brown fox');
    const [first, meta] = tuples[1] ?? [];
    expect(first).toMatchObject({ type: 'ai', role: 'assistant' });
    expect(first?.id).toBeTruthy();
    expect(meta?.langgraph_node).toBe('model');
    expect(llm.requests.at(-1)?.stream).toBe(true);
  });

  it('subgraphs: events named mode|namespace', async () => {
    const { events } = await streamOf('nested', ['values', 'updates'], { streamSubgraphs: true });
    const sub = names(events).filter((n) => n.includes('|'));
    expect(sub.some((n) => /^values\|child:/.test(n))).toBe(true);
    expect(sub.some((n) => /^updates\|child:/.test(n))).toBe(true);
    const { events: flat } = await streamOf('nested', ['values', 'updates']);
    expect(names(flat).some((n) => n.includes('|'))).toBe(false);
  });

  it('context values reach the graph as configurable does', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const events = await collect(
      stack.client.runs.stream(id, 'counter', { input: { count: 0 }, context: { target: 2 } as never, streamMode: ['custom'] }),
    );
    expect(events.filter((e) => e.event === 'custom').map((e) => e.data)).toEqual([{ count: 1 }, { count: 2 }]);
  });

  it('stateless runs stream on a temporary thread that is removed afterwards', async () => {
    const events = await collect(stack.client.runs.stream(null, 'echo', { input: userInput('solo') }));
    expect(names(events)).toEqual(['metadata', 'values', 'values', 'end']);
    const result = await stack.client.runs.wait(null, 'echo', { input: userInput('solo wait') });
    expect(JSON.stringify(result)).toContain('echo: solo wait');
  });
});
