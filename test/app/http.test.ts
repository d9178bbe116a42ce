// App-wide HTTP behaviour: {detail} errors, request ids, CORS, OpenAPI, /ok and /info.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    config: { cors: { origins: ['https://app.example'] } },
    // A route that fails, to see a 500 from outside.
    beforeListen: (app) =>
      app.get('/boom-test', async () => {
        throw new Error('secret internals: password=hunter2');
      }),
  });
});
afterAll(async () => stack?.close());

describe('http plumbing', () => {
  it('serves /ok and /info', async () => {
    expect(await (await fetch(`${stack.url}/ok`)).json()).toEqual({ ok: true, redis: true });
    const info = (await (await fetch(`${stack.url}/info`)).json()) as { name: string; graphs: string[] };
    expect(info.name).toBe('warren');
    expect(info.graphs).toContain('lead_agent');
  });

  it('answers unknown routes with 404 {detail}', async () => {
    const res = await fetch(`${stack.url}/api/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not found: GET /api/nope' });
  });

  it('answers malformed JSON with 400 {detail}', async () => {
    const res = await fetch(`${stack.url}/api/langgraph/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/JSON/);
  });

  it('answers prototype-pollution payloads with 400 {detail}', async () => {
    const res = await fetch(`${stack.url}/api/langgraph/threads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"metadata":{"__proto__":{"polluted":true}}}',
    });
    expect(res.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers oversized bodies with 413 {detail}', async () => {
    const big = JSON.stringify({ metadata: { blob: 'x'.repeat(11 * 1024 * 1024) } });
    const res = await fetch(`${stack.url}/api/langgraph/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
    expect(await res.json()).toHaveProperty('detail');
  });

  it('hides internal errors behind a generic 500 {detail}', async () => {
    const res = await fetch(`${stack.url}/boom-test`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ detail: 'Internal server error' });
    expect(text).not.toContain('hunter2');
  });

  it('gives every request an id, keeping a safe incoming one and replacing an unsafe one', async () => {
    const fresh = await fetch(`${stack.url}/ok`);
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await fetch(`${stack.url}/ok`, { headers: { 'x-request-id': 'trace-123' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123');
    const replaced = await fetch(`${stack.url}/ok`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });

  it('applies CORS from config and exposes the headers clients read', async () => {
    const res = await fetch(`${stack.url}/ok`, { headers: { origin: 'https://app.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const exposed = res.headers.get('access-control-expose-headers') ?? '';
    for (const h of ['Content-Location', 'Location', 'X-Pagination-Total']) expect(exposed).toContain(h);
    const other = await fetch(`${stack.url}/ok`, { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves an OpenAPI 3 document generated from the schemas, and the docs UI', async () => {
    const doc = (await (await fetch(`${stack.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/langgraph/threads', '/api/langgraph/threads/{thread_id}/runs/stream']));
    const ui = await fetch(`${stack.url}/api/docs`);
    expect(ui.status).toBe(200);
  });
});
