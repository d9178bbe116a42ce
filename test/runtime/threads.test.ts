// Threads, state and history through the official LangGraph SDK (1.15.0).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { userInput } from '../support/sse.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('echo', 'counter') } });
});
afterAll(async () => stack?.close());

describe('threads', () => {
  it('creates with a client-chosen id, and honours if_exists', async () => {
    const id = randomUUID();
    const thread = await stack.client.threads.create({ threadId: id, metadata: { owner: 'ann' } });
    expect(thread).toMatchObject({ thread_id: id, status: 'idle', metadata: { owner: 'ann' } });
    expect(Date.parse(thread.created_at)).not.toBeNaN();
    expect(thread.created_at.endsWith('Z')).toBe(true);
    await expect(stack.client.threads.create({ threadId: id })).rejects.toThrow(/409/);
    const again = await stack.client.threads.create({ threadId: id, ifExists: 'do_nothing' });
    expect(again.metadata).toEqual({ owner: 'ann' });
  });

  it('gets, updates metadata by merging, and deletes', async () => {
    const { thread_id: id } = await stack.client.threads.create({ metadata: { a: 1 } });
    const updated = await stack.client.threads.update(id, { metadata: { b: 2 } });
    expect(updated.metadata).toEqual({ a: 1, b: 2 });
    expect((await stack.client.threads.get(id)).metadata).toEqual({ a: 1, b: 2 });
    await stack.client.threads.delete(id);
    await expect(stack.client.threads.get(id)).rejects.toThrow(/404/);
    await expect(stack.client.threads.delete(id)).rejects.toThrow(/404/);
  });

  it('searches by metadata and status with paging, sorting, select and X-Pagination-Total', async () => {
    const tag = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await stack.client.threads.create({ metadata: { tag, i } })).thread_id);
    const page = await stack.client.threads.search({ metadata: { tag }, limit: 2, offset: 1, sortBy: 'created_at', sortOrder: 'asc' });
    expect(page.map((t) => t.thread_id)).toEqual(ids.slice(1, 3));
    const idle = await stack.client.threads.search({ metadata: { tag }, status: 'idle', limit: 10 });
    expect(idle).toHaveLength(5);
    expect(await stack.client.threads.search({ metadata: { tag }, status: 'busy' })).toHaveLength(0);

    const res = await fetch(`${stack.apiUrl}/threads/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { tag }, limit: 2, select: ['thread_id', 'status'] }),
    });
    expect(res.headers.get('x-pagination-total')).toBe('5');
    const selected = (await res.json()) as Record<string, unknown>[];
    expect(Object.keys(selected[0] ?? {}).sort()).toEqual(['status', 'thread_id']);
  });

  it('has empty state before any run, and the graph state after one', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const empty = await stack.client.threads.getState(id);
    expect(empty).toMatchObject({ values: {}, next: [], tasks: [], checkpoint: null });

    await stack.client.runs.wait(id, 'echo', { input: userInput('hello') });
    const state = await stack.client.threads.getState<{ messages: { content: string; type: string }[] }>(id);
    expect(state.values.messages.map((m) => m.content)).toEqual(['hello', 'echo: hello']);
    expect(state.next).toEqual([]);
    expect(state.checkpoint?.checkpoint_id).toBeTruthy();
    expect(state).toHaveProperty('parent_checkpoint');
    expect(state).toHaveProperty('config');
    expect(state.created_at).toBeTruthy();

    const thread = await stack.client.threads.get<{ messages: unknown[] }>(id);
    expect(thread.status).toBe('idle');
    expect(thread.values?.messages).toHaveLength(2);
    expect(thread.metadata).toMatchObject({ graph_id: 'echo' });
  });

  it('updates state (as_node) and keeps the history, newest first, with limit and before', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    await stack.client.runs.wait(id, 'counter', { input: { count: 0 }, config: { configurable: { target: 3 } } });
    const result = await stack.client.threads.updateState(id, { values: { count: 42 }, asNode: 'step' });
    expect(JSON.stringify(result)).toContain(id);
    const state = await stack.client.threads.getState<{ count: number }>(id);
    expect(state.values.count).toBe(42);
    expect((await stack.client.threads.get<{ count: number }>(id)).values?.count).toBe(42);

    const history = await stack.client.threads.getHistory<{ count: number }>(id, { limit: 3 });
    expect(history).toHaveLength(3);
    expect(history[0]?.values.count).toBe(42);
    const ids = history.map((h) => h.checkpoint?.checkpoint_id);
    expect(new Set(ids).size).toBe(3);
    const older = await stack.client.threads.getHistory(id, { limit: 2, before: { configurable: { checkpoint_id: ids[0] } } });
    expect(older.map((h) => h.checkpoint?.checkpoint_id)).toEqual(ids.slice(1, 3));
    const plain = await fetch(`${stack.apiUrl}/threads/${id}/history?limit=1`);
    expect(((await plain.json()) as unknown[]).length).toBe(1);
  });

  it('renames a title through a state update on the lead agent', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    await stack.client.threads.updateState(id, { values: { title: 'My trip to Lisbon' } });
    const state = await stack.client.threads.getState<{ title: string }>(id);
    expect(state.values.title).toBe('My trip to Lisbon');
  });

  it('answers 404 and 422 with {detail}', async () => {
    const missing = await fetch(`${stack.apiUrl}/threads/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toHaveProperty('detail');
    const bad = await fetch(`${stack.apiUrl}/threads/has%20space`);
    expect(bad.status).toBe(422);
    const badBody = await fetch(`${stack.apiUrl}/threads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ if_exists: 'explode' }),
    });
    expect(badBody.status).toBe(422);
    expect(((await badBody.json()) as { detail: string }).detail).toMatch(/if_exists/);
  });
});
