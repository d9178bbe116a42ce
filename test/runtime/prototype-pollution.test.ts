// Prototype-pollution payloads (issue 7): `__proto__` and `constructor.prototype` keys in
// metadata, config, context, state updates, commands, MCP configuration, query strings,
// multipart field names, WebSocket messages and the configuration files. Every HTTP body with
// such a key is refused with 400 {detail} before any handler sees it; elsewhere the keys stay
// inert data; and Object.prototype is never touched, in the API or the worker (both run here).
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, afterEach, describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../src/config/load-config.js';
import { readExtensionsConfig } from '../../src/config/extensions.js';
import { userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

let stack: Stack;
let threadId: string;
let runId: string;

beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('echo') } });
  threadId = (await stack.client.threads.create()).thread_id;
  const jsonClient = new Client({ apiUrl: stack.apiUrl, defaultHeaders: { Accept: 'application/json' } });
  runId = (await jsonClient.runs.create(threadId, 'echo', { input: userInput('seed') })).run_id;
  await stack.client.runs.join(threadId, runId);
});
afterAll(async () => stack?.close());

const polluted = () => ({}) as Record<string, unknown>;
afterEach(() => {
  // The one property every payload below tries to plant on Object.prototype.
  expect(polluted().polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
});

const PAYLOADS = {
  proto: '{"__proto__":{"polluted":true}}',
  constructor: '{"constructor":{"prototype":{"polluted":true}}}',
  nested: '{"a":{"b":[{"__proto__":{"polluted":true}}]}}',
};

/** Splices `payload` into a JSON body template at `$P`. */
const bodies = (template: string) => Object.entries(PAYLOADS).map(([kind, payload]) => [kind, template.replace('$P', payload)] as const);

const send = (method: string, path: string, body: string) =>
  fetch(`${stack.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body });

describe('JSON bodies', () => {
  const cases: [string, string, string][] = [
    ['POST', '/api/langgraph/threads', '{"metadata":$P}'],
    ['PATCH', '/api/langgraph/threads/{tid}', '{"metadata":$P}'],
    ['POST', '/api/langgraph/threads/search', '{"metadata":$P,"values":$P}'],
    ['POST', '/api/langgraph/assistants/search', '{"metadata":$P}'],
    ['POST', '/api/langgraph/threads/{tid}/runs/wait', '{"assistant_id":"echo","input":{"messages":[]},"metadata":$P}'],
    ['POST', '/api/langgraph/threads/{tid}/runs/wait', '{"assistant_id":"echo","input":{"messages":[]},"config":{"configurable":$P}}'],
    ['POST', '/api/langgraph/threads/{tid}/runs/wait', '{"assistant_id":"echo","input":{"messages":[]},"config":$P}'],
    ['POST', '/api/langgraph/threads/{tid}/runs/wait', '{"assistant_id":"echo","input":{"messages":[]},"context":$P}'],
    ['POST', '/api/langgraph/threads/{tid}/runs/wait', '{"assistant_id":"echo","input":$P}'],
    ['POST', '/api/langgraph/threads/{tid}/runs/wait', '{"assistant_id":"echo","command":{"update":$P,"resume":$P}}'],
    ['POST', '/api/langgraph/runs/wait', '{"assistant_id":"echo","input":{"messages":[]},"config":{"metadata":$P}}'],
    ['POST', '/api/langgraph/threads/{tid}/state', '{"values":$P}'],
    ['POST', '/api/langgraph/threads/{tid}/state', '{"values":{"messages":[]},"checkpoint":{"checkpoint_map":$P}}'],
    ['POST', '/api/langgraph/threads/{tid}/history', '{"metadata":$P}'],
    ['PUT', '/api/mcp/config', '{"mcpServers":$P}'],
    ['PUT', '/api/mcp/config', '{"mcpServers":{"s":{"type":"stdio","command":"npx","env":$P}}}'],
  ];

  it.each(cases.flatMap(([method, path, template]) => bodies(template).map(([kind, body]) => [method, path, kind, body] as const)))(
    '%s %s refuses the %s payload with 400 {detail}',
    async (method, path, _kind, body) => {
      const res = await send(method, path.replace('{tid}', threadId), body);
      expect(res.status).toBe(400);
      const answer = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(answer)).toEqual(['detail']);
    },
  );

  it('stores nothing of a refused body', async () => {
    const before = await stack.client.threads.get(threadId);
    await send('PATCH', `/api/langgraph/threads/${threadId}`, `{"metadata":{"mark":"${randomUUID()}","__proto__":{"polluted":true}}}`);
    expect((await stack.client.threads.get(threadId)).metadata).toEqual(before.metadata);
  });

  it('keeps a plain "constructor" or "prototype" key as data', async () => {
    const res = await send('POST', '/api/langgraph/threads', '{"metadata":{"constructor":"a string","prototype":{"x":1}}}');
    expect(res.status).toBe(200);
    const thread = (await res.json()) as { thread_id: string; metadata: Record<string, unknown> };
    expect(thread.metadata).toMatchObject({ constructor: 'a string', prototype: { x: 1 } });
    expect((await stack.client.threads.get(thread.thread_id)).metadata).toMatchObject({ constructor: 'a string' });
  });
});

describe('outside JSON bodies', () => {
  it('keeps query-string keys inert', async () => {
    for (const query of ['__proto__[polluted]=1', 'constructor[prototype][polluted]=1', '__proto__.polluted=1', 'limit=1&__proto__=x']) {
      const res = await fetch(`${stack.apiUrl}/threads/${threadId}/runs?${query}`);
      expect(res.status, query).toBeLessThan(500);
    }
  });

  it('refuses a multipart field named __proto__', async () => {
    const form = new FormData();
    form.append('__proto__', 'x');
    form.append('files', new Blob(['x']), 'a.txt');
    const res = await fetch(`${stack.url}/api/threads/${randomUUID()}/uploads`, { method: 'POST', body: form });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it('treats such keys in a WebSocket run input as plain data', async () => {
    const ws = new WebSocket(`${stack.url.replace('http', 'ws')}/api/langgraph/threads/${threadId}/runs/stream`);
    const events: { event: string }[] = [];
    const code = await new Promise<number>((resolve, reject) => {
      ws.onopen = () =>
        ws.send(`{"assistant_id":"echo","input":{"messages":[{"role":"user","content":"x"}],"__proto__":{"polluted":true}},"metadata":{"constructor":{"prototype":{"polluted":true}}},"stream_mode":["values"]}`);
      ws.onmessage = (msg) => events.push(JSON.parse(String(msg.data)) as { event: string });
      ws.onclose = (close) => resolve(close.code);
      ws.onerror = () => reject(new Error('websocket error'));
    });
    expect([1000, 1008]).toContain(code);
    expect(events.at(-1)?.event).toMatch(/^(end|error)$/);
  });

  it('keeps such keys in config.yaml and extensions_config.json inert', async () => {
    const config = parseAppConfig(JSON.parse('{"__proto__":{"polluted":true},"cors":{"constructor":{"prototype":{"polluted":true}}}}'), {});
    expect(config.cors.origins).toEqual(['*']);
    writeFileSync(stack.env.extensionsConfigPath, '{"__proto__":{"polluted":true},"mcpServers":{},"skills":{"__proto__":{"enabled":false}}}');
    await readExtensionsConfig(stack.env.extensionsConfigPath).catch(() => undefined);
    const res = await fetch(`${stack.url}/api/mcp/config`);
    expect(res.status).toBeLessThan(500);
    expect((await fetch(`${stack.url}/api/skills`)).status).toBeLessThan(500);
  });

  it('leaves the worker unpolluted after running the runs above', async () => {
    // Runs refused at the door never reached the worker; the WebSocket one did. Wait for it to settle.
    await waitFor(async () => (await stack.client.threads.get(threadId)).status !== 'busy', 'the thread to settle');
    expect(polluted().polluted).toBeUndefined();
  });
});
