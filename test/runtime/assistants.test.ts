// /api/langgraph/assistants through the LangGraph SDK: create, read, PATCH into versions, latest,
// search, count, schemas, graph, subgraphs and delete, stored in Redis so another replica sees
// them; a run of a created assistant gets its config merged under the run's own.
import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayApp, type GatewayApp } from '../gateway/gateway-app.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

let stack: Stack;
let client: Client;
let replica: GatewayApp;
const graphs = testGraphs('counter', 'echo');

beforeAll(async () => {
  stack = await startStack({ config: { graphs } });
  client = stack.client;
  // A second API process's app on the same Redis.
  replica = await startGatewayApp({ config: { graphs } });
});
afterAll(async () => {
  await replica?.close();
  await stack?.close();
});

const unique = (prefix: string) => `${prefix} ${randomUUID().slice(0, 8)}`;
const status = async (promise: Promise<unknown>) => promise.then(() => 200, (err: { status?: number }) => err.status ?? 0);

describe('assistants', () => {
  it('are created, read on another replica, versioned by PATCH, set back with latest, and deleted', async () => {
    const name = unique('Counter To Two');
    const created = await client.assistants.create({
      graphId: 'counter',
      name,
      description: 'counts to two',
      config: { configurable: { target: 2 } },
      context: { tone: 'dry' },
      metadata: { team: 'a' },
    });
    expect(created).toMatchObject({ graph_id: 'counter', name, version: 1, config: { configurable: { target: 2 } }, context: { tone: 'dry' }, metadata: { team: 'a' } });
    const elsewhere = await replica.api.app.inject({ method: 'GET', url: `/api/langgraph/assistants/${created.assistant_id}` });
    expect(elsewhere.json()).toMatchObject({ assistant_id: created.assistant_id, name, version: 1 });

    expect(await status(client.assistants.create({ graphId: 'counter', assistantId: created.assistant_id }))).toBe(409);
    const same = await client.assistants.create({ graphId: 'counter', assistantId: created.assistant_id, ifExists: 'do_nothing' });
    expect(same.version).toBe(1);

    const patched = await client.assistants.update(created.assistant_id, { config: { configurable: { target: 3 } }, metadata: { stage: 'b' } });
    expect(patched).toMatchObject({ version: 2, config: { configurable: { target: 3 } }, metadata: { team: 'a', stage: 'b' } });
    const versions = await client.assistants.getVersions(created.assistant_id);
    expect(versions.map((v) => v.version)).toEqual([2, 1]);
    const back = await client.assistants.setLatest(created.assistant_id, 1);
    expect(back).toMatchObject({ version: 1, config: { configurable: { target: 2 } } });
    expect((await client.assistants.get(created.assistant_id)).version).toBe(1);

    await client.assistants.delete(created.assistant_id);
    expect(await status(client.assistants.get(created.assistant_id))).toBe(404);
  });

  it('are found by name substring (any case), graph and metadata, and counted', async () => {
    const tag = randomUUID();
    const a = await client.assistants.create({ graphId: 'echo', name: `Echo Alpha ${tag}`, metadata: { tag } });
    await client.assistants.create({ graphId: 'counter', name: `Counter Beta ${tag}`, metadata: { tag } });
    const byName = await client.assistants.search({ name: `alpha ${tag}`.toUpperCase() });
    expect(byName.map((x) => x.assistant_id)).toEqual([a.assistant_id]);
    const byMeta = await client.assistants.search({ metadata: { tag }, limit: 10 });
    expect(byMeta).toHaveLength(2);
    const echoes = await client.assistants.search({ metadata: { tag }, graphId: 'echo' });
    expect(echoes.map((x) => x.graph_id)).toEqual(['echo']);
    expect(await client.assistants.count({ metadata: { tag } })).toBe(2);
    // The system assistant of each graph is listed too, under its graph id.
    const system = await client.assistants.search({ graphId: 'counter', metadata: { created_by: 'system' } });
    expect(system.map((x) => x.assistant_id)).toEqual(['counter']);
  });

  it('describe their graph: schemas, drawable graph and subgraphs', async () => {
    const created = await client.assistants.create({ graphId: 'counter', name: unique('schemas') });
    const schemas = await client.assistants.getSchemas(created.assistant_id);
    expect(schemas.graph_id).toBe('counter');
    expect(schemas).toHaveProperty('state_schema');
    expect(schemas).toHaveProperty('config_schema');
    const drawn = (await client.assistants.getGraph(created.assistant_id)) as { nodes: { id: string }[] };
    expect(drawn.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(['step', 'done']));
    expect(await client.assistants.getSubgraphs(created.assistant_id)).toEqual({});
    // The first schemas of a TypeScript graph are derived from its types: seconds of CPU, over a
    // minute on a busy machine (test/runtime/type-schemas.test.ts checks what they say).
  }, 240_000);

  it('merges its config into every run that uses it, the run’s own values winning', async () => {
    const created = await client.assistants.create({ graphId: 'counter', name: unique('two'), config: { configurable: { target: 2 } } });
    const { thread_id: threadId } = await client.threads.create();
    const values = (await client.runs.wait(threadId, created.assistant_id, { input: { count: 0 } })) as { count: number };
    expect(values.count).toBe(2);
    const [run] = await client.runs.list(threadId).then((r) => (Array.isArray(r) ? r : (r as unknown as { runs: { assistant_id: string }[] }).runs));
    expect(run?.assistant_id).toBe(created.assistant_id);
    expect((await client.threads.get(threadId)).metadata).toMatchObject({ graph_id: 'counter', assistant_id: created.assistant_id });
    const { thread_id: other } = await client.threads.create();
    const overridden = (await client.runs.wait(other, created.assistant_id, { input: { count: 0 }, config: { configurable: { target: 4 } } })) as { count: number };
    expect(overridden.count).toBe(4);
  });

  it('keep system assistants read-only, and refuse unknown graphs and fields by name', async () => {
    expect(await status(client.assistants.update('counter', { name: 'x' }))).toBe(409);
    expect(await status(client.assistants.delete('counter'))).toBe(409);
    expect(await status(client.assistants.create({ graphId: 'no-such-graph' }))).toBe(404);
    const extra = await fetch(`${stack.apiUrl}/assistants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ graph_id: 'echo', colour: 'red' }),
    });
    expect(extra.status).toBe(422);
    expect(((await extra.json()) as { detail: string }).detail).toMatch(/colour/);
    expect(await status(client.runs.wait(null, randomUUID(), { input: {} }))).toBe(404);
  });
});
