// Generative UI (#32): a LangGraph.js project's `ui` components (test/fixtures/langgraph-ui),
// bundled at start by @langchain/langgraph-ui and served as LangGraph's server serves them, on 2
// API replicas and 2 workers: the snippet `POST /ui/{graph}` answers, the files behind it, at the
// root and under /api/langgraph, and the SDK's own loading path (`getComponent`, then the
// script's `render` into LoadExternalComponent's store) ending in the component's HTML.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import { createElement, type FunctionComponent } from 'react';
import { renderToString } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, type ApiServer } from '../../src/api-server.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { startStack, type Stack } from '../support/stack.js';
import { closeUiPage, openUiPage, type UiPage } from '../support/ui-page.js';

const PROJECT = fileURLToPath(new URL('../fixtures/langgraph-ui/langgraph.json', import.meta.url));

let stack: Stack;
let second: ApiServer;
/** http://127.0.0.1:<port> of each API replica. */
let replicas: string[];
let page: UiPage;

beforeAll(async () => {
  // Loaded before the stack: the API and the workers share this process, and a module this size
  // loading while requests are in flight holds their Redis replies up.
  page = await openUiPage();
  stack = await startStack({ config: { langgraph_json: PROJECT }, workers: 2 });
  // The second replica reads the same files, and bundles them for itself.
  second = await createApiServer({ env: { ...stack.env, instanceId: 'test-api-2' }, loaded: loadAppConfig({ WARREN_CONFIG: path.join(stack.home, 'config.yaml') }) });
  replicas = [stack.url, await second.app.listen({ port: 0, host: '127.0.0.1' })];
  // The graph module too (the workers import the one the API loaded).
  expect((await fetch(`${stack.apiUrl}/assistants/agent/graph`)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await second?.close();
  await stack?.close();
  closeUiPage();
});

const postUi = (base: string, graph: string, body: unknown) =>
  fetch(`${base}/ui/${graph}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/html' }, body: JSON.stringify(body) });

async function expectDetail(res: Response, status: number, detail: RegExp | string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { detail: string };
  if (typeof detail === 'string') expect(body.detail).toBe(detail);
  else expect(body.detail).toMatch(detail);
}

describe('POST /ui/{graph}', () => {
  it("answers LangGraph's snippet on either replica, at the root and under /api/langgraph, pointing under the prefix it was asked on", async () => {
    for (const base of replicas) {
      for (const prefix of ['', '/api/langgraph']) {
        const res = await postUi(`${base}${prefix}`, 'agent', { name: 'weather' });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/html');
        // `http://` because the host is a loopback one (LangGraph's rule); `//host` elsewhere.
        expect(await res.text()).toBe(
          [
            `<link rel="stylesheet" href="${base}${prefix}/ui/agent/entrypoint.css" />`,
            `<script src="${base}${prefix}/ui/agent/entrypoint.js" onload='__LGUI_agent.render("weather", "{{shadowRootId}}")'></script>`,
          ].join('\n'),
        );
      }
    }
  });

  it('gives a graph without styles its script alone, under the global the bundler names after the graph', async () => {
    const res = await postUi(`${replicas[1]}/api/langgraph`, 'other.ui', { name: 'note' });
    expect(await res.text()).toBe(
      `<script src="${replicas[1]}/api/langgraph/ui/other.ui/entrypoint.js" onload='__LGUI_other_ui.render("note", "{{shadowRootId}}")'></script>`,
    );
  });

  it('refuses a component the file does not export; serves any name when only its imports could tell', async () => {
    await expectDetail(
      await postUi(`${replicas[1]}/api/langgraph`, 'agent', { name: 'forecast' }),
      404,
      'The UI of graph "agent" has no component "forecast"; it has "weather", "stock".',
    );
    // `open` re-exports its components from another module: any name is served, written so that
    // it cannot leave the attribute it sits in.
    const text = await (await postUi(replicas[0] as string, 'open', { name: `x'><img src=y onerror=alert(1)>` })).text();
    expect(text).toContain(`onload='__LGUI_open.render("x\\u0027\\u003e\\u003cimg src=y onerror=alert(1)\\u003e", "{{shadowRootId}}")'`);
  });

  it('refuses a graph without UI (404), and a body that is not {name} (422), with {detail}', async () => {
    for (const prefix of ['', '/api/langgraph']) {
      await expectDetail(await postUi(`${replicas[0]}${prefix}`, 'nope', { name: 'weather' }), 404, /No generative UI for graph "nope"/);
    }
    // A graph the deployment runs is not enough: the built-in lead_agent has no `ui`.
    await expectDetail(await postUi(replicas[1] as string, 'lead_agent', { name: 'weather' }), 404, /"lead_agent"/);
    await expectDetail(await postUi(replicas[0] as string, 'agent', { name: 7 }), 422, /name/);
    await expectDetail(await postUi(replicas[0] as string, 'agent', {}), 422, /name/);
    await expectDetail(await postUi(replicas[1] as string, 'agent', { name: 'weather', props: {} }), 422, /props/);
  });
});

describe('GET /ui/{graph}/{file}', () => {
  it('serves the bundle with its content types, the same bytes from either replica, React and `ui_config.shared` left out', async () => {
    const bodies: Record<string, string[]> = { 'entrypoint.js': [], 'entrypoint.css': [] };
    for (const base of replicas) {
      for (const prefix of ['', '/api/langgraph']) {
        const js = await fetch(`${base}${prefix}/ui/agent/entrypoint.js`);
        expect(js.status).toBe(200);
        expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
        bodies['entrypoint.js']?.push(await js.text());
        const css = await fetch(`${base}${prefix}/ui/agent/entrypoint.css`);
        expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
        bodies['entrypoint.css']?.push(await css.text());
      }
    }
    for (const copies of Object.values(bodies)) expect(new Set(copies).size).toBe(1);
    const js = bodies['entrypoint.js']?.[0] as string;
    expect(js).toMatch(/^var __LGUI_agent = /);
    // The page's React and the shared package are required at run time, not bundled.
    expect(js).toContain('__require("react")');
    expect(js).toContain('__require("warren-fixture-shared")');
    expect(js).not.toContain('react.production');
    expect(bodies['entrypoint.css']?.[0]).toContain('.weather-card');
  });

  it('refuses a file the bundle does not have, and a graph without UI, with 404 {detail}', async () => {
    await expectDetail(await fetch(`${replicas[0]}/ui/agent/missing.js`), 404, /has no file "missing.js"/);
    await expectDetail(await fetch(`${replicas[1]}/api/langgraph/ui/nope/entrypoint.js`), 404, /No generative UI for graph "nope"/);
  });
});

describe("the SDK's loading path through /api/langgraph", () => {
  it('renders the UI message a run pushed: getComponent on one replica, the script from the other', async () => {
    page.reactUi.experimental_loadShare('warren-fixture-shared', { formatCity: (city: string) => `City of ${city}` });

    const [one, two] = replicas.map((base) => new Client({ apiUrl: `${base}/api/langgraph` })) as [Client, Client];
    const { thread_id: threadId } = await one.threads.create();
    await one.runs.wait(threadId, 'agent', { input: { city: 'Paris' } });
    const state = await two.threads.getState<{ ui: { name: string; props: Record<string, unknown> }[] }>(threadId);
    const [message] = state.values.ui;
    expect(message).toMatchObject({ name: 'weather', props: { city: 'Paris', degrees: 21 } });

    const html = await two['~ui'].getComponent('agent', message?.name as string);
    const { scriptUrl, comp, rendered } = await page.mount(html);
    expect(scriptUrl).toBe(`${replicas[1]}/api/langgraph/ui/agent/entrypoint.js`);
    expect(rendered).toHaveLength(1);
    const markup = renderToString(createElement(comp as FunctionComponent<Record<string, unknown>>, message?.props));
    expect(markup).toBe('<div class="weather-card">City of Paris<!-- -->: <!-- -->21<!-- -->°C</div>');
  });
});
