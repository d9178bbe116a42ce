// Background runs, list/get/join/wait, cancel, multitask strategies and interrupt/resume,
// through the official LangGraph SDK.
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, names, userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

let stack: Stack;
let jsonClient: Client;
beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('echo', 'counter', 'asker') } });
  // Endpoint 3 streams SSE unless the client asks for JSON, which is what runs.create needs.
  jsonClient = new Client({ apiUrl: stack.apiUrl, defaultHeaders: { Accept: 'application/json' } });
});
afterAll(async () => stack?.close());

const slow = (target = 40, tickMs = 50) => ({ input: { count: 0 }, config: { configurable: { target, tick_ms: tickMs } } });
const runStatus = async (threadId: string, runId: string) => (await stack.client.runs.get(threadId, runId)).status;

describe('runs', () => {
  it('creates a background run with Content-Location, then lists, gets, joins and join-streams it', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    let created: { run_id: string; thread_id?: string } | undefined;
    const run = await jsonClient.runs.create(id, 'echo', { input: userInput('bg'), onRunCreated: (meta) => (created = meta) });
    expect(run).toMatchObject({ thread_id: id, assistant_id: 'echo', multitask_strategy: 'enqueue' });
    expect(['pending', 'running', 'success']).toContain(run.status);
    expect(created?.run_id).toBe(run.run_id);

    const joined = await stack.client.runs.join(id, run.run_id);
    expect(JSON.stringify(joined)).toContain('echo: bg');
    expect(await runStatus(id, run.run_id)).toBe('success');

    const listed = (await stack.client.runs.list(id)) as unknown as { runs: { run_id: string; status: string }[] };
    expect(listed.runs.map((r) => r.run_id)).toEqual([run.run_id]);
    const byStatus = (await stack.client.runs.list(id, { status: 'error' })) as unknown as { runs: unknown[] };
    expect(byStatus.runs).toEqual([]);

    const replay = await collect(stack.client.runs.joinStream(id, run.run_id, { lastEventId: '-1' }));
    expect(names(replay)).toEqual(['metadata', 'values', 'values', 'end']);
    const mid = replay[1]?.id as string;
    const rest = await collect(stack.client.runs.joinStream(id, run.run_id, { lastEventId: mid }));
    expect(rest.map((e) => e.id)).toEqual(replay.slice(2).map((e) => e.id));
  });

  it('waits for the final values', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const values = (await stack.client.runs.wait(id, 'echo', { input: userInput('w') })) as { messages: { content: string }[] };
    expect(values.messages.at(-1)?.content).toBe('echo: w');
  });

  it('cancels with interrupt: the run is interrupted, the thread idle, the state kept', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const run = await jsonClient.runs.create(id, 'counter', slow(400, 20));
    await waitFor(async () => ((await stack.client.threads.getState<{ count?: number }>(id)).values.count ?? 0) >= 2, 'some progress');
    await stack.client.runs.cancel(id, run.run_id, true, 'interrupt');
    expect(await runStatus(id, run.run_id)).toBe('interrupted');
    const thread = await stack.client.threads.get(id);
    expect(thread.status).toBe('idle');
    const state = await stack.client.threads.getState<{ count: number }>(id);
    expect(state.values.count).toBeGreaterThan(0);
    expect(state.values.count).toBeLessThan(400);
  });

  it('cancels with rollback: the run and its checkpoints are gone', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    await stack.client.runs.wait(id, 'counter', { input: { count: 0 }, config: { configurable: { target: 2 } } });
    const before = await stack.client.threads.getState<{ count: number }>(id);
    const run = await jsonClient.runs.create(id, 'counter', { input: { count: 0 }, config: { configurable: { target: 400, tick_ms: 20 } } });
    await waitFor(async () => (await runStatus(id, run.run_id)) === 'running', 'run to start');
    await stack.client.runs.cancel(id, run.run_id, true, 'rollback');
    await expect(stack.client.runs.get(id, run.run_id)).rejects.toThrow(/404/);
    const after = await stack.client.threads.getState<{ count: number }>(id);
    expect(after.checkpoint?.checkpoint_id).toBe(before.checkpoint?.checkpoint_id);
    expect(after.values.count).toBe(before.values.count);
  });

  it('multitask reject: 409 while the thread is busy', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const run = await jsonClient.runs.create(id, 'counter', slow(30, 20));
    await expect(jsonClient.runs.create(id, 'echo', { input: userInput('x'), multitaskStrategy: 'reject' })).rejects.toThrow(/409/);
    await stack.client.runs.join(id, run.run_id);
    // The refused run left no trace on the thread: it still names the graph that ran.
    expect((await stack.client.threads.get(id)).metadata).toMatchObject({ graph_id: 'counter', assistant_id: 'counter' });
  });

  it('multitask enqueue: runs one after another, in order', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const first = await jsonClient.runs.create(id, 'counter', slow(10, 20));
    const second = await jsonClient.runs.create(id, 'echo', { input: userInput('queued'), multitaskStrategy: 'enqueue' });
    expect(second.status).toBe('pending');
    await stack.client.runs.join(id, second.run_id);
    expect(await runStatus(id, first.run_id)).toBe('success');
    expect(await runStatus(id, second.run_id)).toBe('success');
    const first2 = await stack.client.runs.get(id, first.run_id);
    const second2 = await stack.client.runs.get(id, second.run_id);
    expect(Date.parse(first2.updated_at)).toBeLessThanOrEqual(Date.parse(second2.updated_at));
  });

  it('multitask interrupt: the running run is interrupted and the new one runs', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const first = await jsonClient.runs.create(id, 'counter', slow(400, 20));
    await waitFor(async () => (await runStatus(id, first.run_id)) === 'running', 'first run to start');
    const second = await jsonClient.runs.create(id, 'echo', { input: userInput('jump'), multitaskStrategy: 'interrupt' });
    await stack.client.runs.join(id, second.run_id);
    expect(await runStatus(id, first.run_id)).toBe('interrupted');
    expect(await runStatus(id, second.run_id)).toBe('success');
  });

  it('multitask rollback: the running run is deleted and the new one runs', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const first = await jsonClient.runs.create(id, 'counter', slow(400, 20));
    await waitFor(async () => (await runStatus(id, first.run_id)) === 'running', 'first run to start');
    const second = await jsonClient.runs.create(id, 'echo', { input: userInput('over'), multitaskStrategy: 'rollback' });
    await stack.client.runs.join(id, second.run_id);
    await expect(stack.client.runs.get(id, first.run_id)).rejects.toThrow(/404/);
    expect(await runStatus(id, second.run_id)).toBe('success');
  });

  it('interrupt() leaves the thread interrupted, and command.resume continues it', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const events = await collect(stack.client.runs.stream(id, 'asker', { input: userInput('hi'), streamMode: ['values', 'updates'] }));
    expect(JSON.stringify(events)).toContain('__interrupt__');
    const thread = await stack.client.threads.get(id);
    expect(thread.status).toBe('interrupted');
    expect(JSON.stringify(thread.interrupts)).toContain('What is your name?');
    const state = await stack.client.threads.getState(id);
    expect(state.next).toEqual(['ask']);
    expect(state.tasks[0]?.interrupts[0]).toMatchObject({ value: { question: 'What is your name?' } });

    const resumed = (await stack.client.runs.wait(id, 'asker', { command: { resume: 'Ada' } })) as { messages: { content: string }[] };
    expect(resumed.messages.at(-1)?.content).toBe('Hello, Ada');
    expect((await stack.client.threads.get(id)).status).toBe('idle');
  });

  it('a run over its recursion limit ends with GraphRecursionError and status error', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const events = await collect(
      stack.client.runs.stream(id, 'counter', { input: { count: 0 }, config: { recursion_limit: 5, configurable: { target: 100 } } }),
    );
    const error = events.find((e) => e.event === 'error');
    expect(error?.data).toMatchObject({ error: 'GraphRecursionError' });
    expect(events.at(-1)?.event).toBe('end');
    const [run] = ((await stack.client.runs.list(id)) as unknown as { runs: { status: string }[] }).runs;
    expect(run?.status).toBe('error');
    expect((await stack.client.threads.get(id)).status).toBe('error');
    await expect(stack.client.runs.wait(id, 'counter', { input: { count: 0 }, config: { recursion_limit: 3, configurable: { target: 100 } } })).rejects.toThrow(
      /GraphRecursionError/,
    );
  });

  it('defaults the recursion limit to 25', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const ok = await stack.client.runs.wait(id, 'counter', { input: { count: 0 }, config: { configurable: { target: 20 } } });
    expect(ok).toMatchObject({ count: 20 });
    await expect(stack.client.runs.wait(id, 'counter', { input: { count: 0 }, config: { configurable: { target: 30 } } })).rejects.toThrow(
      /GraphRecursionError/,
    );
  });

  it('answers 404 for an unknown assistant, thread or run', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    await expect(jsonClient.runs.create(id, 'nope', { input: {} })).rejects.toThrow(/404/);
    await expect(jsonClient.runs.create('00000000-0000-0000-0000-000000000000', 'echo', { input: {} })).rejects.toThrow(/404/);
    await expect(stack.client.runs.get(id, '00000000-0000-0000-0000-000000000000')).rejects.toThrow(/404/);
    await expect(stack.client.runs.cancel(id, '00000000-0000-0000-0000-000000000000')).rejects.toThrow(/404/);
  });

  it('creates the thread with if_not_exists=create', async () => {
    const id = crypto.randomUUID();
    const values = await stack.client.runs.wait(id, 'echo', { input: userInput('new'), ifNotExists: 'create' });
    expect(JSON.stringify(values)).toContain('echo: new');
    expect((await stack.client.threads.get(id)).thread_id).toBe(id);
  });

  it('lists assistants, one per graph, and resolves lead_agent by default', async () => {
    // Other test files share this Redis and may have created assistants of their own meanwhile.
    const assistants = await stack.client.assistants.search({ limit: 100, metadata: { created_by: 'system' } });
    expect(assistants.map((a) => a.assistant_id).sort()).toEqual(['asker', 'counter', 'echo', 'lead_agent']);
    expect((await stack.client.assistants.get('echo')).graph_id).toBe('echo');
    await expect(stack.client.assistants.get('nope')).rejects.toThrow(/404/);
    // The first /graph of a TypeScript graph derives its schemas from its types (seconds of CPU,
    // over a minute on a busy machine).
    const graph = await stack.client.assistants.getGraph('echo');
    expect(JSON.stringify(graph)).toContain('respond');
  }, 240_000);
});
