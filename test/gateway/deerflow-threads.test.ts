// DeerFlow's own /api/threads routes (issue #30), through HTTP on 2 API replicas and 2 workers,
// with the fields, types and statuses of DeerFlow's pydantic models (ThreadResponse,
// ThreadCreateRequest, ThreadSearchRequest, ThreadPatchRequest, ThreadStateResponse,
// HistoryEntry; f1f4af99b), each scoped to the caller: create (idempotent), GET /api/threads and
// search, get, patch, state, state update and history, over the same threads /api/langgraph
// serves. Then the features Warren leaves off, answered as DeerFlow's disabled ones are: browser
// control (navigate and the live stream's WebSocket) and GitHub webhooks.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { testGraphs } from '../support/stack.js';
import { expectDetail, replicaApi } from '../support/replica-api.js';

const KEYS = { alice: 'alice-key-0123456789abcdef', bob: 'bob-key-0123456789abcdef' } as const;
type Who = keyof typeof KEYS;
const THREAD_KEYS = ['created_at', 'interrupts', 'metadata', 'status', 'thread_id', 'updated_at', 'values'];
const STATE_KEYS = ['checkpoint', 'checkpoint_id', 'created_at', 'metadata', 'next', 'parent_checkpoint_id', 'tasks', 'values'];
const HISTORY_KEYS = ['checkpoint_id', 'created_at', 'metadata', 'next', 'parent_checkpoint_id', 'values'];

let cluster: Cluster;
let replicas: string[];
const { call, ok } = replicaApi(KEYS, () => replicas, '/api');

beforeAll(async () => {
  buildDist();
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: { graphs: testGraphs('echo'), auth: { api_keys: [{ key: KEYS.alice, user: 'alice' }, { key: KEYS.bob, user: 'bob' }] } },
  });
  replicas = cluster.apis.map((api) => `http://127.0.0.1:${api.port}`);
}, 240_000);
afterAll(async () => {
  await cluster?.stop();
}, 60_000);


function expectThread(thread: any): void {
  expect(Object.keys(thread).sort()).toEqual(THREAD_KEYS);
  expect(typeof thread.thread_id).toBe('string');
  expect(['idle', 'busy', 'interrupted', 'error']).toContain(thread.status);
  for (const at of [thread.created_at, thread.updated_at]) expect(Number.isNaN(Date.parse(at))).toBe(false);
  for (const obj of [thread.metadata, thread.values, thread.interrupts]) expect(obj !== null && typeof obj === 'object' && !Array.isArray(obj)).toBe(true);
}

async function runEcho(who: Who, threadId: string, text: string): Promise<void> {
  await ok(who, 'POST', `/langgraph/threads/${threadId}/runs/wait`, { assistant_id: 'echo', input: { messages: [{ type: 'human', content: text }] } });
}

describe('POST /api/threads', () => {
  it("creates a thread with DeerFlow's ThreadResponse, the same one /api/langgraph serves", async () => {
    const created = await ok('alice', 'POST', '/threads', { metadata: { sidecar: true, parent_thread_id: 'p-1' }, assistant_id: 'echo' });
    expectThread(created);
    expect(created).toMatchObject({ status: 'idle', metadata: { sidecar: true, parent_thread_id: 'p-1', assistant_id: 'echo' }, interrupts: {} });
    expect((await ok('alice', 'GET', `/langgraph/threads/${created.thread_id}`)).metadata).toMatchObject({ sidecar: true });
  });

  it('is idempotent for an id the caller has, and answers 404 for an id another user has', async () => {
    const id = randomUUID();
    const first = await ok('alice', 'POST', '/threads', { thread_id: id, metadata: { n: 1 } });
    const again = await ok('alice', 'POST', '/threads', { thread_id: id, metadata: { n: 2 } });
    expect(again.thread_id).toBe(id);
    expect(again.created_at).toBe(first.created_at);
    expect(again.metadata.n).toBe(1);
    expectDetail(await call('bob', 'POST', '/threads', { thread_id: id }), 404);
  });

  it('refuses a field it does not take, a bad id and bad metadata with 422', async () => {
    expectDetail(await call('alice', 'POST', '/threads', { metadata: {}, if_exists: 'raise' }), 422, /if_exists/);
    expectDetail(await call('alice', 'POST', '/threads', { thread_id: '../etc' }), 422);
    expectDetail(await call('alice', 'POST', '/threads', { metadata: [] }), 422);
  });
});

describe("DeerFlow's side chat handshake: POST /api/threads, then the SDK's create of that id at /api/langgraph/threads (issue #30)", () => {
  // DeerFlow's UI makes the side chat's thread through its gateway, then its LangGraph SDK
  // (useStream) creates that id again without if_exists before streaming the first run.
  it('answers the thread (200, as it is) to its owner once, on any replica, while nothing has run on it', async () => {
    const made = await ok('alice', 'POST', '/threads', { metadata: { deerflow_sidecar: true } });
    const again = await ok('alice', 'POST', '/langgraph/threads', { thread_id: made.thread_id, metadata: { ignored: true } });
    expect(again).toMatchObject({ thread_id: made.thread_id, created_at: made.created_at, metadata: { deerflow_sidecar: true }, status: 'idle' });
    expect(again.metadata.ignored).toBeUndefined();
    // Once: a second LangGraph create of the id is the conflict LangGraph's server reports.
    expectDetail(await call('alice', 'POST', '/langgraph/threads', { thread_id: made.thread_id }), 409, `Thread ${made.thread_id} already exists`);
    // The SDK's next step, the run, goes to that thread.
    await runEcho('alice', made.thread_id, 'side question');
    expect(JSON.stringify((await ok('alice', 'GET', `/langgraph/threads/${made.thread_id}/state`)).values)).toContain('side question');
  });

  it('keeps the mark through DeerFlow creating the same id twice', async () => {
    const id = randomUUID();
    await ok('alice', 'POST', '/threads', { thread_id: id });
    await ok('alice', 'POST', '/threads', { thread_id: id });
    expect((await ok('alice', 'POST', '/langgraph/threads', { thread_id: id })).thread_id).toBe(id);
  });

  it('still answers 409 to LangGraph clients on every real conflict', async () => {
    // A thread made through /api/langgraph: no exception, as on LangGraph's server.
    const lg = await ok('alice', 'POST', '/langgraph/threads', {});
    expectDetail(await call('alice', 'POST', '/langgraph/threads', { thread_id: lg.thread_id }), 409);
    // An explicit if_exists: raise.
    const explicit = await ok('alice', 'POST', '/threads', {});
    expectDetail(await call('alice', 'POST', '/langgraph/threads', { thread_id: explicit.thread_id, if_exists: 'raise' }), 409);
    // Another user.
    const mine = await ok('alice', 'POST', '/threads', {});
    expectDetail(await call('bob', 'POST', '/langgraph/threads', { thread_id: mine.thread_id }), 409);
    // A thread something has run on.
    const used = await ok('alice', 'POST', '/threads', {});
    await runEcho('alice', used.thread_id, 'first');
    expectDetail(await call('alice', 'POST', '/langgraph/threads', { thread_id: used.thread_id }), 409);
    // if_exists: do_nothing answers it as always.
    expect((await ok('alice', 'POST', '/langgraph/threads', { thread_id: used.thread_id, if_exists: 'do_nothing' })).thread_id).toBe(used.thread_id);
  });
});

describe('GET /api/threads and POST /api/threads/search', () => {
  it("lists only the caller's threads, latest activity first, values holding the title only", async () => {
    const mine = await ok('bob', 'POST', '/threads', { metadata: { tag: 'listing' } });
    await runEcho('bob', mine.thread_id, 'hello');
    const newer = await ok('bob', 'POST', '/threads', { metadata: { tag: 'listing' } });
    const listed = await ok('bob', 'GET', '/threads');
    expect(Array.isArray(listed)).toBe(true);
    listed.forEach(expectThread);
    const ids = listed.map((t: any) => t.thread_id);
    expect(ids.slice(0, 2)).toEqual([newer.thread_id, mine.thread_id]);
    // The echo graph keeps no title: the row's values are empty, never its messages.
    expect(listed[1].values).toEqual({});
    expect((await ok('bob', 'GET', `/threads/${mine.thread_id}`)).values.messages).toHaveLength(2);
    for (const t of (await ok('alice', 'GET', '/threads?limit=1000')) as any[]) expect(ids).not.toContain(t.thread_id);
    expect(await ok('bob', 'GET', '/threads?limit=1&offset=1')).toEqual([listed[1]]);
    expectDetail(await call('bob', 'GET', '/threads?limit=0'), 422);
    expectDetail(await call('bob', 'GET', '/threads?status=asleep'), 422);
  });

  it('searches by exact metadata, status, limit and offset', async () => {
    const tag = `s-${randomUUID().slice(0, 8)}`;
    const a = await ok('alice', 'POST', '/threads', { metadata: { tag, kind: 'a' } });
    const b = await ok('alice', 'POST', '/threads', { metadata: { tag, kind: 'b' } });
    await ok('bob', 'POST', '/threads', { metadata: { tag, kind: 'a' } });
    const both = await ok('alice', 'POST', '/threads/search', { metadata: { tag } });
    expect(both.map((t: any) => t.thread_id)).toEqual([b.thread_id, a.thread_id]);
    both.forEach(expectThread);
    expect((await ok('alice', 'POST', '/threads/search', { metadata: { tag, kind: 'a' } })).map((t: any) => t.thread_id)).toEqual([a.thread_id]);
    expect((await ok('alice', 'POST', '/threads/search', { metadata: { tag }, limit: 1, offset: 1 })).map((t: any) => t.thread_id)).toEqual([a.thread_id]);
    expect(await ok('alice', 'POST', '/threads/search', { metadata: { tag }, status: 'busy' })).toEqual([]);
    expectDetail(await call('alice', 'POST', '/threads/search', { limit: 1001 }), 422);
    expectDetail(await call('alice', 'POST', '/threads/search', { sort_by: 'title' }), 422, /sort_by/);
    expectDetail(await call('alice', 'POST', '/threads/search', { select: ['messages'] }), 422, /select/);
  });

  it("takes the SDK's sort_by, sort_order and select, as the UI sends them when DeerFlow's nginx rewrites /api/langgraph to /api", async () => {
    const tag = `o-${randomUUID().slice(0, 8)}`;
    const first = await ok('alice', 'POST', '/threads', { metadata: { tag } });
    const second = await ok('alice', 'POST', '/threads', { metadata: { tag } });
    const oldestFirst = await ok('alice', 'POST', '/threads/search', { metadata: { tag }, sort_by: 'created_at', sort_order: 'asc' });
    expect(oldestFirst.map((t: any) => t.thread_id)).toEqual([first.thread_id, second.thread_id]);
    const selected = await ok('alice', 'POST', '/threads/search', { metadata: { tag }, sort_by: 'updated_at', sort_order: 'desc', select: ['thread_id', 'updated_at', 'values', 'metadata'] });
    expect(selected.map((t: any) => t.thread_id)).toEqual([second.thread_id, first.thread_id]);
    for (const row of selected) expect(Object.keys(row).sort()).toEqual(['metadata', 'thread_id', 'updated_at', 'values']);
  });
});

describe('GET, PATCH /api/threads/{id}, its state and history', () => {
  it("answers the thread with its values, merges metadata, and hides another user's thread (404)", async () => {
    const { thread_id: id } = await ok('alice', 'POST', '/threads', { metadata: { a: 1 } });
    await runEcho('alice', id, 'first');
    const got = await ok('alice', 'GET', `/threads/${id}`);
    expectThread(got);
    expect(got.values.messages.map((m: any) => m.content)).toContain('first');
    const patched = await ok('alice', 'PATCH', `/threads/${id}`, { metadata: { pinned: true } });
    expectThread(patched);
    expect(patched.metadata).toMatchObject({ a: 1, pinned: true });
    expect(patched.values).toEqual({});
    expect((await ok('alice', 'GET', `/threads/${id}`)).metadata).toMatchObject({ a: 1, pinned: true });
    expectDetail(await call('bob', 'GET', `/threads/${id}`), 404);
    expectDetail(await call('bob', 'PATCH', `/threads/${id}`, { metadata: { x: 1 } }), 404);
    expectDetail(await call('alice', 'PATCH', `/threads/${id}`, { metadata: { x: 1 }, ttl: 5 }), 422, /ttl/);
    expectDetail(await call('alice', 'GET', `/threads/${randomUUID()}`), 404);
  });

  it("answers state and history in DeerFlow's shapes, and takes a state update", async () => {
    const { thread_id: id } = await ok('alice', 'POST', '/threads', {});
    await runEcho('alice', id, 'one');
    await runEcho('alice', id, 'two');
    const state = await ok('alice', 'GET', `/threads/${id}/state`);
    expect(Object.keys(state).sort()).toEqual(STATE_KEYS);
    expect(typeof state.checkpoint_id).toBe('string');
    expect(state.checkpoint.checkpoint_id).toBe(state.checkpoint_id);
    expect(typeof state.parent_checkpoint_id).toBe('string');
    expect(state.values.messages.map((m: any) => m.content)).toEqual(expect.arrayContaining(['one', 'two']));
    expect(state.next).toEqual([]);

    const added = { type: 'ai', id: 'added-by-update', content: 'Added by a state update' };
    const updated = await ok('alice', 'POST', `/threads/${id}/state`, { values: { messages: [added] } });
    expect(Object.keys(updated).sort()).toEqual(STATE_KEYS);
    expect(updated.values.messages.at(-1)).toMatchObject({ id: 'added-by-update', content: 'Added by a state update' });
    expect(updated.parent_checkpoint_id).toBe(state.checkpoint_id);
    expect((await ok('alice', 'GET', `/threads/${id}`)).values.messages.at(-1).id).toBe('added-by-update');

    const history = await ok('alice', 'POST', `/threads/${id}/history`, { limit: 3 });
    expect(history).toHaveLength(3);
    for (const entry of history) expect(Object.keys(entry).sort()).toEqual(HISTORY_KEYS);
    expect(history[0].checkpoint_id).toBe(updated.checkpoint_id);
    expect(history[1].checkpoint_id).toBe(history[0].parent_checkpoint_id);
    const older = await ok('alice', 'POST', `/threads/${id}/history`, { limit: 1, before: history[0].checkpoint_id });
    expect(older.map((e: any) => e.checkpoint_id)).toEqual([history[1].checkpoint_id]);
    expectDetail(await call('alice', 'POST', `/threads/${id}/history`, { limit: 101 }), 422);
    expectDetail(await call('bob', 'GET', `/threads/${id}/state`), 404);
    expectDetail(await call('bob', 'POST', `/threads/${id}/state`, { values: { title: 'x' } }), 404);
    expectDetail(await call('bob', 'POST', `/threads/${id}/history`, {}), 404);
  });
});

describe('features Warren leaves off, answered as DeerFlow answers them disabled', () => {
  it('says so in /api/features', async () => {
    expect(await ok('alice', 'GET', '/features')).toEqual({
      agents_api: { enabled: true },
      browser_control: { enabled: false },
      mcp_tasks: { enabled: false },
      github_webhooks: { enabled: false },
      channel_connections: { enabled: true },
      lark_integration: { enabled: true },
    });
  });

  it('browser navigate: 404 "Browser automation is not enabled"; 422 without a url; 404 on another user\'s thread', async () => {
    const { thread_id: id } = await ok('alice', 'POST', '/threads', {});
    expectDetail(await call('alice', 'POST', `/threads/${id}/browser/navigate`, { url: 'https://example.com' }), 404, 'Browser automation is not enabled');
    expectDetail(await call('alice', 'POST', `/threads/${id}/browser/navigate`, {}), 422);
    expectDetail(await call('bob', 'POST', `/threads/${id}/browser/navigate`, { url: 'https://example.com' }), 404, `Thread ${id} not found`);
  });

  it('closes the live browser stream with code 4404 and the reason', async () => {
    const { thread_id: id } = await ok('alice', 'POST', '/threads', {});
    for (const base of replicas) {
      const ws = new WebSocket(`${base.replace('http', 'ws')}/api/threads/${id}/browser/stream?frame_format=binary`, { headers: { 'x-api-key': KEYS.alice } });
      const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
        ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
        ws.once('error', reject);
      });
      expect(closed).toEqual({ code: 4404, reason: 'Browser automation is not enabled' });
    }
  });

  it('answers POST /api/webhooks/github 404 {"detail": "Not Found"}, as DeerFlow with no secret', async () => {
    expect(await call('alice', 'POST', '/webhooks/github', { zen: 'hi' })).toEqual({ status: 404, body: { detail: 'Not Found' } });
  });
});
