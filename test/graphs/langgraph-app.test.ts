// Issue #32: a LangGraph.js project with its own node_modules (other versions of
// @langchain/langgraph, core, zod, the SDK and hono than Warren's), hosted unchanged through its
// langgraph.json by two API processes and two workers from dist/, behind nginx, with API keys on:
// `http.app` (routes at the root and under /api/langgraph, a middleware in front of LangGraph's
// routes that rewrites run bodies and adds a header, a streaming route, an HTTPException, a route
// calling `new Client()`), `http.configurable_headers`, LANGGRAPH_CONFIG from `env`, a factory and
// a zod graph registered with the project's LangGraph zod registry.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { installProjectDeps } from '../support/project-deps.js';
import { collect } from '../support/sse.js';

const PROJECT = fileURLToPath(new URL('../fixtures/langgraph-app/langgraph.json', import.meta.url));
const KEY = 'test-deployment-key-0123456789';

let cluster: Cluster;
let client: Client;
/** The base URL of each API process, to show each replica serves the app. */
let replicas: string[];
beforeAll(async () => {
  installProjectDeps(path.dirname(PROJECT));
  buildDist();
  cluster = await startCluster({ apis: 2, workers: 2, config: { langgraph_json: PROJECT }, env: { WARREN_API_KEYS: KEY } });
  client = new Client({ apiUrl: `${cluster.url}/api/langgraph`, apiKey: KEY });
  replicas = cluster.apis.map((api) => `http://127.0.0.1:${api.port}`);
}, 300_000);
afterAll(async () => cluster?.stop(), 60_000);

const authed = { 'x-api-key': KEY };

describe('http.app: the project’s own routes', () => {
  it('answer at the root and under /api/langgraph of every replica, with LangGraph’s paths', async () => {
    for (const base of replicas) {
      for (const prefix of ['', '/api/langgraph']) {
        const res = await fetch(`${base}${prefix}/hello?x=1`, { headers: authed });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ hello: 'world', path: '/hello' });
        expect(res.headers.get('x-project-middleware')).toBe('seen /hello');
      }
    }
    // Through nginx, which serves /api/ only.
    expect(await (await fetch(`${cluster.url}/api/langgraph/hello`, { headers: authed })).json()).toMatchObject({ hello: 'world' });
  });

  it('are behind Warren’s auth like every route', async () => {
    const res = await fetch(`${replicas[0]}/hello`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: expect.any(String) });
  });

  it('read the request body as sent', async () => {
    const res = await fetch(`${replicas[1]}/api/langgraph/echo`, { method: 'POST', headers: { ...authed, 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ got: { a: [1, 2] } });
  });

  it('stream: the body arrives in chunks, without a length', async () => {
    const res = await fetch(`${replicas[0]}/count`, { headers: authed });
    expect(res.headers.get('content-length')).toBeNull();
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) chunks.push(decoder.decode(chunk));
    expect(chunks.join('')).toBe('tick 1\ntick 2\ntick 3\n');
  });

  it('an HTTPException becomes its status, not a 500', async () => {
    const res = await fetch(`${replicas[1]}/teapot`, { headers: authed });
    expect(res.status).toBe(418);
    expect(await res.text()).toBe('short and stout');
  });

  it('`new Client()` inside a route reaches this deployment, with the deployment’s key', async () => {
    for (const base of replicas) {
      const res = await fetch(`${base}/assistant-count`, { headers: authed });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { ids: string[] };
      expect(body.ids).toEqual(expect.arrayContaining(['made', 'zodded']));
    }
  });

  it('never shadow Warren’s own routes', async () => {
    const ok = await fetch(`${replicas[0]}/ok`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-project-middleware')).toBeNull();
    const models = await fetch(`${replicas[0]}/api/models`, { headers: authed });
    expect(models.status).toBe(200);
    expect(models.headers.get('x-project-middleware')).toBeNull();
    // A path neither serves: Warren's 404.
    const missing = await fetch(`${replicas[1]}/nowhere`, { headers: authed });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: expect.stringContaining('/nowhere') });
  });
});

describe('http.app: its middleware in front of LangGraph’s routes', () => {
  it('sees LangGraph’s paths and adds its header to Warren’s answers', async () => {
    const res = await fetch(`${replicas[0]}/api/langgraph/assistants/search`, { method: 'POST', headers: { ...authed, 'content-type': 'application/json' }, body: '{"limit":5}' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-project-middleware')).toBe('seen /assistants/search');
    expect(Array.isArray(await res.json())).toBe(true);
  });

  it('rewrites a run’s body (a header into config.configurable) on every replica; configurable_headers adds x-tenant-*', async () => {
    for (const base of replicas) {
      const headers = { 'x-user': 'alice', 'x-tenant-region': 'eu', 'x-tenant-id': 't-42' };
      const sdk = new Client({ apiUrl: `${base}/api/langgraph`, apiKey: KEY, defaultHeaders: headers });
      const { thread_id: threadId } = await sdk.threads.create();
      const values = (await sdk.runs.wait(threadId, 'zodded', { input: { log: [] } })) as { log: string[]; tenant: string };
      expect(values).toEqual({ log: ['region=eu id=none'], tenant: 'alice' });
    }
    // On a shared 2-core machine a cold worker can take long to load the project's packages.
  }, 180_000);

  it('lets a run’s SSE stream through as it streams', async () => {
    const sdk = new Client({ apiUrl: `${cluster.url}/api/langgraph`, apiKey: KEY, defaultHeaders: { 'x-user': 'bob' } });
    const { thread_id: threadId } = await sdk.threads.create();
    const events = await collect(sdk.runs.stream(threadId, 'zodded', { input: { log: [] }, streamMode: ['values'] }));
    expect(events.filter((e) => e.event === 'values').at(-1)?.data).toEqual({ log: ['region=none id=none'], tenant: 'bob' });
  });
});

describe('graphs from the project’s own packages', () => {
  it('a factory’s system assistant carries LANGGRAPH_CONFIG from the project’s env', async () => {
    const { thread_id: threadId } = await client.threads.create();
    const values = (await client.runs.wait(threadId, 'made', { input: { log: [] } })) as { log: string[] };
    expect(values.log).toEqual(['hello from LANGGRAPH_CONFIG']);
  });

  it('a zod graph’s registry extras (the project’s copy of the registry) show in its schemas', async () => {
    const schemas = await client.assistants.getSchemas('zodded');
    const log = (schemas.state_schema as { properties: Record<string, Record<string, unknown>> }).properties.log;
    expect(log).toMatchObject({ type: 'array', items: { type: 'string' }, langgraph_type: 'messages' });
  });
});
