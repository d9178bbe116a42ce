// Issue 9: the oauth block of an http or sse server in GET/PUT /api/mcp/config. A stored
// client_secret or refresh_token reads as null; on PUT, null (or leaving it out) keeps it, ""
// clears it and anything else replaces it. `$NAME` references are stored as written.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayApp, type GatewayApp } from './gateway-app.js';

const SECRET = 'cs-literal-5d1e8f0a7b';
const REFRESH = 'rt-literal-93c0b6e4a2';
const RESOLVED = 'resolved-value-never-stored';

let gw: GatewayApp;

beforeAll(async () => {
  // Set in the API's own environment: a PUT must still store the reference, not this.
  process.env.MCP_OAUTH_SECRET_TEST = RESOLVED;
  gw = await startGatewayApp();
});
afterAll(async () => {
  delete process.env.MCP_OAUTH_SECRET_TEST;
  await gw?.close();
});

const get = async () => gw.api.app.inject({ method: 'GET', url: '/api/mcp/config' });
const put = async (body: unknown) => gw.api.app.inject({ method: 'PUT', url: '/api/mcp/config', payload: body as object });
/** A read to send back: GET answers the servers under both keys, and a PUT takes one (#30). */
const readBack = async () => ({ mcpServers: (await get()).json().mcpServers });
type StoredServer = { oauth?: Record<string, unknown> } & Record<string, unknown>;
const storedText = (): string => readFileSync(gw.extensionsFile, 'utf8');
const stored = (): Record<string, StoredServer> => (JSON.parse(storedText()) as { mcpServers: Record<string, StoredServer> }).mcpServers;

const TOKEN_URL = 'https://auth.example/oauth/token';
const config = {
  mcpServers: {
    machine: {
      type: 'http',
      url: 'https://mcp.example/mcp',
      oauth: { token_url: TOKEN_URL, client_id: 'warren', client_secret: SECRET, scope: 'mcp.read', extra_token_params: { resource: 'https://mcp.example' } },
    },
    user: {
      type: 'sse',
      url: 'https://mcp.example/sse',
      oauth: { token_url: TOKEN_URL, grant_type: 'refresh_token', client_id: 'warren', client_secret: '$MCP_OAUTH_SECRET_TEST', refresh_token: REFRESH },
    },
    plain: { type: 'http', url: 'https://mcp.example/public', oauth: { token_url: TOKEN_URL, client_id: 'public-client' } },
  },
};

describe('MCP oauth secrets', () => {
  it('stores the oauth block as written, with its defaults, and never resolves a $NAME', async () => {
    const res = await put(config);
    expect(res.statusCode).toBe(200);
    const servers = stored();
    expect(servers.machine?.oauth).toEqual({
      enabled: true,
      token_url: TOKEN_URL,
      grant_type: 'client_credentials',
      client_id: 'warren',
      client_secret: SECRET,
      scope: 'mcp.read',
      extra_token_params: { resource: 'https://mcp.example' },
      token_field: 'access_token',
      token_type_field: 'token_type',
      expires_in_field: 'expires_in',
      default_token_type: 'Bearer',
      refresh_skew_seconds: 60,
    });
    expect(servers.user?.oauth).toMatchObject({ grant_type: 'refresh_token', client_secret: '$MCP_OAUTH_SECRET_TEST', refresh_token: REFRESH });
    expect(storedText()).not.toContain(RESOLVED);
  });

  it('reads client_secret and refresh_token as null, even a $NAME, and shows every other field', async () => {
    const res = await get();
    expect(res.statusCode).toBe(200);
    const { mcpServers } = res.json();
    expect(mcpServers.machine.oauth).toMatchObject({ token_url: TOKEN_URL, client_id: 'warren', client_secret: null, scope: 'mcp.read' });
    expect(mcpServers.machine.oauth).not.toHaveProperty('refresh_token');
    expect(mcpServers.user.oauth).toMatchObject({ grant_type: 'refresh_token', client_secret: null, refresh_token: null });
    // Nothing stored: nothing to hide, so no null either.
    expect(mcpServers.plain.oauth).not.toHaveProperty('client_secret');
    expect(res.body).not.toMatch(new RegExp(`${SECRET}|${REFRESH}|MCP_OAUTH_SECRET_TEST|${RESOLVED}`));
  });

  it('keeps the stored secrets when the read configuration is sent back (null)', async () => {
    const before = stored();
    const res = await put(await readBack());
    expect(res.statusCode).toBe(200);
    expect(stored()).toEqual(before);
  });

  it('keeps the stored secrets when the fields are left out, as serialisers that drop nulls do', async () => {
    const before = stored();
    const body = await readBack();
    delete body.mcpServers.machine.oauth.client_secret;
    delete body.mcpServers.user.oauth.client_secret;
    delete body.mcpServers.user.oauth.refresh_token;
    expect((await put(body)).statusCode).toBe(200);
    expect(stored()).toEqual(before);
  });

  it('replaces a secret given a new value, and clears one given ""', async () => {
    const body = await readBack();
    body.mcpServers.machine.oauth.client_secret = '';
    body.mcpServers.user.oauth.refresh_token = 'rt-replacement-77aa';
    expect((await put(body)).statusCode).toBe(200);
    const servers = stored();
    expect(servers.machine?.oauth).not.toHaveProperty('client_secret');
    expect(servers.user?.oauth).toMatchObject({ client_secret: '$MCP_OAUTH_SECRET_TEST', refresh_token: 'rt-replacement-77aa' });
    const read = await readBack();
    expect(read.mcpServers.machine.oauth).not.toHaveProperty('client_secret');
    expect(read.mcpServers.user.oauth.refresh_token).toBeNull();
  });

  it('gives 422 when clearing the refresh token of a refresh_token grant, and changes nothing', async () => {
    const before = storedText();
    const body = await readBack();
    body.mcpServers.user.oauth.refresh_token = '';
    const res = await put(body);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toBe('mcpServers: server "user" uses grant_type refresh_token and needs oauth.refresh_token.');
    expect(storedText()).toBe(before);
  });

  it('keeps nothing for a null under a new name: a renamed server must be sent its secrets again', async () => {
    const before = storedText();
    const body = await readBack();
    body.mcpServers.renamed = body.mcpServers.user;
    delete body.mcpServers.user;
    const res = await put(body);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toMatch(/server "renamed" uses grant_type refresh_token and needs oauth\.refresh_token/);
    expect(res.body).not.toContain('rt-replacement-77aa');
    expect(storedText()).toBe(before);
  });

  it('keeps masking literal env and header values beside an oauth block', async () => {
    const body = await readBack();
    body.mcpServers.machine.headers = { 'X-Api-Key': 'hk-literal-123456', 'X-Tenant': '$TENANT' };
    expect((await put(body)).statusCode).toBe(200);
    const read = await get();
    expect(read.json().mcpServers.machine.headers).toEqual({ 'X-Api-Key': '***', 'X-Tenant': '$TENANT' });
    expect(read.body).not.toContain('hk-literal-123456');
    expect((await put({ mcpServers: read.json().mcpServers })).statusCode).toBe(200);
    expect(stored().machine?.headers).toEqual({ 'X-Api-Key': 'hk-literal-123456', 'X-Tenant': '$TENANT' });
  });
});
