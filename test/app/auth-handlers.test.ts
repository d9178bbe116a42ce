// A LangGraph custom auth module's handlers over HTTP (issue 19): a `threads:create` handler's
// metadata is kept, a `threads` filter hides what it does not match (404, in reads and searches
// alike), and store handlers refuse with their own status. The module is test/fixtures/auth/auth.ts.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

const AUTH_MODULE = fileURLToPath(new URL('../fixtures/auth/auth.ts', import.meta.url));

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ workers: 0, config: { auth: { module: `${AUTH_MODULE}:auth` } } });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

async function call(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${stack.url}/api/langgraph${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? null : JSON.parse(text) };
}

describe("a custom auth module's handlers", () => {
  it("keeps what a create handler stamps, and answers 404 for a thread its filter does not match", async () => {
    const label = randomUUID();
    const kept = await call('token-alice', 'POST', '/threads', { metadata: { owner: 'alice', label } });
    expect(kept.status).toBe(200);
    expect((kept.json as { metadata: unknown }).metadata).toEqual({ owner: 'alice', label, org: 'acme' });
    const keptId = (kept.json as { thread_id: string }).thread_id;
    // Alice's own thread, but the handler's filter wants metadata.owner = alice.
    const filtered = await call('token-alice', 'POST', '/threads', { metadata: { owner: 'someone-else', label } });
    const filteredId = (filtered.json as { thread_id: string }).thread_id;

    expect((await call('token-alice', 'GET', `/threads/${keptId}`)).status).toBe(200);
    const hidden = await call('token-alice', 'GET', `/threads/${filteredId}`);
    expect(hidden.status).toBe(404);
    expect((hidden.json as { detail: string }).detail).toMatch(/not found/);
    expect((await call('token-alice', 'PATCH', `/threads/${filteredId}`, { metadata: { x: 1 } })).status).toBe(404);

    const found = await call('token-alice', 'POST', '/threads/search', { metadata: { label } });
    expect((found.json as Array<{ thread_id: string }>).map((t) => t.thread_id)).toEqual([keptId]);
    expect((await call('token-alice', 'POST', '/threads/count', { metadata: { label } })).json).toBe(1);
  });

  it('lets store handlers refuse (403, or their own HTTPException)', async () => {
    // `store` refuses bob (no handler is more precise for a get).
    const refusedBob = await call('token-bob', 'GET', '/store/items?namespace=bob&key=k');
    expect(refusedBob.status).toBe(403);
    expect((refusedBob.json as { detail: string }).detail).toMatch(/store/);
    // `store:put` is more precise than `store`: writing needs a permission bob and the root admin lack.
    expect((await call('token-bob', 'PUT', '/store/items', { namespace: ['bob'], key: 'k', value: {} })).status).toBe(403);
    const refusedRoot = await call('token-root', 'PUT', '/store/items', { namespace: ['root'], key: 'k', value: {} });
    expect(refusedRoot).toMatchObject({ status: 403, json: { detail: 'Writing needs threads:write' } });
    expect((await call('token-alice', 'PUT', '/store/items', { namespace: ['alice'], key: 'k', value: { v: 1 } })).status).toBe(204);
    expect((await call('token-alice', 'GET', '/store/items?namespace=alice&key=k')).json).toMatchObject({ value: { v: 1 } });
  });
});
