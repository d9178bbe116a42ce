// GET/PUT /api/mcp/config: masking, `***` round trips, `$NAME` references, validation, atomic
// writes and the reload announcement.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { startGatewayApp, type GatewayApp } from './gateway-app.js';

let gw: GatewayApp;
let subscriber: RedisClient;
const announcements: unknown[] = [];

beforeAll(async () => {
  gw = await startGatewayApp();
  subscriber = connectTestRedis(inject('redisUrl'));
  await subscriber.subscribe(keys.configChangedChannel());
  subscriber.on('message', (_channel: string, message: string) => announcements.push(JSON.parse(message)));
});
afterAll(async () => {
  subscriber?.disconnect();
  await gw?.close();
});

const get = async () => gw.api.app.inject({ method: 'GET', url: '/api/mcp/config' });
const put = async (body: unknown) => gw.api.app.inject({ method: 'PUT', url: '/api/mcp/config', payload: body as object });
/** A read to send back: GET answers the servers under both keys, and a PUT takes one (#30). */
const readBack = async () => ({ mcpServers: (await get()).json().mcpServers });
const stored = () => JSON.parse(readFileSync(gw.extensionsFile, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>>; skills: unknown };

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const config = {
  mcpServers: {
    github: {
      enabled: true,
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_TOKEN: 'ghp_literal_secret', GITHUB_HOST: '$GH_HOST' },
      description: 'GitHub',
    },
    search: { type: 'http', url: 'https://mcp.example/search', headers: { Authorization: 'Bearer abc123', 'X-Tenant': '$TENANT' } },
  },
};

describe('MCP configuration', () => {
  it('reads an empty configuration when the file does not exist', async () => {
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ mcpServers: {}, mcp_servers: {} });
  });

  it('saves a configuration atomically, keeps $NAME as written, and announces the change', async () => {
    const before = announcements.length;
    const res = await put(config);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'MCP configuration saved (2 servers).' });
    const file = stored();
    expect(file.mcpServers.github?.env).toEqual({ GITHUB_TOKEN: 'ghp_literal_secret', GITHUB_HOST: '$GH_HOST' });
    expect(file.mcpServers.search).toMatchObject({ enabled: true, type: 'http', headers: { Authorization: 'Bearer abc123', 'X-Tenant': '$TENANT' } });
    expect(file.skills).toEqual({});
    // No temporary file is left beside it, and only its owner may read it (it holds secrets).
    expect(readdirSync(path.dirname(gw.extensionsFile)).filter((n) => n.includes('.tmp'))).toEqual([]);
    expect(statSync(gw.extensionsFile).mode & 0o777).toBe(0o600);
    await waitFor(() => announcements.length > before);
    expect(announcements.at(-1)).toEqual({ what: 'extensions' });
  });

  it('masks literal env and header values on read, and shows $NAME references as written', async () => {
    const res = await get();
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.mcpServers.github).toEqual({ ...config.mcpServers.github, env: { GITHUB_TOKEN: '***', GITHUB_HOST: '$GH_HOST' } });
    expect(body.mcpServers.search.headers).toEqual({ Authorization: '***', 'X-Tenant': '$TENANT' });
    expect(res.body).not.toMatch(/ghp_literal_secret|abc123/);
  });

  it('keeps the stored value for *** on write, so a read-modify-write round trip loses nothing', async () => {
    const read = await readBack();
    read.mcpServers.github.description = 'GitHub (edited)';
    read.mcpServers.github.env.NEW_VAR = 'plain';
    expect((await put(read)).statusCode).toBe(200);
    const file = stored();
    expect(file.mcpServers.github?.env).toEqual({ GITHUB_TOKEN: 'ghp_literal_secret', GITHUB_HOST: '$GH_HOST', NEW_VAR: 'plain' });
    expect(file.mcpServers.github?.description).toBe('GitHub (edited)');
    expect(file.mcpServers.search?.headers).toEqual({ Authorization: 'Bearer abc123', 'X-Tenant': '$TENANT' });
  });

  it('gives 400 for *** on a key with no stored value, and changes nothing', async () => {
    const before = readFileSync(gw.extensionsFile, 'utf8');
    const newKey = await put({ mcpServers: { ...config.mcpServers, github: { ...config.mcpServers.github, env: { OTHER: '***' } } } });
    expect(newKey.statusCode).toBe(400);
    expect(newKey.json().detail).toMatch(/mcpServers\.github\.env\.OTHER is "\*\*\*" but no value is stored/);
    const newServer = await put({ mcpServers: { fresh: { type: 'sse', url: 'https://x.example/sse', headers: { Authorization: '***' } } } });
    expect(newServer.statusCode).toBe(400);
    expect(newServer.json().detail).toMatch(/mcpServers\.fresh\.headers\.Authorization/);
    expect(readFileSync(gw.extensionsFile, 'utf8')).toBe(before);
  });

  it.each([
    ['an unknown type', { s: { type: 'websocket', command: 'x' } }, /type/],
    ['an env value that is not a string', { s: { command: 'x', env: { A: { nested: 1 } } } }, /env/],
    ['args that are not strings', { s: { command: 'x', args: [{}] } }, /args/],
    ['stdio without a command', { s: { type: 'stdio', args: ['a'] } }, /type stdio and needs a command/],
    ['http without a url', { s: { type: 'http' } }, /type http and needs a url/],
    ['sse with a non-http url', { s: { type: 'sse', url: 'file:///etc/passwd' } }, /not an http\(s\) address/],
    ['a server name with spaces', { 'my server': { command: 'x' } }, /server name "my server" must match/],
  ])('gives 422 for %s', async (_what, mcpServers, detail) => {
    const before = readFileSync(gw.extensionsFile, 'utf8');
    const res = await put({ mcpServers });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toMatch(detail);
    expect(readFileSync(gw.extensionsFile, 'utf8')).toBe(before);
  });

  it('gives 422 when mcpServers is missing or not an object', async () => {
    expect((await put({})).statusCode).toBe(422);
    expect((await put({ mcpServers: [] })).statusCode).toBe(422);
    expect((await put({ mcpServers: { s: 'npx' } })).statusCode).toBe(422);
  });

  it('keeps the skills section and keys it does not know', async () => {
    const file = stored();
    writeFileSync(gw.extensionsFile, JSON.stringify({ ...file, skills: { 'data-analysis': { enabled: false } }, futureKey: { a: 1 } }));
    expect((await put({ mcpServers: { only: { command: 'uvx', args: ['srv'] } } })).statusCode).toBe(200);
    const after = JSON.parse(readFileSync(gw.extensionsFile, 'utf8'));
    expect(after.skills).toEqual({ 'data-analysis': { enabled: false } });
    expect(after.futureKey).toEqual({ a: 1 });
    expect(after.mcpServers).toEqual({ only: { command: 'uvx', args: ['srv'], enabled: true, type: 'stdio' } });
  });

  it('serialises concurrent writes: the file always holds one whole configuration', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => put({ mcpServers: { [`s${i}`]: { command: 'npx', env: { K: `v${i}` } } } })),
    );
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
    const names = Object.keys(stored().mcpServers);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^s\d$/);
  });

  it('answers a generic 500 when the file is corrupt, without leaking its content', async () => {
    writeFileSync(gw.extensionsFile, '{"mcpServers": {"x": {"env": {"T": "secret-in-broken-file"');
    const res = await get();
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ detail: 'Internal server error' });
    writeFileSync(gw.extensionsFile, '{}');
    expect((await get()).json()).toEqual({ mcpServers: {}, mcp_servers: {} });
  });
});
