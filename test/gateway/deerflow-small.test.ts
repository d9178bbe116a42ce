// DeerFlow's settings and small routes (issue #30), through HTTP on 2 API replicas and 2 workers:
// GET /api/features, GET/PUT/PATCH /api/mcp/config under both keys, the empty memory's
// lastUpdated, GET /api/suggestions/config, POST /api/input-polish on the scripted model, and
// GET /api/threads/{id}/mcp-tasks scoped to the caller's thread. Field names, types and statuses
// are DeerFlow's (f1f4af99b). Alice talks to one replica and bob to the other; the admin to both.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INPUT_POLISH_PROMPT_START } from '../../graphs/lead-agent/input-polish.js';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { startScriptedOpenAI, type ScriptedOpenAI, type ScriptedReply } from '../support/scripted-openai.js';
import { startGatewayApp } from './gateway-app.js';

const KEYS = { alice: 'alice-key-0123456789abcdef', bob: 'bob-key-0123456789abcdef', admin: 'admin-key-0123456789abcdef' } as const;
type Who = keyof typeof KEYS;

const replies: ScriptedReply[] = [];
let llm: ScriptedOpenAI;
let cluster: Cluster;
let bases: Record<Who, string>;

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI(() => replies.shift() ?? { content: 'Done.' });
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: {
      models: [{ name: 'scripted', use: 'openai', model: 'scripted-1', base_url: llm.url, api_key: 'test-key' }],
      auth: {
        api_keys: [
          { key: KEYS.alice, user: 'alice' },
          { key: KEYS.bob, user: 'bob' },
          { key: KEYS.admin, user: 'ops', role: 'admin' },
        ],
      },
      suggestions: { max_suggestions: 4 },
      input_polish: { max_chars: 50 },
    },
  });
  const url = (port: number | undefined) => `http://127.0.0.1:${port}`;
  const [first, second] = cluster.apis;
  bases = { alice: url(first?.port), bob: url(second?.port), admin: url(second?.port) };
}, 240_000);
afterAll(async () => {
  await cluster?.stop();
  await llm?.close();
}, 60_000);

interface Answer {
  status: number;
  // The tests read DeerFlow's fields by name.
  body: any;
}

async function call(who: Who, method: string, path: string, body?: unknown, base = bases[who]): Promise<Answer> {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: { 'x-api-key': KEYS[who], ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}
const otherReplica = (who: Who) => (bases[who] === bases.alice ? bases.bob : bases.alice);

/** A 4xx answer in DeerFlow's error shape. */
function expectDetail(answer: Answer, status: number, detail?: string | RegExp): void {
  expect(answer.status).toBe(status);
  expect(typeof answer.body.detail).toBe('string');
  if (typeof detail === 'string') expect(answer.body.detail).toBe(detail);
  else if (detail) expect(answer.body.detail).toMatch(detail);
}

const isUtcNow = (value: unknown) => {
  expect(value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  expect(Math.abs(Date.parse(value as string) - Date.now())).toBeLessThan(60_000);
};

describe('GET /api/features', () => {
  it("answers DeerFlow's three flags, true only for what Warren serves", async () => {
    for (const who of ['alice', 'bob'] as const) {
      expect(await call(who, 'GET', '/features')).toEqual({
        status: 200,
        body: { agents_api: { enabled: true }, browser_control: { enabled: false }, mcp_tasks: { enabled: false }, github_webhooks: { enabled: false }, channel_connections: { enabled: true }, lark_integration: { enabled: true } },
      });
    }
  });
});

describe('/api/mcp/config', () => {
  const docs = { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer secret-token' }, description: 'Docs search' };

  it('takes the servers under mcp_servers, answers them under both keys, masked, on either replica', async () => {
    const put = await call('admin', 'PUT', '/mcp/config', { mcp_servers: { docs } });
    expect(put.status).toBe(200);
    const read = await call('alice', 'GET', '/mcp/config');
    expect(read.status).toBe(200);
    expect(Object.keys(read.body).sort()).toEqual(['mcpServers', 'mcp_servers']);
    expect(read.body.mcp_servers).toEqual(read.body.mcpServers);
    expect(read.body.mcp_servers.docs).toMatchObject({ enabled: true, type: 'http', url: docs.url, description: 'Docs search', headers: { Authorization: '***' } });
    // Our own key still works, and sending back the masked value keeps the secret.
    expect((await call('admin', 'PUT', '/mcp/config', { mcpServers: read.body.mcpServers }, otherReplica('admin'))).status).toBe(200);
    expect((await call('bob', 'GET', '/mcp/config')).body.mcp_servers.docs.headers).toEqual({ Authorization: '***' });
  });

  it('refuses a PUT with both keys, or neither, with 422 {detail} naming them', async () => {
    expectDetail(await call('admin', 'PUT', '/mcp/config', { mcpServers: {}, mcp_servers: { docs } }), 422, /mcpServers.*mcp_servers/);
    // A GET answer sent back whole holds the same servers under both keys: taken as one.
    expect((await call('admin', 'PUT', '/mcp/config', { mcpServers: { docs }, mcp_servers: { docs } })).status).toBe(200);
    expectDetail(await call('admin', 'PUT', '/mcp/config', {}), 422, /mcpServers/);
    expectDetail(await call('admin', 'PUT', '/mcp/config', { servers: {} }), 422);
  });

  it("toggles one server with DeerFlow's PATCH {server_name, enabled}, answering the whole configuration", async () => {
    await call('admin', 'PUT', '/mcp/config', { mcp_servers: { docs, other: { ...docs, description: 'Other' } } });
    const off = await call('admin', 'PATCH', '/mcp/config', { server_name: 'docs', enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.mcp_servers.docs).toMatchObject({ enabled: false, description: 'Docs search', headers: { Authorization: '***' } });
    expect(off.body.mcp_servers.other.enabled).toBe(true);
    expect(off.body.mcpServers).toEqual(off.body.mcp_servers);
    // Stored, not only answered: the other replica reads it, and the secret survived.
    expect((await call('alice', 'GET', '/mcp/config', undefined, otherReplica('admin'))).body.mcp_servers.docs.enabled).toBe(false);
    const on = await call('admin', 'PATCH', '/mcp/config', { server_name: 'docs', enabled: true }, otherReplica('admin'));
    expect(on.body.mcp_servers.docs.enabled).toBe(true);
  });

  it('refuses a PATCH for an unknown server (404), a bad body (422) and a user who is not an admin (403)', async () => {
    expectDetail(await call('admin', 'PATCH', '/mcp/config', { server_name: 'nope', enabled: true }), 404, "MCP server 'nope' not found");
    for (const body of [{ server_name: '', enabled: true }, { server_name: 'docs' }, { server_name: 'docs', enabled: 'yes' }, { server_name: 'docs', enabled: true, x: 1 }]) {
      expectDetail(await call('admin', 'PATCH', '/mcp/config', body), 422);
    }
    expectDetail(await call('alice', 'PATCH', '/mcp/config', { server_name: 'docs', enabled: false }), 403);
    expectDetail(await call('bob', 'PUT', '/mcp/config', { mcp_servers: {} }), 403);
  });
});

describe('/api/memory when empty', () => {
  it('answers lastUpdated as the current UTC time, for GET and for the answer to DELETE', async () => {
    const cleared = await call('alice', 'DELETE', '/memory');
    expect(cleared.status).toBe(200);
    isUtcNow(cleared.body.lastUpdated);
    expect(cleared.body.facts).toEqual([]);
    const read = await call('alice', 'GET', '/memory', undefined, otherReplica('alice'));
    expect(read.status).toBe(200);
    isUtcNow(read.body.lastUpdated);
    expect(read.body).toMatchObject({ version: '1.0', facts: [], user: { workContext: { summary: '', updatedAt: '' } } });
  });
});

describe('POST /api/input-polish', () => {
  it('rewrites the draft in one model call on a worker, and says whether it changed', async () => {
    const before = llm.requests.length;
    replies.push({ content: 'How does BullMQ retry a failed job?' });
    const polished = await call('alice', 'POST', '/input-polish', { text: '  how bullmq retry failed job  ', locale: 'en-US', thread_id: randomUUID() });
    expect(polished).toEqual({ status: 200, body: { rewritten_text: 'How does BullMQ retry a failed job?', changed: true } });
    expect(llm.requests.length).toBe(before + 1);
    const request = llm.requests.at(-1);
    expect(String(request?.messages[0]?.content)).toContain(INPUT_POLISH_PROMPT_START);
    expect(String(request?.messages[0]?.content)).toContain('en-US');
    expect(request?.messages[1]?.content).toBe('how bullmq retry failed job');

    replies.push({ content: '<think>fine as is</think>Already clear.' });
    expect(await call('bob', 'POST', '/input-polish', { text: 'Already clear.', locale: null, thread_id: null })).toEqual({
      status: 200,
      body: { rewritten_text: 'Already clear.', changed: false },
    });
  });

  it("refuses as DeerFlow does: 400 for an empty or too long text, 422 for a bad body, 503 when the model fails", async () => {
    const before = llm.requests.length;
    expectDetail(await call('alice', 'POST', '/input-polish', { text: '   ' }), 400, 'Input text is required');
    expectDetail(await call('alice', 'POST', '/input-polish', { text: 'x'.repeat(51) }), 400, 'Input text exceeds 50 characters');
    for (const body of [{}, { text: 1 }, { text: 'hi', extra: true }, { text: 'hi', locale: 5 }]) {
      expectDetail(await call('alice', 'POST', '/input-polish', body), 422);
    }
    expect(llm.requests.length).toBe(before);
    replies.push({ status: 400, content: 'bad request' });
    expectDetail(await call('alice', 'POST', '/input-polish', { text: 'polish me' }), 503, 'Failed to polish input');
    replies.push({ content: '   ' });
    expectDetail(await call('bob', 'POST', '/input-polish', { text: 'polish me' }), 503, 'Failed to polish input');
  });

  it('answers 404 "Input polishing is disabled" when input_polish.enabled is off', async () => {
    const app = await startGatewayApp({ config: { input_polish: { enabled: false } } });
    try {
      const res = await app.api.app.inject({ method: 'POST', url: '/api/input-polish', payload: { text: 'hello' } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: 'Input polishing is disabled' });
    } finally {
      await app.close();
    }
  });
});

describe('/api/suggestions/config', () => {
  it("answers DeerFlow's {enabled, max_suggestions} from config.yaml, and suggestions keep to the max", async () => {
    for (const who of ['alice', 'bob'] as const) {
      expect(await call(who, 'GET', '/suggestions/config')).toEqual({ status: 200, body: { enabled: true, max_suggestions: 4 } });
    }
    replies.push({ content: '["One?", "Two?", "Three?", "Four?", "Five?"]' });
    const answer = await call('alice', 'POST', `/threads/${randomUUID()}/suggestions`, { messages: [{ role: 'user', content: 'Hello' }], n: 5 });
    expect(answer).toEqual({ status: 200, body: { suggestions: ['One?', 'Two?', 'Three?', 'Four?'] } });
    expect(String(llm.requests.at(-1)?.messages[0]?.content)).toMatch(/exactly 4 short follow-up questions/);
  });
});

describe('/api/threads/{id}/mcp-tasks', () => {
  it("answers as DeerFlow does with its task runtime off: no tasks, no task by id; another user's thread is 404", async () => {
    const created = await call('alice', 'POST', '/langgraph/threads', {});
    expect(created.status).toBe(200);
    const threadId: string = created.body.thread_id;
    expect(await call('alice', 'GET', `/threads/${threadId}/mcp-tasks`)).toEqual({ status: 200, body: [] });
    expect(await call('alice', 'GET', `/threads/${threadId}/mcp-tasks?limit=20`, undefined, otherReplica('alice'))).toEqual({ status: 200, body: [] });
    expectDetail(await call('alice', 'GET', `/threads/${threadId}/mcp-tasks/task-1`), 404, 'MCP task not found');
    expectDetail(await call('alice', 'POST', `/threads/${threadId}/mcp-tasks/task-1/cancel`), 404, 'MCP task not found');
    for (const limit of ['0', '101', 'many']) expectDetail(await call('alice', 'GET', `/threads/${threadId}/mcp-tasks?limit=${limit}`), 422);
    expectDetail(await call('alice', 'GET', '/threads/bad%20id/mcp-tasks'), 422);
    // Bob is told nothing of alice's thread, on either replica.
    expectDetail(await call('bob', 'GET', `/threads/${threadId}/mcp-tasks`), 404, `Thread ${threadId} not found`);
    expectDetail(await call('bob', 'GET', `/threads/${threadId}/mcp-tasks`, undefined, otherReplica('bob')), 404);
    expectDetail(await call('bob', 'GET', `/threads/${threadId}/mcp-tasks/task-1`), 404, `Thread ${threadId} not found`);
  });
});
