// Issue #32: langgraph.json's `http` in the API process, with an app that is no Hono app (any
// fetch(Request) handler): its routes at the root and under /api/langgraph, bodies streamed to it
// whatever their type, a switched-off route group answered by the app, `http.cors`, and an
// export that is no app refused at start. The Hono middleware, 2 replicas and 2 workers are in
// test/graphs/langgraph-app.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCustomApp } from '../../src/custom-http/custom-app.js';
import { trackedDir } from '../support/leftovers.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

const APP = fileURLToPath(new URL('../fixtures/custom-http/plain-app.ts', import.meta.url));

let stack: Stack;
let dir: string;
beforeAll(async () => {
  // The project file is written to a temp folder, never into fixtures.
  dir = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-custom-http-')));
  const project = path.join(dir, 'langgraph.json');
  writeFileSync(
    project,
    JSON.stringify({
      graphs: testGraphs('echo'),
      http: { app: `${APP}:app`, disable_store: true, cors: { allow_origin_regex: '^https://[a-z]+\\.example$', max_age: 60 } },
    }),
  );
  stack = await startStack({ config: { langgraph_json: project } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('http.app without middleware (a plain fetch handler)', () => {
  it('answers at the root and under /api/langgraph, seeing LangGraph’s path and the query', async () => {
    for (const prefix of ['', '/api/langgraph']) {
      const res = await fetch(`${stack.url}${prefix}/plain?q=1`);
      expect(await res.json()).toEqual({ path: '/plain', query: '?q=1', method: 'GET' });
    }
  });

  it('gets a body of any type as a stream, and its cookies get out', async () => {
    const body = 'x'.repeat(1024 * 1024);
    const res = await fetch(`${stack.url}/upload`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body });
    expect(await res.text()).toBe('1048576 bytes of application/octet-stream');
    expect(res.headers.get('set-cookie')).toBe('a=1');
  });

  it('answers a switched-off group (disable_store); the other groups stay Warren’s', async () => {
    const store = await fetch(`${stack.url}/api/langgraph/store/items?namespace=a&key=b`);
    expect(store.status).toBe(404);
    expect(await store.text()).toBe('not mine');
    const threads = await fetch(`${stack.url}/api/langgraph/threads/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(threads.status).toBe(200);
  });

  it('an error carrying its answer (an HTTPException) becomes that answer, not a 500', async () => {
    const res = await fetch(`${stack.url}/refused`);
    expect(res.status).toBe(402);
    expect(await res.text()).toBe('payment first');
  });

  it('Warren’s own routes stay Warren’s', async () => {
    expect((await fetch(`${stack.url}/ok`)).status).toBe(200);
    expect((await fetch(`${stack.url}/api/models`)).status).toBe(200);
  });
});

describe('http.cors', () => {
  it('allows the origins its regex matches, with its max age, and no other', async () => {
    const preflight = (origin: string) =>
      fetch(`${stack.url}/api/langgraph/threads/search`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
    const allowed = await preflight('https://app.example');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(allowed.headers.get('access-control-max-age')).toBe('60');
    expect((await preflight('https://evil.test')).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('loading http.app', () => {
  it('refuses an export that is no app, naming it', async () => {
    await expect(loadCustomApp(`${APP}:notAnApp`, '/')).rejects.toThrow(/http\.app ".*:notAnApp" must export an app with a fetch\(Request\) method/);
    await expect(loadCustomApp(`${APP}:missing`, '/')).rejects.toThrow(/has no export "missing"/);
  });
});
