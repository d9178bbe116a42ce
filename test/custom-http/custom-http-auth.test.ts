// Issue #32: a request that goes through a project's middleware (langgraph.json `http.app`, here
// test/fixtures/langgraph-app's Hono app) into Warren's LangGraph routes is authenticated once,
// when it arrives: Warren's re-entry after the middleware acts for the identity it already has.
// The auth module (test/fixtures/auth/counting-auth.ts) writes down each request it sees.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { trackedDir } from '../support/leftovers.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';

const fixture = (file: string) => fileURLToPath(new URL(`../fixtures/${file}`, import.meta.url));
const authenticated = ((globalThis as Record<symbol, string[] | undefined>)[Symbol.for('warren.test.authenticated-paths')] ??= []);

let stack: Stack;
let dir: string;
beforeAll(async () => {
  // The project file is written to a temp folder, never into fixtures.
  dir = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-custom-http-auth-')));
  const project = path.join(dir, 'langgraph.json');
  writeFileSync(
    project,
    JSON.stringify({ graphs: testGraphs('echo'), http: { app: `${fixture('langgraph-app/src/app.mts')}:app` }, auth: { path: `${fixture('auth/counting-auth.ts')}:auth` } }),
  );
  stack = await startStack({ config: { langgraph_json: project } });
}, 300_000);
afterAll(async () => {
  await stack?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  authenticated.length = 0;
});

const carol = { authorization: 'Bearer token-carol', 'content-type': 'application/json' };

describe('auth on requests through the project’s middleware', () => {
  it('authenticates a request the middleware passes on to Warren once, and it acts for its caller', async () => {
    const res = await fetch(`${stack.apiUrl}/threads`, { method: 'POST', headers: carol, body: '{}' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-project-middleware')).toBe('seen /threads');
    expect(authenticated).toEqual(['/api/langgraph/threads']);
    const { thread_id: threadId } = (await res.json()) as { thread_id: string };
    // Created for carol: she reads it back, again through the middleware.
    const read = await fetch(`${stack.apiUrl}/threads/${threadId}`, { headers: carol });
    expect(read.status).toBe(200);
    expect(authenticated).toEqual(['/api/langgraph/threads', `/api/langgraph/threads/${threadId}`]);
  });

  it('authenticates a project route once too', async () => {
    expect((await fetch(`${stack.url}/hello`, { headers: carol })).status).toBe(200);
    expect(authenticated).toEqual(['/hello']);
  });

  it('refuses a request without credentials before the middleware sees it', async () => {
    const res = await fetch(`${stack.apiUrl}/assistants/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-project-middleware')).toBeNull();
    expect(await res.json()).toEqual({ detail: expect.any(String) });
    expect(authenticated).toEqual(['/api/langgraph/assistants/search']);
  });
});
