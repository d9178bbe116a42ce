// A LangGraph.js project (test/fixtures/graphs/langgraph-project) hosted unchanged through its
// langgraph.json, by the production topology: two API processes and two workers from dist/,
// behind nginx, on a real Redis. The graphs are a Promise export, a factory, a default-exported
// `.mts` with type-only imports written without `import type`, one using the SDK's logger, one
// that fails, and one with a subgraph; each runs through the LangGraph SDK.
import { fileURLToPath } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { collect, type SseEvent } from '../support/sse.js';
import { waitFor } from '../support/wait-for.js';

const PROJECT = fileURLToPath(new URL('../fixtures/graphs/langgraph-project/langgraph.json', import.meta.url));

let cluster: Cluster;
let client: Client;
/** One client per API process, to show each replica serves what another started. */
let replicas: Client[];
beforeAll(async () => {
  buildDist();
  cluster = await startCluster({ apis: 2, workers: 2, config: { langgraph_json: PROJECT } });
  client = new Client({ apiUrl: `${cluster.url}/api/langgraph` });
  replicas = cluster.apis.map((api) => new Client({ apiUrl: `http://127.0.0.1:${api.port}/api/langgraph` }));
}, 240_000);
afterAll(async () => cluster?.stop(), 60_000);

type LogValues = { log: string[] };

async function run(graph: string, config: Record<string, unknown> = {}): Promise<{ threadId: string; values: LogValues }> {
  const { thread_id: threadId } = await client.threads.create();
  const values = (await client.runs.wait(threadId, graph, { input: { log: [] }, config })) as LogValues;
  return { threadId, values };
}

describe('a LangGraph.js project through its langgraph.json', () => {
  it('lists its graphs as assistants beside the built-in one', async () => {
    const ids = (await client.assistants.search({ limit: 50 })).map((a) => a.graph_id);
    expect(ids).toEqual(expect.arrayContaining(['promised', 'factory', 'typeonly', 'logging', 'failing', 'nested', 'lead_agent']));
  });

  it('a graph exported as a Promise', async () => {
    const { threadId, values } = await run('promised');
    expect(values.log).toEqual(['promised']);
    // The other replica reads the state through the same graph module.
    expect((await (replicas[1] as Client).threads.getState<LogValues>(threadId)).values.log).toEqual(['promised']);
  });

  it('a factory, called with each run’s config, its StateGraph compiled, with the project’s env', async () => {
    const alice = await run('factory', { configurable: { who: 'alice' } });
    const bob = await run('factory', { configurable: { who: 'bob' } });
    expect(alice.values.log).toEqual(['greetings from .env, alice']);
    expect(bob.values.log).toEqual(['greetings from .env, bob']);
    expect((await (replicas[0] as Client).threads.getState<LogValues>(bob.threadId)).values.log).toEqual(['greetings from .env, bob']);
  });

  it('a default-exported .mts with type-only imports written without `import type`', async () => {
    const { threadId, values } = await run('typeonly');
    expect(values.log).toEqual(['typed hello, calm', 'DONE']);
    for (const replica of replicas) expect((await replica.threads.getState<LogValues>(threadId)).values.log).toEqual(values.log);
  });

  it('the SDK logger, in the worker’s log', async () => {
    const { values } = await run('logging');
    expect(values.log).toEqual(['logged']);
    const line = await waitFor(
      async () => cluster.workers.flatMap((w) => w.lines).find((l) => l.includes('sdk-logger-marker')),
      'the graph’s log line',
    );
    expect(JSON.parse(line)).toMatchObject({ msg: 'graph logger works', marker: 'sdk-logger-marker', component: 'graph', level: 40 });
  });

  it('a graph that fails: an error event, and the run in status error', async () => {
    const { thread_id: threadId } = await client.threads.create();
    const events = await collect(client.runs.stream(threadId, 'failing', { input: { log: [] }, streamMode: ['values'] }));
    const error = events.find((e) => e.event === 'error')?.data as { message: string };
    expect(error.message).toContain('deliberate failure in a node');
    expect(events.at(-1)?.event).toBe('end');
    // Warren answers `{runs}` here, as the spec says (README, LangGraph conventions).
    const [stored] = ((await client.runs.list(threadId)) as unknown as { runs: { status: string }[] }).runs;
    expect(stored?.status).toBe('error');
  });

  it('a subgraph: namespaced events, and its state under the parent task', async () => {
    const { thread_id: threadId } = await client.threads.create();
    const events: SseEvent[] = await collect(
      client.runs.stream(threadId, 'nested', { input: { log: [] }, streamMode: ['values', 'updates'], streamSubgraphs: true }),
    );
    expect(events.some((e) => /^updates\|child:/.test(e.event))).toBe(true);
    expect(events.filter((e) => e.event === 'values').at(-1)?.data).toEqual({ log: ['inner', 'outer'] });
    const history = await (replicas[1] as Client).threads.getHistory<LogValues>(threadId, { limit: 10 });
    const beforeChild = history.find((h) => h.next.includes('child'));
    expect(beforeChild?.tasks[0]).toMatchObject({ name: 'child', checkpoint: { thread_id: threadId, checkpoint_ns: expect.stringMatching(/^child:/) } });
  });

  it('debug, checkpoints and tasks from a worker process: wire shapes, no internal configuration', async () => {
    const { thread_id: threadId } = await client.threads.create();
    const events = await collect(
      client.runs.stream(threadId, 'nested', { input: { log: [] }, streamMode: ['debug', 'checkpoints', 'tasks'], streamSubgraphs: true }),
    );
    const checkpoint = events.find((e) => e.event === 'debug' && (e.data as { type: string }).type === 'checkpoint')?.data as {
      payload: Record<string, unknown>;
    };
    expect(checkpoint.payload.checkpoint).toMatchObject({ thread_id: threadId, checkpoint_ns: '', checkpoint_id: expect.any(String) });
    expect(events.some((e) => e.event.startsWith('checkpoints|child:'))).toBe(true);
    // The worker's config holds its fenced checkpointer and abort signal: none of it may show.
    const text = JSON.stringify(events);
    // As keys: a task's `path` value (`["__pregel_pull", "child"]`) is LangGraph's wire format.
    for (const internal of [/"__pregel\w*":/, /"callbacks":/, /"checkpointer":/, /"signal":/, /FencedCheckpointSaver/]) expect(text).not.toMatch(internal);
  });
});
