// `debug`, `checkpoints` and `tasks` events in the LangGraph API's wire shapes, through the SDK,
// and no internal configuration key (`__pregel_*`, callbacks, the checkpointer, the abort
// signal) anywhere in an event, a state or a history entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, userInput, type SseEvent } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('echo', 'nested', 'asker') } });
});
afterAll(async () => {
  await stack?.close();
});

const MODES = ['debug', 'checkpoints', 'tasks'];
const INTERNAL_KEYS = new Set(['callbacks', 'checkpointer', 'signal', 'writer', 'interrupt', 'store']);

/** Every path in `value` that names an internal key or holds LangChain's "not_implemented" stand-in. */
function internalPaths(value: unknown, at = '$', out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item, i) => internalPaths(item, `${at}[${i}]`, out));
  else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (record.lc === 1 && record.type === 'not_implemented') out.push(at);
    for (const [key, item] of Object.entries(record)) {
      if (key.startsWith('__pregel') || INTERNAL_KEYS.has(key)) out.push(`${at}.${key}`);
      internalPaths(item, `${at}.${key}`, out);
    }
  }
  return out;
}

const streamOf = async (graph: string, modes: string[], extra: Record<string, unknown> = {}) => {
  const { thread_id: threadId } = await stack.client.threads.create();
  const events = await collect(
    stack.client.runs.stream(threadId, graph, { input: userInput('hi'), streamMode: modes as never, ...extra }),
  );
  return { threadId, events };
};

const ofEvent = (events: SseEvent[], name: string) => events.filter((e) => e.event === name).map((e) => e.data as Record<string, unknown>);

const CHECKPOINT_REF = {
  thread_id: expect.any(String),
  checkpoint_ns: expect.any(String),
  checkpoint_id: expect.any(String),
  checkpoint_map: null,
};

describe('stream payloads in wire shape', () => {
  it('debug: checkpoint, task and task_result events as the LangGraph server sends them', async () => {
    const { threadId, events } = await streamOf('echo', MODES);
    const debug = ofEvent(events, 'debug');
    expect(new Set(debug.map((d) => d.type))).toEqual(new Set(['checkpoint', 'task', 'task_result']));
    for (const chunk of debug) {
      expect(Object.keys(chunk).sort()).toEqual(['payload', 'step', 'timestamp', 'type']);
      expect(typeof chunk.step).toBe('number');
      expect(Number.isNaN(Date.parse(String(chunk.timestamp)))).toBe(false);
    }
    const checkpoints = debug.filter((d) => d.type === 'checkpoint').map((d) => d.payload as Record<string, unknown>);
    expect(checkpoints.length).toBeGreaterThanOrEqual(3);
    const [first, ...rest] = checkpoints;
    expect(first).toMatchObject({ checkpoint: { ...CHECKPOINT_REF, thread_id: threadId, checkpoint_ns: '' }, parent_checkpoint: null });
    expect(first).not.toHaveProperty('parent_config');
    expect(first).not.toHaveProperty('parentConfig');
    for (const payload of rest) {
      expect(Object.keys(payload).sort()).toEqual(
        ['checkpoint', 'config', 'metadata', 'next', 'parent_checkpoint', 'parent_config', 'tasks', 'values'].sort(),
      );
      expect(payload.checkpoint).toEqual({ ...CHECKPOINT_REF, thread_id: threadId, checkpoint_ns: '' });
      expect(payload.parent_checkpoint).toMatchObject({ thread_id: threadId, checkpoint_id: expect.any(String) });
      const config = payload.config as { configurable: Record<string, unknown> };
      expect(config.configurable).toMatchObject({ thread_id: threadId, checkpoint_id: (payload.checkpoint as { checkpoint_id: string }).checkpoint_id });
      expect(payload.parent_config).toMatchObject({ configurable: { thread_id: threadId } });
    }
    const last = checkpoints.at(-1) as { values: { messages: { content: string }[] }; next: string[]; metadata: { source: string } };
    expect(last.values.messages.map((m) => m.content)).toEqual(['hi', 'echo: hi']);
    expect(last.next).toEqual([]);
    expect(last.metadata.source).toBe('loop');
    const result = debug.find((d) => d.type === 'task_result')?.payload as Record<string, unknown>;
    expect(result).toMatchObject({ name: 'respond', interrupts: [], result: { messages: [{ content: 'echo: hi' }] } });
    expect(internalPaths(events)).toEqual([]);
  });

  it('checkpoints: full checkpoints, with config, tasks and the checkpoint references', async () => {
    const { threadId, events } = await streamOf('echo', ['checkpoints']);
    const checkpoints = ofEvent(events, 'checkpoints');
    expect(checkpoints.length).toBeGreaterThanOrEqual(3);
    for (const cp of checkpoints) {
      expect(cp).toMatchObject({ values: expect.any(Object), next: expect.any(Array), metadata: expect.any(Object), tasks: expect.any(Array) });
      expect(cp.checkpoint).toEqual({ ...CHECKPOINT_REF, thread_id: threadId, checkpoint_ns: '' });
      expect((cp.config as { configurable: Record<string, unknown> }).configurable.thread_id).toBe(threadId);
    }
    expect(checkpoints.find((cp) => (cp.next as string[]).includes('respond'))?.tasks).toEqual([
      { id: expect.any(String), name: 'respond', path: expect.any(Array), interrupts: [] },
    ]);
    const state = await stack.client.threads.getState(threadId);
    expect(checkpoints.at(-1)?.checkpoint).toEqual(state.checkpoint);
    expect(internalPaths(events)).toEqual([]);
  });

  it('tasks: a start event {id, name, input, triggers, interrupts} and a result event per task', async () => {
    const { events } = await streamOf('echo', ['tasks']);
    const tasks = ofEvent(events, 'tasks');
    const start = tasks.find((t) => 'input' in t);
    const result = tasks.find((t) => 'result' in t);
    expect(start).toMatchObject({ id: expect.any(String), name: 'respond', input: { messages: [{ content: 'hi' }] }, triggers: expect.any(Array), interrupts: [] });
    expect(result).toMatchObject({ id: start?.id, name: 'respond', interrupts: [], error: null, result: { messages: [{ content: 'echo: hi' }] } });
    expect(internalPaths(events)).toEqual([]);
  });

  it('a subgraph task carries a checkpoint reference into the subgraph, not its internal config', async () => {
    const { threadId, events } = await streamOf('nested', MODES, { streamSubgraphs: true });
    const parentCheckpoints = ofEvent(events, 'checkpoints');
    const childTask = parentCheckpoints
      .flatMap((cp) => cp.tasks as Record<string, unknown>[])
      .find((task) => task.name === 'child');
    expect(childTask).toBeDefined();
    expect(childTask).not.toHaveProperty('state');
    expect(childTask?.checkpoint).toEqual({ thread_id: threadId, checkpoint_ns: expect.stringMatching(/^child:/), checkpoint_id: null, checkpoint_map: null });
    const sub = events.filter((e) => /^(debug|checkpoints|tasks)\|child:/.test(e.event));
    expect(new Set(sub.map((e) => e.event.split('|')[0]))).toEqual(new Set(MODES));
    const subCheckpoint = ofEvent(events, sub.find((e) => e.event.startsWith('checkpoints|'))?.event ?? '')[0];
    expect((subCheckpoint?.checkpoint as { checkpoint_ns: string }).checkpoint_ns).toMatch(/^child:/);
    expect(internalPaths(events)).toEqual([]);
  });

  it('events mode, state (with subgraphs), history and interrupts hold no internal key either', async () => {
    const { threadId, events } = await streamOf('nested', ['events', 'values', 'updates'], { streamSubgraphs: true });
    expect(events.some((e) => e.event === 'events')).toBe(true);
    expect(internalPaths(events)).toEqual([]);
    const state = await stack.client.threads.getState(threadId, undefined, { subgraphs: true });
    const history = await stack.client.threads.getHistory(threadId, { limit: 20 });
    expect(history.length).toBeGreaterThan(2);
    expect(internalPaths({ state, history })).toEqual([]);

    const asked = await streamOf('asker', [...MODES, 'values']);
    expect(ofEvent(asked.events, 'tasks').some((t) => Array.isArray(t.interrupts) && t.interrupts.length > 0)).toBe(true);
    const interrupted = await stack.client.threads.getState(asked.threadId);
    expect(interrupted.tasks[0]?.interrupts).toHaveLength(1);
    expect(internalPaths({ events: asked.events, interrupted, history: await stack.client.threads.getHistory(asked.threadId) })).toEqual([]);
  });
});
