// Issue #32's one LangGraph.js project with everything (test/fixtures/langgraph-app, with its own
// node_modules: other versions of @langchain/langgraph, core, zod, the SDK and hono than Warren's),
// checked the same way however it was started: by `npm start` (langgraph-app-npm-start.test.ts)
// or as 2 API processes and 2 workers behind nginx (langgraph-app.test.ts). Every check goes
// through each API process it is given, and a check that spans two requests makes them on two
// different processes when there are two.
//   graphs: a `.mts` graph typed with Annotations and TypeScript types (schemas derived from the
//           types, which resolve from the project's own copy of @langchain/langgraph), a zod graph
//           registered with the project's zod registry, a factory; `env`: LANGGRAPH_CONFIG;
//   http.app: routes, a body-mutating middleware, a streaming route, an HTTPException, a route
//           calling `new Client()` with no URL; `configurable_headers`;
//   ui: a `.tsx` component, loaded through the SDK's `getComponent`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import { createElement, type FunctionComponent } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { collect } from '../support/sse.js';
import { closeUiPage, openUiPage } from '../support/ui-page.js';

export const LANGGRAPH_APP = fileURLToPath(new URL('../fixtures/langgraph-app/langgraph.json', import.meta.url));
export const DEPLOYMENT_KEY = 'test-deployment-key-0123456789';

export interface AppTarget {
  /** http://127.0.0.1:<port> of each API process. */
  replicas: string[];
}

const authed = { 'x-api-key': DEPLOYMENT_KEY };

// The typed graph's schemas, in the shapes LangGraph's server documents for types: draft-07, no
// `required`, an interface named by its members, a doc comment as the description. LangGraph's
// server reports the graph's input type (what a run accepts) as its state (its parser reads the
// compiled graph's RunInput), and its context schema is its config schema.
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const FORECAST = '{degrees:number;unit:Unit;summary?:string|undefined;}';
const TYPED_INPUT = { type: 'object', properties: { city: { type: 'string' } }, $schema: DRAFT_07 };
const TYPED_OUTPUT = {
  type: 'object',
  properties: { forecast: { anyOf: [{ $ref: `#/definitions/${FORECAST}` }, { type: 'null' }] }, asked: { type: 'number' } },
  $schema: DRAFT_07,
  definitions: {
    [FORECAST]: {
      type: 'object',
      properties: {
        degrees: { description: 'The temperature, in the unit the run was configured with.', type: 'number' },
        unit: { $ref: '#/definitions/Unit' },
        summary: { type: 'string' },
      },
    },
    Unit: { enum: ['celsius', 'fahrenheit'], type: 'string' },
  },
};
const TYPED_CONFIG = { type: 'object', properties: { unit: { enum: ['celsius', 'fahrenheit'], type: 'string' } }, $schema: DRAFT_07 };
export const TYPED_SCHEMAS = {
  graph_id: 'typed',
  input_schema: TYPED_INPUT,
  output_schema: TYPED_OUTPUT,
  state_schema: TYPED_INPUT,
  config_schema: TYPED_CONFIG,
  context_schema: TYPED_CONFIG,
};

/** The first compile of the typed graph's file takes long on a loaded 2-core machine. */
const SCHEMA_WAIT = 240_000;

/** The checks every way of starting the project must pass; `target` is read once the stack runs. */
export function describeLangGraphApp(target: () => AppTarget): void {
  const replicas = () => target().replicas;
  /** The process after `index`'s (itself when there is one). */
  const other = (index: number) => replicas()[(index + 1) % replicas().length] as string;
  const sdk = (base: string, defaultHeaders?: Record<string, string>) => new Client({ apiUrl: `${base}/api/langgraph`, apiKey: DEPLOYMENT_KEY, defaultHeaders });

  describe('http.app: the project’s own routes', () => {
    it('answer at the root and under /api/langgraph of every process, with LangGraph’s paths', async () => {
      for (const base of replicas()) {
        for (const prefix of ['', '/api/langgraph']) {
          const res = await fetch(`${base}${prefix}/hello?x=1`, { headers: authed });
          expect(res.status).toBe(200);
          expect(await res.json()).toEqual({ hello: 'world', path: '/hello' });
          expect(res.headers.get('x-project-middleware')).toBe('seen /hello');
        }
      }
    });

    it('are behind Warren’s auth like every route', async () => {
      const res = await fetch(`${replicas()[0]}/hello`);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ detail: expect.any(String) });
    });

    it('read the request body as sent', async () => {
      const res = await fetch(`${other(0)}/api/langgraph/echo`, { method: 'POST', headers: { ...authed, 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ got: { a: [1, 2] } });
    });

    it('stream: the body arrives in chunks, without a length', async () => {
      const res = await fetch(`${replicas()[0]}/count`, { headers: authed });
      expect(res.headers.get('content-length')).toBeNull();
      const chunks: string[] = [];
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) chunks.push(decoder.decode(chunk));
      expect(chunks.join('')).toBe('tick 1\ntick 2\ntick 3\n');
    });

    it('an HTTPException becomes its status, not a 500', async () => {
      const res = await fetch(`${other(0)}/teapot`, { headers: authed });
      expect(res.status).toBe(418);
      expect(await res.text()).toBe('short and stout');
    });

    it('`new Client()` inside a route reaches this deployment, with the deployment’s key', async () => {
      for (const base of replicas()) {
        const res = await fetch(`${base}/assistant-count`, { headers: authed });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { ids: string[] };
        // The project's graphs, beside Warren's own.
        expect(body.ids).toEqual(expect.arrayContaining(['held', 'made', 'typed', 'zodded']));
      }
    });

    it('never shadow Warren’s own routes', async () => {
      const ok = await fetch(`${replicas()[0]}/ok`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-project-middleware')).toBeNull();
      const models = await fetch(`${replicas()[0]}/api/models`, { headers: authed });
      expect(models.status).toBe(200);
      expect(models.headers.get('x-project-middleware')).toBeNull();
      // A path neither serves: Warren's 404.
      const missing = await fetch(`${other(0)}/nowhere`, { headers: authed });
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ detail: expect.stringContaining('/nowhere') });
    });
  });

  describe('http.app: its middleware in front of LangGraph’s routes', () => {
    it('sees LangGraph’s paths and adds its header to Warren’s answers', async () => {
      const res = await fetch(`${replicas()[0]}/api/langgraph/assistants/search`, { method: 'POST', headers: { ...authed, 'content-type': 'application/json' }, body: '{"limit":5}' });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-project-middleware')).toBe('seen /assistants/search');
      expect(Array.isArray(await res.json())).toBe(true);
    });

    it('rewrites a run’s body (a header into config.configurable) on every process; configurable_headers adds x-tenant-*', async () => {
      for (const base of replicas()) {
        const client = sdk(base, { 'x-user': 'alice', 'x-tenant-region': 'eu', 'x-tenant-id': 't-42' });
        const { thread_id: threadId } = await client.threads.create();
        const values = (await client.runs.wait(threadId, 'zodded', { input: { log: [] } })) as { log: string[]; tenant: string };
        expect(values).toEqual({ log: ['region=eu id=none'], tenant: 'alice' });
      }
      // On a shared 2-core machine a cold worker can take long to load the project's packages.
    }, 180_000);

    it('lets a run’s SSE stream through as it streams', async () => {
      const client = sdk(other(0), { 'x-user': 'bob' });
      const { thread_id: threadId } = await client.threads.create();
      const events = await collect(client.runs.stream(threadId, 'zodded', { input: { log: [] }, streamMode: ['values'] }));
      expect(events.filter((e) => e.event === 'values').at(-1)?.data).toEqual({ log: ['region=none id=none'], tenant: 'bob' });
    }, 180_000);
  });

  describe('graphs from the project’s own packages', () => {
    it('resolve @langchain/langgraph, core and zod from the project’s node_modules, other versions than Warren’s', () => {
      const project = path.dirname(LANGGRAPH_APP);
      const versionFrom = (dir: string, name: string) => {
        const manifest = createRequire(path.join(dir, 'x.js')).resolve(`${name}/package.json`);
        return { manifest, version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version };
      };
      for (const name of ['@langchain/langgraph', '@langchain/core', 'zod']) {
        const theirs = versionFrom(path.join(project, 'src'), name);
        expect(theirs.manifest.startsWith(path.join(project, 'node_modules'))).toBe(true);
        expect(theirs.version).not.toBe(versionFrom(import.meta.dirname, name).version);
      }
    });

    it('a factory’s system assistant carries LANGGRAPH_CONFIG from the project’s env', async () => {
      const client = sdk(replicas()[0] as string);
      const { thread_id: threadId } = await client.threads.create();
      const values = (await client.runs.wait(threadId, 'made', { input: { log: [] } })) as { log: string[] };
      expect(values.log).toEqual(['hello from LANGGRAPH_CONFIG']);
      expect((await sdk(other(0)).assistants.get('made')).config).toMatchObject({ configurable: { greeting: 'hello from LANGGRAPH_CONFIG' } });
    }, 180_000);

    it('a zod graph’s registry extras (the project’s copy of the registry) show in its schemas', async () => {
      for (const base of replicas()) {
        const schemas = await sdk(base).assistants.getSchemas('zodded');
        const log = (schemas.state_schema as { properties: Record<string, Record<string, unknown>> }).properties.log;
        expect(log).toMatchObject({ type: 'array', items: { type: 'string' }, langgraph_type: 'messages' });
      }
    });

    it('a graph typed with Annotations and TypeScript types gets its schemas from its types', async () => {
      for (const base of replicas()) {
        expect(await sdk(base).assistants.getSchemas('typed')).toEqual(TYPED_SCHEMAS);
        expect(await sdk(base).assistants.getSubgraphs('typed')).toEqual({});
      }
      const drawn = (await sdk(replicas()[0] as string).assistants.getGraph('typed')) as unknown as { nodes: { id: string; data: Record<string, unknown> }[] };
      expect(drawn.nodes.find((node) => node.id === '__start__')?.data).toMatchObject({ title: '__start__', properties: TYPED_INPUT.properties });
      expect(drawn.nodes.find((node) => node.id === '__end__')?.data).toMatchObject({ title: '__end__', properties: TYPED_OUTPUT.properties });
    }, SCHEMA_WAIT);

    it('runs the typed graph with its configured unit, the run on one process and its state read on the other', async () => {
      const one = sdk(replicas()[0] as string);
      const { thread_id: threadId } = await one.threads.create();
      const output = await one.runs.wait(threadId, 'typed', { input: { city: 'Lyon' }, config: { configurable: { unit: 'fahrenheit' } } });
      const state = { city: 'Lyon', forecast: { degrees: 70, unit: 'fahrenheit', summary: 'sunny in Lyon' }, asked: 1 };
      // As LangGraph's server answers /runs/wait: the last `values` event, which is the whole state.
      expect(output).toEqual(state);
      expect((await sdk(other(0)).threads.getState(threadId)).values).toEqual(state);
    }, 180_000);
  });

  describe('ui: the project’s .tsx component', () => {
    it('getComponent answers LangGraph’s snippet, whose script every process serves alike', async () => {
      const html = await sdk(replicas()[0] as string)['~ui'].getComponent('typed', 'forecast');
      const scriptUrl = /<script src="([^"]+)"/.exec(html)?.[1];
      expect(scriptUrl).toBe(`${replicas()[0]}/api/langgraph/ui/typed/entrypoint.js`);
      expect(html).toContain('{{shadowRootId}}');
      expect(html).toContain('"forecast"');
      const here = await fetch(scriptUrl as string);
      expect(here.status).toBe(200);
      expect(here.headers.get('content-type')).toMatch(/javascript/);
      const script = await here.text();
      // React is the page's, never bundled; the component is.
      expect(script).toContain('forecast');
      expect(script).not.toMatch(/react-dom\.production/);
      expect(await (await fetch(`${other(0)}/ui/typed/entrypoint.js`)).text()).toBe(script);
    });

    it('renders through the SDK’s loading path: the snippet’s script puts the component where LoadExternalComponent reads it', async () => {
      const html = await sdk(other(0))['~ui'].getComponent('typed', 'forecast');
      const page = await openUiPage();
      try {
        const { scriptUrl, comp } = await page.mount(html);
        expect(scriptUrl).toBe(`${other(0)}/api/langgraph/ui/typed/entrypoint.js`);
        const props = { city: 'Lyon', forecast: { degrees: 70, unit: 'fahrenheit', summary: 'sunny in Lyon' } };
        expect(renderToString(createElement(comp as FunctionComponent<typeof props>, props))).toBe('<p class="forecast">Lyon<!-- -->: <!-- -->70<!-- -->°F</p>');
      } finally {
        closeUiPage();
      }
    });

    it('refuses a component the file does not export with 404 {detail}', async () => {
      const res = await fetch(`${other(0)}/api/langgraph/ui/typed`, { method: 'POST', headers: { ...authed, 'content-type': 'application/json' }, body: '{"name":"radar"}' });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: expect.stringContaining('"radar"') });
    });
  });
}
