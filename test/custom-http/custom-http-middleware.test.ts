// Issue #32: a project's Hono middleware in front of Warren's LangGraph routes, in one API
// process (the project in test/fixtures/langgraph-app, with its own node_modules): a stream
// passed through it ends on Warren's side when its client goes away, so nothing keeps following
// a run for nobody.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { waitForMetric } from '../support/wait-for.js';

const PROJECT = fileURLToPath(new URL('../fixtures/langgraph-app/langgraph.json', import.meta.url));

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { langgraph_json: PROJECT }, heartbeatMs: 200 });
}, 300_000);
afterAll(async () => stack?.close());

describe('a stream through the project’s middleware', () => {
  it('streams, carries the middleware’s header, and ends Warren’s side when the client leaves', async () => {
    const { thread_id: threadId } = await stack.client.threads.create();
    const client = new AbortController();
    const res = await fetch(`${stack.apiUrl}/threads/${threadId}/runs/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // `held` runs until cancelled: its stream stays open until its client leaves.
      body: JSON.stringify({ assistant_id: 'held', input: { log: [] }, stream_mode: ['values'] }),
      signal: client.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('x-project-middleware')).toBe(`seen /threads/${threadId}/runs/stream`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    // The first values arrive while the run still holds: the stream is not held back whole.
    while (!text.includes('holding')) text += new TextDecoder().decode((await reader.read()).value);
    await waitForMetric(stack.url, 'warren_open_connections{transport="sse"}', 1);
    client.abort();
    await waitForMetric(stack.url, 'warren_open_connections{transport="sse"}', 0);
    // The run goes on without its client (on_disconnect continue): cancelled, so nothing is left running.
    const { runs } = (await stack.client.runs.list(threadId)) as unknown as { runs: { run_id: string }[] };
    await stack.client.runs.cancel(threadId, (runs[0] as { run_id: string }).run_id, true);
  });
});
