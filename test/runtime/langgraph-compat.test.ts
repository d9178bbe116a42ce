// LangGraph.js compatibility (issue #32), through @langchain/langgraph-sdk on 2 API replicas and 2
// workers: the protocol bugs (task `result` and subgraph checkpoint shapes, checkpoint objects as
// history gives them, `__input__` supersteps, factory state with the thread's assistant's config,
// a cancelled pending run seen at once), LANGGRAPH_CONFIG on the system assistants, `new Client()`
// without a URL inside a graph, and dev mode's truncate.
import { fileURLToPath } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/cli/redis-process.js';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { testGraphs } from '../support/stack.js';

const COMPAT = fileURLToPath(new URL('../fixtures/graphs/compat-graphs.ts', import.meta.url));
const compatGraphs = (...ids: string[]) => Object.fromEntries(ids.map((id) => [id, `${COMPAT}:${id}`]));

let cluster: Cluster;
let client: Client;
/** One client per API replica, to read on one what the other answered. */
let replicas: Client[];

/** The first API replica, directly: nginx (deploy/nginx.conf) lets one client address make 10 requests a second, bursts of 20, and a test goes faster than that. */
const direct = () => `http://127.0.0.1:${cluster.apis[0]?.port}/api/langgraph`;

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${direct()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  buildDist();
  const nginxPort = await freePort();
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    nginxPort,
    config: {
      graphs: { ...testGraphs('echo'), ...compatGraphs('nestedAsk', 'factory', 'configEcho', 'caller') },
      api_url: `http://127.0.0.1:${nginxPort}`,
      dev: true,
    },
    env: { LANGGRAPH_CONFIG: JSON.stringify({ configEcho: { configurable: { model_name: 'openai' }, context: { model: 'small' } } }) },
  });
  // Warren answers POST /threads/{id}/runs with a stream unless JSON is asked for (README).
  const defaultHeaders = { Accept: 'application/json' };
  // Graphs reach the deployment through nginx (api_url); the test's own calls go to the replicas.
  client = new Client({ apiUrl: direct(), defaultHeaders });
  replicas = cluster.apis.map((api) => new Client({ apiUrl: `http://127.0.0.1:${api.port}/api/langgraph`, defaultHeaders }));
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
});

const hello = { messages: [{ role: 'user', content: 'hi' }] };

describe('thread state as LangGraph gives it', () => {
  it('gives tasks a null result, and a subgraph task the checkpoint of its namespace only', async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'nestedAsk', { input: { log: ['start'] } });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(['child']);
    const [task] = state.tasks;
    expect(task).toHaveProperty('result', null);
    expect(Object.keys(task?.checkpoint ?? {}).sort()).toEqual(['checkpoint_ns', 'thread_id']);
    expect(task?.checkpoint).toMatchObject({ thread_id: thread.thread_id, checkpoint_ns: expect.stringMatching(/^child:/) });
  });

  it('takes a subgraph task checkpoint back on POST /state, editing the subgraph state', async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'nestedAsk', { input: { log: ['start'] } });
    const { tasks } = await client.threads.getState(thread.thread_id);
    const checkpoint = tasks[0]?.checkpoint;
    if (!checkpoint) throw new Error('the subgraph task has no checkpoint');
    await replicas[1]?.threads.updateState(thread.thread_id, { values: { log: ['edited'] }, checkpoint });
    const after = await replicas[0]?.threads.getState(thread.thread_id, undefined, { subgraphs: true });
    const sub = after?.tasks[0]?.state as { values: { log: string[] } } | null;
    expect(sub?.values.log).toContain('edited');
  });

  it('takes a checkpoint object exactly as history gives it on runs create, stream and wait', async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'echo', { input: hello });
    const [latest] = await client.threads.getHistory(thread.thread_id);
    const checkpoint = latest?.checkpoint as unknown as Record<string, unknown>;
    expect(checkpoint).toHaveProperty('thread_id', thread.thread_id);
    // The SDK's type leaves thread_id out; the object given back as is has it.
    const options = { input: hello, checkpoint: checkpoint as never };
    const waited = (await client.runs.wait(thread.thread_id, 'echo', options)) as { messages: unknown[] };
    expect(waited.messages.length).toBeGreaterThan(0);
    const events = [];
    for await (const event of client.runs.stream(thread.thread_id, 'echo', options)) events.push(event.event);
    expect(events).not.toContain('error');
    const run = await client.runs.create(thread.thread_id, 'echo', options);
    await client.runs.join(thread.thread_id, run.run_id);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('success');

    const other = await client.threads.create();
    const refused = await post(`/threads/${other.thread_id}/runs/wait`, { assistant_id: 'echo', input: hello, checkpoint });
    expect(refused.status).toBe(422);
    expect(String(refused.json.detail)).toContain('checkpoint.thread_id');
  });

  it('creates a thread from supersteps that write its input (as_node "__input__")', async () => {
    const thread = await client.threads.create({ graphId: 'echo', supersteps: [{ updates: [{ values: hello, asNode: '__input__' }] }] });
    // As in LangGraph.js: the input waits on `__start__`, and a run with no input goes on from it.
    const state = await replicas[1]?.threads.getState(thread.thread_id);
    expect(state?.next).toEqual(['__start__']);
    const values = (await client.runs.wait(thread.thread_id, 'echo', { input: null })) as { messages: Array<{ content: string }> };
    expect(values.messages.map((m) => m.content)).toEqual(['hi', 'echo: hi']);
  });

  it("updates a factory graph's state with the thread's assistant's config", async () => {
    const assistant = await client.assistants.create({ graphId: 'factory', config: { configurable: { variant: 'wide' } } });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, assistant.assistant_id, { input: { log: ['go'] } });
    await replicas[0]?.threads.updateState(thread.thread_id, { values: { log: ['by extra'] }, asNode: 'extra' });
    const state = await replicas[1]?.threads.getState(thread.thread_id);
    expect((state?.values as { log: string[] }).log).toEqual(['go', 'first', 'extra', 'by extra']);
  });

  it("answers 422 naming the cause when the assistant's config makes its factory throw", async () => {
    const assistant = await client.assistants.create({ graphId: 'factory', config: { configurable: { variant: 'broken' } } });
    for (const route of ['schemas', 'graph', 'subgraphs']) {
      const res = await fetch(`http://127.0.0.1:${cluster.apis[1]?.port}/api/langgraph/assistants/${assistant.assistant_id}/${route}`);
      expect(res.status).toBe(422);
      const body = (await res.json()) as { detail: string };
      expect(body.detail).toContain('Graph "factory" could not be built');
      expect(body.detail).toContain('log');
    }
  });
});

describe('runs', () => {
  it('shows a cancelled pending run as interrupted as soon as the cancel answers, on any replica', async () => {
    const thread = await client.threads.create();
    const run = await replicas[0]!.runs.create(thread.thread_id, 'echo', { input: hello, afterSeconds: 3600 });
    await replicas[0]!.runs.cancel(thread.thread_id, run.run_id);
    // Read on the other replica, as the issue reads it (Warren's list answers `{runs: [...]}`).
    const res = await fetch(`http://127.0.0.1:${cluster.apis[1]?.port}/api/langgraph/threads/${thread.thread_id}/runs?status=interrupted`);
    const { runs } = (await res.json()) as { runs: Array<{ run_id: string }> };
    expect(runs.map((r) => r.run_id)).toContain(run.run_id);
  });
});

describe('LANGGRAPH_CONFIG', () => {
  it("becomes the system assistant's config and context, and its runs'", async () => {
    const assistant = await client.assistants.get('configEcho');
    expect(assistant.config).toMatchObject({ configurable: { model_name: 'openai' } });
    expect(assistant.context).toEqual({ model: 'small' });
    const thread = await client.threads.create();
    const values = (await client.runs.wait(thread.thread_id, 'configEcho', { input: {} })) as { seen: Record<string, unknown> };
    expect(values.seen).toEqual({ model_name: 'openai', context: { model: 'small' } });
  });
});

describe('new Client() inside a graph', () => {
  it("reaches this deployment, from either worker, through its configured URL", async () => {
    for (let i = 0; i < 4; i++) {
      const thread = await client.threads.create();
      const values = (await client.runs.wait(thread.thread_id, 'caller', { input: {} })) as { seen: Record<string, unknown> };
      expect(values.seen).toEqual({ thread_id: thread.thread_id, api_url: `${cluster.url}/api/langgraph` });
    }
  });
});

describe('dev mode truncate', () => {
  it('wipes threads, runs, assistants (keeping the system ones) and the store', async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'echo', { input: hello });
    const assistant = await client.assistants.create({ graphId: 'echo' });
    await client.store.putItem(['notes'], 'a', { text: 'x' });

    const answer = await post('/internal/truncate', { runs: true, threads: true, assistants: true, checkpointer: true, store: true });
    expect(answer).toEqual({ status: 200, json: { ok: true } });

    expect(await client.threads.search({ limit: 100 })).toEqual([]);
    const assistants = await client.assistants.search({ limit: 100 });
    expect(assistants.map((a) => a.assistant_id)).not.toContain(assistant.assistant_id);
    expect(assistants.map((a) => a.assistant_id)).toContain('echo');
    expect(await client.store.getItem(['notes'], 'a')).toBeNull();
  });

  it('refuses a flag it does not know by name', async () => {
    const answer = await post('/internal/truncate', { everything: true });
    expect(answer.status).toBe(422);
  });
});
