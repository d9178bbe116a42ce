// Optional API keys (issue 7): with keys set, every route but /ok answers 401 {detail} without a
// valid key, in `x-api-key` or `Authorization: Bearer`; WebSockets are refused before the
// upgrade; the OpenAPI document declares the schemes. Without keys the API stays open.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnvConfig } from '../../src/config/env.js';
import { parseAppConfig } from '../../src/config/load-config.js';
import { createKeyLookup } from '../../src/auth/api-keys.js';
import { ANONYMOUS } from '../../src/auth/identity.js';
import { rawRequest } from '../gateway/gateway-app.js';
import { startStack, type Stack } from '../support/stack.js';

const KEY = `key-${randomUUID()}`;
const SECOND_KEY = `second-${randomUUID()}`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ workers: 0, config: { auth: { api_keys: [KEY, SECOND_KEY] }, cors: { origins: ['https://app.example'] } } });
});
afterAll(async () => stack?.close());

interface OpenApiDoc {
  components?: { securitySchemes?: Record<string, unknown> };
  security?: unknown[];
  paths: Record<string, Record<string, { security?: unknown[] }>>;
}

const openApi = async (): Promise<OpenApiDoc> => (await fetch(`${stack.url}/openapi.json`, { headers: { 'x-api-key': KEY } })).json() as Promise<OpenApiDoc>;

/** Every operation of the document that needs a key (those declaring `security: []` need none), with its path parameters filled in. */
async function operations(): Promise<{ method: string; url: string }[]> {
  const doc = await openApi();
  const out: { method: string; url: string }[] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    const url = template.replace('{*}', 'mnt/user-data/outputs/x.txt').replace(/\{[^}]+\}/g, () => randomUUID());
    for (const [method, op] of Object.entries(ops)) {
      if (Array.isArray(op.security) && op.security.length === 0) continue;
      out.push({ method: method.toUpperCase(), url });
    }
  }
  return out;
}

/** A WebSocket handshake written by hand on a raw socket: the status line, body, and whether the server hung up. */
function handshake(threadId: string, headers: Record<string, string>): Promise<{ status: number; body: string; closedByServer: boolean }> {
  const { hostname, port } = new URL(stack.url);
  const lines = [
    `GET /api/langgraph/threads/${threadId}/runs/stream HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Key: ${Buffer.from(randomUUID().slice(0, 16)).toString('base64')}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
    let text = '';
    const settle = (closedByServer: boolean) => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body, closedByServer });
    };
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.startsWith('HTTP/1.1 101')) settle(false);
    });
    socket.on('end', () => settle(true));
    socket.on('error', reject);
    // A socket the server leaves open after refusing would keep this waiting: the test fails.
  });
}

async function expect401(res: Response, detail = /Missing API key/): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['detail']);
  // DeerFlow's sign-in routes answer its `{code, message}` (its UI reads the code); the sentence is the same.
  if (new URL(res.url).pathname.startsWith('/api/v1/auth/')) expect(body.detail).toEqual({ code: expect.stringMatching(/^(not_authenticated|token_invalid)$/), message: expect.stringMatching(detail) });
  else expect(body.detail).toMatch(detail);
}

const PROBES = ['/ok', '/health', '/ready'];

describe('with API keys set', () => {
  it('lets /ok through without a key, for GET and HEAD', async () => {
    expect((await fetch(`${stack.url}/ok`)).status).toBe(200);
    expect((await fetch(`${stack.url}/ok`, { method: 'HEAD' })).status).toBe(200);
  });

  it("lets Slack's Events API route through without a key: its signature is the check (404 here, Slack being off)", async () => {
    const res = await fetch(`${stack.url}/api/channels/slack/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(404);
    expect(Object.keys((await res.json()) as object)).toEqual(['detail']);
  });

  it('lets the other probes (/health, /ready) through without a key too', async () => {
    expect((await fetch(`${stack.url}/health`)).status).toBe(200);
    expect([200, 503]).toContain((await fetch(`${stack.url}/ready`)).status);
    expect((await fetch(`${stack.url}/ready`)).status).not.toBe(401);
  });

  it('answers every other operation of the OpenAPI document with 401 {detail} without a key or with a wrong one', async () => {
    // Load balancers' and orchestrators' probes carry no credentials.
    const ops = (await operations()).filter((op) => !PROBES.includes(op.url));
    expect(ops.length).toBeGreaterThan(40);
    for (const { method, url } of ops) {
      const body = ['POST', 'PUT', 'PATCH'].includes(method) ? '{}' : undefined;
      const headers = body ? { 'content-type': 'application/json' } : {};
      const missing = await fetch(`${stack.url}${url}`, { method, headers, body });
      if (method === 'HEAD') expect(missing.status, `${method} ${url}`).toBe(401);
      else await expect401(missing);
      const wrong = await fetch(`${stack.url}${url}`, { method, headers: { ...headers, 'x-api-key': `${KEY}x` }, body });
      if (method === 'HEAD') expect(wrong.status, `${method} ${url}`).toBe(401);
      else await expect401(wrong, /^Invalid API key\.$/);
    }
  });

  it('guards what the document hides too: the document itself, the docs UI, /metrics, /info, unknown paths', async () => {
    for (const url of ['/openapi.json', '/api/docs', '/api/docs/static/index.html', '/metrics', '/info', '/no/such/route', '/api/langgraph/nope']) {
      await expect401(await fetch(`${stack.url}${url}`));
    }
  });

  it('does nothing for a refused request: no thread created, no MCP server saved, no file uploaded', async () => {
    // Marked, because other test files share this Redis and create threads of their own.
    const { threads } = new Client({ apiUrl: stack.apiUrl, apiKey: KEY });
    const mark = randomUUID();
    const refused = await fetch(`${stack.apiUrl}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { mark } }) });
    expect(refused.status).toBe(401);
    expect(await threads.search({ metadata: { mark } })).toEqual([]);
    await threads.create({ metadata: { mark } });
    expect(await threads.search({ metadata: { mark } })).toHaveLength(1);

    const mcp = { mcpServers: { evil: { type: 'stdio', command: '/bin/sh', args: ['-c', 'touch /tmp/pwned'] } } };
    const put = await fetch(`${stack.url}/api/mcp/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(mcp) });
    expect(put.status).toBe(401);
    expect(existsSync(stack.env.extensionsConfigPath) ? readFileSync(stack.env.extensionsConfigPath, 'utf8') : '').not.toContain('evil');

    const id = randomUUID();
    const form = new FormData();
    form.append('files', new Blob(['x']), 'a.txt');
    expect((await fetch(`${stack.url}/api/threads/${id}/uploads`, { method: 'POST', body: form })).status).toBe(401);
    expect(existsSync(path.join(stack.home, 'threads', id))).toBe(false);
  });

  it('accepts x-api-key and Authorization: Bearer, with either configured key', async () => {
    for (const headers of [{ 'x-api-key': KEY }, { 'x-api-key': SECOND_KEY }, { authorization: `Bearer ${KEY}` }, { authorization: `bearer ${SECOND_KEY}` }]) {
      const res = await fetch(`${stack.url}/api/models`, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
  });

  it.each([
    ['a prefix of the key', { 'x-api-key': KEY.slice(0, -1) }],
    ['the key with a suffix', { 'x-api-key': `${KEY}0` }],
    ['the key in another case', { 'x-api-key': KEY.toUpperCase() }],
    ['both keys joined', { 'x-api-key': `${KEY},${SECOND_KEY}` }],
    ['Basic with the key', { authorization: `Basic ${Buffer.from(`u:${KEY}`).toString('base64')}` }],
    ['Bearer with a wrong key', { authorization: 'Bearer not-the-key-at-all' }],
    ['a wrong x-api-key beside a right bearer', { 'x-api-key': 'wrong-key-wrong-key', authorization: `Bearer ${KEY}` }],
  ])('refuses %s', async (_what, headers) => {
    const res = await fetch(`${stack.url}/api/models`, { headers });
    expect(res.status).toBe(401);
  });

  it('cannot be bypassed through a path that only looks like /ok', async () => {
    for (const raw of ['/ok/../api/models', '/ok/%2e%2e/api/models', '/OK', '//ok', '/ok%2F..%2Fapi%2Fmodels', '/api/models;/ok', '/api/models?/ok', '/api/models#/ok', '/ok/']) {
      const res = await rawRequest(stack.url, 'GET', raw);
      expect(res.status, raw).toBe(401);
    }
  });

  it('works with the LangGraph SDK, which sends x-api-key', async () => {
    const client = new Client({ apiUrl: stack.apiUrl, apiKey: KEY });
    const thread = await client.threads.create();
    expect((await client.threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);
    const anonymous = new Client({ apiUrl: stack.apiUrl, apiKey: null, defaultHeaders: {} });
    await expect(anonymous.threads.get(thread.thread_id)).rejects.toThrow(/401/);
  });

  it('answers CORS preflights without a key, but not the request they announce', async () => {
    const preflight = await fetch(`${stack.url}/api/models`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const actual = await fetch(`${stack.url}/api/models`, { headers: { origin: 'https://app.example' } });
    expect(actual.status).toBe(401);
    expect(actual.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('refuses a WebSocket without a key with 401 before the upgrade, and upgrades one with a key', async () => {
    const thread = await new Client({ apiUrl: stack.apiUrl, apiKey: KEY }).threads.create();
    const wsUrl = `${stack.url.replace('http', 'ws')}/api/langgraph/threads/${thread.thread_id}/runs/stream`;

    // The platform's WebSocket client: it never opens.
    const refused = await new Promise<string>((resolve) => {
      const ws = new WebSocket(wsUrl);
      ws.onopen = () => resolve('open');
      ws.onerror = () => resolve('error');
    });
    expect(refused).toBe('error');

    // The same handshake by hand shows the answer: a plain 401 {detail}, no 101, and the
    // server closes the connection instead of leaving a half-upgraded socket open.
    const noKey = await handshake(thread.thread_id, {});
    expect(noKey.status).toBe(401);
    expect(JSON.parse(noKey.body)).toEqual({ detail: expect.stringMatching(/Missing API key/) });
    expect(noKey.closedByServer).toBe(true);
    expect((await handshake(thread.thread_id, { 'x-api-key': 'wrong-key-wrong-key' })).status).toBe(401);
    expect((await handshake(thread.thread_id, { 'x-api-key': KEY })).status).toBe(101);

    const opened = await new Promise<string>((resolve) => {
      const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${KEY}` } });
      ws.onopen = () => {
        resolve('open');
        ws.close();
      };
      ws.onerror = () => resolve('error');
    });
    expect(opened).toBe('open');
  });

  it('declares both schemes in the OpenAPI document, required everywhere but /ok', async () => {
    const doc = await openApi();
    expect(doc.components?.securitySchemes).toMatchObject({
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      bearer: { type: 'http', scheme: 'bearer' },
    });
    expect(doc.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect(doc.paths['/ok']?.get?.security).toEqual([]);
    expect(doc.paths['/api/models']?.get?.security).toBeUndefined();
  });
});

describe('without API keys (the default)', () => {
  let open: Stack;
  beforeAll(async () => {
    open = await startStack({ workers: 0 });
  });
  afterAll(async () => open?.close());

  it('serves every route without a key, and the document requires none', async () => {
    expect((await fetch(`${open.url}/api/models`)).status).toBe(200);
    expect((await fetch(`${open.url}/info`)).status).toBe(200);
    const doc = (await (await fetch(`${open.url}/openapi.json`)).json()) as OpenApiDoc;
    expect(doc.security).toBeUndefined();
    expect(doc.components?.securitySchemes).toHaveProperty('apiKey');
  });
});

describe('key configuration', () => {
  it('matches only the configured keys, whatever the lengths', () => {
    const alice = { user: 'alice', role: 'user' as const, permissions: [] };
    const lookup = createKeyLookup([
      { key: 'a'.repeat(16), identity: ANONYMOUS },
      { key: 'b'.repeat(40), identity: alice },
    ]);
    expect(lookup('a'.repeat(16))).toBe(ANONYMOUS);
    expect(lookup('b'.repeat(40))).toBe(alice);
    for (const wrong of ['', 'a', 'a'.repeat(15), 'a'.repeat(17), 'b'.repeat(39), 'c'.repeat(1000)]) expect(lookup(wrong)).toBeNull();
  });

  it('reads WARREN_API_KEYS as a comma-separated list, and never echoes a rejected key', () => {
    const env = { WARREN_API_KEYS: ` ${KEY} ,, ${SECOND_KEY} ` };
    expect(readEnvConfig(env).apiKeys).toEqual([KEY, SECOND_KEY]);
    expect(readEnvConfig({}).apiKeys).toEqual([]);
    const tooShort = 'short-secret';
    expect(() => readEnvConfig({ WARREN_API_KEYS: tooShort })).toThrow(/WARREN_API_KEYS/);
    try {
      readEnvConfig({ WARREN_API_KEYS: `${tooShort}, has space in it 123` });
    } catch (err) {
      expect((err as Error).message).not.toContain(tooShort);
    }
  });

  it('reads auth.api_keys from config.yaml, resolving $NAME, and refuses to start when the variable is missing', () => {
    expect(parseAppConfig({}, {}).auth.api_keys).toEqual([]);
    expect(parseAppConfig({ auth: { api_keys: ['$WARREN_KEY'] } }, { WARREN_KEY: KEY }).auth.api_keys).toEqual([KEY]);
    expect(() => parseAppConfig({ auth: { api_keys: ['$WARREN_KEY'] } }, {})).toThrow(/auth\.api_keys\[0\].*WARREN_KEY/);
    expect(() => parseAppConfig({ auth: { api_keys: ['$WARREN_KEY'] } }, { WARREN_KEY: '' })).toThrow(/auth\.api_keys\[0\]/);
    expect(() => parseAppConfig({ auth: { api_keys: ['too short'] } }, {})).toThrow(/auth\.api_keys\[0\]/);
  });
});
