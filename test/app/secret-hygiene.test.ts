// Secret hygiene (issue 7): API keys, models' api_key values, the search key and MCP env and
// header values never appear in the logs (API and worker, at trace level), in error bodies, in
// the OpenAPI document or in any GET response, even when a provider echoes its key back.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACT_PATHS, createLogger } from '../../src/logger.js';
import { collect, userInput } from '../support/sse.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const tag = randomUUID().slice(0, 8);
const SECRETS = {
  apiKey: `warren-api-key-${tag}-0123456789`,
  wrongKey: `near-miss-key-${tag}-0123456789`,
  modelLiteral: `sk-literal-${tag}-abcdefghij`,
  modelFromEnv: `sk-from-env-${tag}-abcdefghij`,
  searchKey: `tvly-${tag}-abcdefghijklmnop`,
  mcpEnv: `mcp-env-${tag}-abcdefghij`,
  mcpHeader: `mcp-header-${tag}-abcdefghij`,
};
const ENV_NAME = `WARREN_TEST_HYGIENE_KEY_${tag.toUpperCase()}`;

/** Every log line of the API and the worker. */
const lines: string[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

/** Every body the API sent back in this file. */
const bodies: { what: string; text: string }[] = [];

let stack: Stack;
let careless: Server;
let carelessUrl: string;
let client: Client;

beforeAll(async () => {
  process.env[ENV_NAME] = SECRETS.modelFromEnv;
  // A provider that echoes the key it was given in its error, as some OpenAI-compatible servers do.
  careless = createServer((req, res) => {
    const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${key}`, type: 'invalid_request_error', code: 'invalid_api_key' } }));
  });
  await new Promise<void>((resolve) => careless.listen(0, '127.0.0.1', resolve));
  carelessUrl = `http://127.0.0.1:${(careless.address() as AddressInfo).port}/v1`;
  stack = await startStack({
    logStream,
    logLevel: 'trace',
    config: {
      auth: { api_keys: [SECRETS.apiKey] },
      models: [
        { name: 'literal', use: 'openai', model: 'm', base_url: carelessUrl, api_key: SECRETS.modelLiteral },
        { name: 'from-env', use: 'openai', model: 'm', base_url: carelessUrl, api_key: `$${ENV_NAME}` },
      ],
      web: { search_enabled: true, search_api_key: SECRETS.searchKey },
      title: { enabled: false },
    },
  });
  client = new Client({ apiUrl: stack.apiUrl, apiKey: SECRETS.apiKey });
});
afterAll(async () => {
  delete process.env[ENV_NAME];
  await stack?.close();
  await new Promise((resolve) => careless?.close(resolve));
});

async function call(method: string, url: string, options: { key?: string | null; bearer?: string; body?: unknown } = {}): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers['x-api-key'] = options.key ?? SECRETS.apiKey;
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${stack.url}${url}`, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  const text = await res.text();
  bodies.push({ what: `${method} ${url} → ${res.status}`, text });
  return { status: res.status, text };
}

const leaks = (text: string) => Object.entries(SECRETS).filter(([, secret]) => text.includes(secret)).map(([name]) => name);

describe('secrets stay secret', () => {
  it('configures MCP servers with secret env and header values, and reads them back masked', async () => {
    const config = {
      mcpServers: {
        tools: { type: 'stdio', command: process.execPath, args: ['./no-such-server.js'], env: { TOKEN: SECRETS.mcpEnv, REF: '$SOME_VAR' }, enabled: false },
        remote: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${SECRETS.mcpHeader}` } },
      },
    };
    expect((await call('PUT', '/api/mcp/config', { body: config })).status).toBe(200);
    const read = await call('GET', '/api/mcp/config');
    expect(JSON.parse(read.text)).toMatchObject({
      mcpServers: { tools: { env: { TOKEN: '***', REF: '$SOME_VAR' } }, remote: { headers: { Authorization: '***' } } },
    });
    // Sending back what was read keeps the stored values without the client ever seeing them.
    expect((await call('PUT', '/api/mcp/config', { body: JSON.parse(read.text) })).status).toBe(200);
  });

  it('keeps secrets out of the error bodies of refused configurations', async () => {
    const refused = [
      { mcpServers: { tools: { type: 'stdio', env: { TOKEN: SECRETS.mcpEnv } } } },
      { mcpServers: { remote: { type: 'http', url: 'not a url', headers: { Authorization: SECRETS.mcpHeader } } } },
      { mcpServers: { 'bad name!': { type: 'stdio', command: 'x', env: { TOKEN: SECRETS.mcpEnv } } } },
      { mcpServers: { fresh: { type: 'stdio', command: 'x', env: { TOKEN: '***', OTHER: SECRETS.mcpEnv } } } },
      { mcpServers: { tools: { type: 'stdio', command: 'x', env: { TOKEN: 42 } } }, extra: SECRETS.mcpEnv },
    ];
    for (const body of refused) {
      const res = await call('PUT', '/api/mcp/config', { body });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(Object.keys(JSON.parse(res.text))).toEqual(['detail']);
    }
  });

  it('refuses wrong keys without echoing them', async () => {
    expect((await call('GET', '/api/models', { key: SECRETS.wrongKey })).status).toBe(401);
    expect((await call('GET', '/api/models', { key: null, bearer: SECRETS.wrongKey })).status).toBe(401);
  });

  it('runs with models whose provider echoes the key, and reports the failure without it', async () => {
    for (const model of ['literal', 'from-env']) {
      const { thread_id: id } = await client.threads.create();
      const events = await collect(client.runs.stream(id, 'lead_agent', { input: userInput('hi'), config: { configurable: { model_name: model } } }));
      const error = events.find((e) => e.event === 'error');
      expect(error?.data, model).toMatchObject({ message: expect.stringMatching(/Incorrect API key provided/) });
      bodies.push({ what: `stream of ${model}`, text: JSON.stringify(events) });
      await call('GET', `/api/langgraph/threads/${id}`);
      await call('GET', `/api/langgraph/threads/${id}/state`);
      const runs = JSON.parse((await call('GET', `/api/langgraph/threads/${id}/runs`)).text) as { runs: { run_id: string }[] };
      for (const r of runs.runs) {
        await call('GET', `/api/langgraph/threads/${id}/runs/${r.run_id}`);
        await call('GET', `/api/langgraph/threads/${id}/runs/${r.run_id}/join`);
        await call('GET', `/api/langgraph/threads/${id}/runs/${r.run_id}/stream`);
      }
    }
  });

  it('shows no secret in any GET answer or in the OpenAPI document', async () => {
    for (const url of ['/api/models', '/api/models/literal', '/api/models/from-env', '/api/mcp/config', '/info', '/metrics', '/openapi.json', '/api/docs/json', '/api/docs/yaml', '/api/skills', '/api/langgraph/assistants/lead_agent']) {
      expect((await call('GET', url)).status, url).toBe(200);
    }
    const doc = bodies.find((b) => b.what.startsWith('GET /openapi.json'))?.text ?? '';
    expect(doc).not.toMatch(/"examples?"\s*:/);
    const model = JSON.parse(bodies.find((b) => b.what.startsWith('GET /api/models/literal'))?.text ?? '{}') as Record<string, unknown>;
    expect(Object.keys(model)).not.toContain('api_key');
    expect(Object.keys(model)).not.toContain('base_url');
  });

  it('leaves no secret in any body sent back', () => {
    expect(bodies.length).toBeGreaterThan(30);
    expect(bodies.filter((b) => leaks(b.text).length > 0).map((b) => `${b.what}: ${leaks(b.text).join(', ')}`)).toEqual([]);
  });

  it('leaves no secret in any log line of the API or the worker', async () => {
    // The worker logs the failed runs asynchronously: wait until it has.
    await waitFor(async () => lines.filter((l) => l.includes('"run finished"')).length >= 2, 'the worker to log both runs');
    expect(lines.length).toBeGreaterThan(50);
    expect(lines.some((l) => l.includes('Incorrect API key provided'))).toBe(true);
    expect(lines.filter((l) => leaks(l).length > 0).map((l) => `${leaks(l).join(', ')}: ${l.slice(0, 300)}`)).toEqual([]);
  });
});

describe('log redaction', () => {
  it('censors secret fields at the top of a log object and one level down', () => {
    const out: string[] = [];
    const log = createLogger('info', 'redaction-test', {
      stream: new Writable({
        write(chunk: Buffer, _e, done) {
          out.push(chunk.toString());
          done();
        },
      }),
    });
    const secret = `s3cr3t-${tag}`;
    log.info({ api_key: secret, apiKey: secret, password: secret, env: { A: secret }, headers: { authorization: secret } }, 'top');
    log.info({ model: { api_key: secret }, server: { env: { A: secret }, headers: { x: secret } }, req: { headers: { 'x-api-key': secret, authorization: secret } } }, 'nested');
    log.info({ auth: { api_keys: [secret] }, web: { search_api_key: secret }, oauth: { client_secret: secret, refresh_token: secret, access_token: secret } }, 'more');
    expect(out).toHaveLength(3);
    for (const line of out) expect(line).not.toContain(secret);
    expect(REDACT_PATHS).toContain('req.headers["x-api-key"]');
  });

  it('masks configured secret values wherever they appear in a line, even JSON-escaped', () => {
    const out: string[] = [];
    const quoted = `quote"and\\slash-${tag}`;
    const log = createLogger('info', 'masking-test', {
      stream: new Writable({
        write(chunk: Buffer, _e, done) {
          out.push(chunk.toString());
          done();
        },
      }),
      secrets: [SECRETS.modelLiteral, quoted, 'short'],
    });
    log.error({ err: new Error(`401 Incorrect API key provided: ${SECRETS.modelLiteral}`) }, `upstream said ${SECRETS.modelLiteral}`);
    log.warn({ reason: `token ${quoted} refused` }, 'quoted');
    log.info('a short word stays');
    const text = out.join('');
    expect(text).not.toContain(SECRETS.modelLiteral);
    expect(text).not.toContain(JSON.stringify(quoted).slice(1, -1));
    expect(text).toContain('Incorrect API key provided: ***');
    // Values under 8 characters are not masked: they would match ordinary words.
    expect(text).toContain('a short word stays');
  });
});
