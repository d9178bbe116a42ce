// Issue 9: OAuth 2.0 for MCP servers over streamable HTTP and SSE. The worker's toolset, with the
// token sources of workers/tools/mcp-oauth.ts, against the MCP fixture on 127.0.0.1 (which
// answers 401 to any token the test's token endpoint has not issued or has revoked) and that
// token endpoint. Token lifetimes run on a clock the test moves; nothing sleeps.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpOAuth, McpServer } from '../../src/config/extensions.js';
import { createMcpOAuth, type McpOAuthOptions } from '../../workers/tools/mcp-oauth.js';
import { createMcpToolset, type McpToolset } from '../../workers/tools/mcp-tools.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/http-server.js';
import { deadTokenUrl, startTokenEndpoint, type TokenEndpoint, type TokenEndpointOptions } from '../fixtures/mcp/token-server.js';
import { callTool, createWorkspace, names, stdioServer, TEST_STDIO_COMMANDS, warnings, type Workspace } from './mcp-support.js';

const FIXTURE_TOOLS = ['add', 'echo', 'env', 'pid'];
const toolNames = (server: string): string[] => FIXTURE_TOOLS.map((tool) => `${server}_${tool}`);

const CLIENT_ID = 'warren-worker';
const CLIENT_SECRET = 'cs-9f2c41d7e5b8a603';
const REFRESH_TOKEN = 'rt-0-4b7e19c2d8f5';

let ws: Workspace;
let clock: number;
let closers: (() => Promise<void>)[];

beforeEach(() => {
  ws = createWorkspace();
  clock = 1_000_000;
  closers = [];
});

afterEach(async () => {
  for (const close of closers.reverse()) await close();
  ws.remove();
});

async function tokenEndpoint(options: TokenEndpointOptions = {}): Promise<TokenEndpoint> {
  const endpoint = await startTokenEndpoint({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...options });
  closers.push(() => endpoint.close());
  return endpoint;
}

/** The MCP fixture, accepting exactly the live tokens of `endpoint`. */
async function mcpBehind(endpoint: TokenEndpoint): Promise<HttpFixture> {
  const fixture = await startHttpFixture({ acceptAuthorization: (value) => endpoint.isValid(value) });
  closers.push(() => fixture.close());
  return fixture;
}

const ENV = { PATH: process.env.PATH, MCP_CLIENT_SECRET: CLIENT_SECRET, MCP_REFRESH_TOKEN: REFRESH_TOKEN };

function open(options: Partial<McpOAuthOptions> = {}): McpToolset {
  const oauth = createMcpOAuth({ log: ws.log, env: ENV, now: () => clock, ...options });
  const toolset = createMcpToolset({
    extensionsConfigPath: ws.configPath,
    log: ws.log,
    env: ENV,
    stdioAllowedCommands: TEST_STDIO_COMMANDS,
    allowPrivateNetworks: true,
    httpAuth: (name, server) => oauth.sourceFor(name, server),
  });
  closers.push(() => toolset.close());
  return toolset;
}

function clientCredentials(tokenUrl: string, extra: Partial<McpOAuth> = {}): McpOAuth {
  return { token_url: tokenUrl, grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: '$MCP_CLIENT_SECRET', ...extra };
}

const httpServer = (url: string, oauth: McpOAuth): McpServer => ({ type: 'http', url, oauth });

/** No log line holds a secret or a token. */
function expectNoSecrets(endpoints: TokenEndpoint[] = []): void {
  const logged = JSON.stringify(ws.lines);
  for (const secret of [CLIENT_SECRET, REFRESH_TOKEN, ...endpoints.flatMap((e) => [...e.issued, ...e.rotated])]) {
    expect(logged).not.toContain(secret);
  }
}

describe('MCP OAuth: tokens on the wire', () => {
  it('discovers and calls tools over streamable HTTP with a client_credentials bearer token', async () => {
    const endpoint = await tokenEndpoint();
    const mcp = await mcpBehind(endpoint);
    await ws.writeServers({
      secured: httpServer(
        mcp.url,
        clientCredentials(endpoint.url, { scope: 'mcp.read mcp.write', audience: 'https://mcp.test', extra_token_params: { resource: 'https://mcp.test/mcp' } }),
      ),
    });
    const tools = await open().tools();

    expect(names(tools)).toEqual(toolNames('secured'));
    expect(await callTool(tools, 'secured_add', { a: 40, b: 2 })).toBe('42');
    // One token request, form-encoded, with the secret resolved from $MCP_CLIENT_SECRET.
    expect(endpoint.requests).toEqual([
      {
        grant_type: 'client_credentials',
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        scope: 'mcp.read mcp.write',
        audience: 'https://mcp.test',
        resource: 'https://mcp.test/mcp',
      },
    ]);
    expect(new Set(mcp.authorizations)).toEqual(new Set([`Bearer ${endpoint.issued[0]}`]));
    expect(mcp.refused).toEqual([]);
    expectNoSecrets([endpoint]);
  });

  it('discovers and calls tools over SSE with a refresh_token grant, keeping a rotated refresh token', async () => {
    const endpoint = await tokenEndpoint({ refreshToken: REFRESH_TOKEN, rotate: true, expiresIn: 120 });
    const mcp = await mcpBehind(endpoint);
    await ws.writeServers({
      legacy: {
        type: 'sse',
        url: mcp.sseUrl,
        oauth: { token_url: endpoint.url, grant_type: 'refresh_token', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, refresh_token: '$MCP_REFRESH_TOKEN' },
      },
    });
    const tools = await open().tools();
    expect(names(tools)).toEqual(toolNames('legacy'));
    expect(await callTool(tools, 'legacy_echo', { text: 'over sse' })).toBe('over sse');

    clock += 121_000;
    expect(await callTool(tools, 'legacy_add', { a: 1, b: 2 })).toBe('3');
    // The second refresh used the refresh token the first one was answered with.
    expect(endpoint.requests.map((r) => [r.grant_type, r.refresh_token])).toEqual([
      ['refresh_token', REFRESH_TOKEN],
      ['refresh_token', endpoint.rotated[0]],
    ]);
    expect(mcp.authorizations.at(-1)).toBe(`Bearer ${endpoint.issued[1]}`);
    expect(mcp.refused).toEqual([]);
    expectNoSecrets([endpoint]);
  });

  it('reads the token from the configured fields and uses default_token_type when the answer names none', async () => {
    const endpoint = await tokenEndpoint({ fields: { token: 'jwt', expiresIn: 'ttl' }, tokenType: null, scheme: 'Token' });
    const mcp = await mcpBehind(endpoint);
    await ws.writeServers({
      custom: httpServer(mcp.url, clientCredentials(endpoint.url, { token_field: 'jwt', expires_in_field: 'ttl', default_token_type: 'Token' })),
    });
    const tools = await open().tools();
    expect(await callTool(tools, 'custom_echo', { text: 'ok' })).toBe('ok');
    expect(mcp.authorizations.at(-1)).toBe(`Token ${endpoint.issued[0]}`);
  });
});

describe('MCP OAuth: expiry and 401', () => {
  it('refreshes the token before it expires, and once more after a 401', async () => {
    const endpoint = await tokenEndpoint({ expiresIn: 120 });
    const mcp = await mcpBehind(endpoint);
    // refresh_skew_seconds defaults to 60: a 120 s token is replaced after 60 s.
    await ws.writeServers({ secured: httpServer(mcp.url, clientCredentials(endpoint.url)) });
    const tools = await open().tools();
    expect(endpoint.issued).toHaveLength(1);

    clock += 59_000;
    expect(await callTool(tools, 'secured_add', { a: 1, b: 1 })).toBe('2');
    expect(endpoint.issued).toHaveLength(1);

    clock += 2_000;
    expect(await callTool(tools, 'secured_add', { a: 2, b: 2 })).toBe('4');
    expect(endpoint.issued).toHaveLength(2);
    expect(mcp.authorizations.at(-1)).toBe(`Bearer ${endpoint.issued[1]}`);
    // Replaced before the server ever refused it.
    expect(mcp.refused).toEqual([]);

    // The server stops accepting the current token before its time: one 401, one new token, one retry.
    endpoint.revoke(endpoint.issued[1] ?? '');
    expect(await callTool(tools, 'secured_add', { a: 3, b: 3 })).toBe('6');
    expect(mcp.refused).toEqual([`Bearer ${endpoint.issued[1]}`]);
    expect(endpoint.issued).toHaveLength(3);
    expect(await callTool(tools, 'secured_add', { a: 4, b: 4 })).toBe('8');
    expect(endpoint.issued).toHaveLength(3);
    expect(mcp.authorizations.at(-1)).toBe(`Bearer ${endpoint.issued[2]}`);
    expectNoSecrets([endpoint]);
  });

  it('retries a 401 only once: a server that refuses every token is skipped after two tokens', async () => {
    const endpoint = await tokenEndpoint();
    const mcp = await startHttpFixture({ acceptAuthorization: () => false });
    closers.push(() => mcp.close());
    await ws.writeServers({ refusing: httpServer(mcp.url, clientCredentials(endpoint.url)), local: stdioServer() });
    const tools = await open().tools();
    expect(names(tools)).toEqual(toolNames('local'));
    expect(endpoint.issued).toHaveLength(2);
    expect(mcp.refused).toHaveLength(2);
    expect(warnings(ws.lines, 'MCP server skipped')).toMatchObject([{ mcp_server: 'refusing', reason: expect.stringMatching(/401/) }]);
  });

  it('keeps a token that has not expired when its early refresh fails, and fails the call once it has', async () => {
    const endpoint = await tokenEndpoint({ expiresIn: 120 });
    const mcp = await mcpBehind(endpoint);
    await ws.writeServers({ secured: httpServer(mcp.url, clientCredentials(endpoint.url)) });
    const tools = await open().tools();

    endpoint.failWith(503);
    clock += 61_000;
    expect(await callTool(tools, 'secured_echo', { text: 'still valid' })).toBe('still valid');
    expect(ws.lines.filter((l) => l.msg.startsWith('MCP OAuth token refresh failed'))).toMatchObject([
      { mcp_server: 'secured', reason: expect.stringMatching(/HTTP 503 \(temporarily_unavailable\)/) },
    ]);

    clock += 60_000;
    await expect(callTool(tools, 'secured_echo', { text: 'expired' })).rejects.toThrow(/HTTP 503/);
    expectNoSecrets([endpoint]);
  });

  it('keeps the token across a reload while the oauth block is unchanged, and fetches anew when it changes', async () => {
    const endpoint = await tokenEndpoint();
    const mcp = await mcpBehind(endpoint);
    await ws.writeServers({ secured: httpServer(mcp.url, clientCredentials(endpoint.url)) });
    const toolset = open();
    await toolset.tools();
    await toolset.reload();
    expect(names(await toolset.tools())).toEqual(toolNames('secured'));
    expect(endpoint.issued).toHaveLength(1);

    await ws.writeServers({ secured: httpServer(mcp.url, clientCredentials(endpoint.url, { scope: 'narrower' })) });
    await toolset.reload();
    expect(await callTool(await toolset.tools(), 'secured_add', { a: 5, b: 5 })).toBe('10');
    expect(endpoint.requests.map((r) => r.scope)).toEqual([undefined, 'narrower']);
  });
});

describe('MCP OAuth: a failing token endpoint', () => {
  it('skips only the servers whose token endpoint fails, each with a clear log line, and loads the rest', async () => {
    const good = await tokenEndpoint();
    const refusing = await tokenEndpoint({ clientSecret: 'a-different-secret' });
    const hanging = await tokenEndpoint();
    hanging.hang();
    const noToken = await tokenEndpoint({ fields: { token: 'id_token' } });
    const mcp = await mcpBehind(good);
    await ws.writeServers({
      dead: httpServer(mcp.url, clientCredentials(await deadTokenUrl())),
      refused: httpServer(mcp.url, clientCredentials(refusing.url)),
      hung: httpServer(mcp.url, clientCredentials(hanging.url)),
      empty: httpServer(mcp.url, clientCredentials(noToken.url)),
      unset: httpServer(mcp.url, clientCredentials(good.url, { client_secret: '$MCP_UNSET_SECRET' })),
      fine: httpServer(mcp.url, clientCredentials(good.url)),
      local: stdioServer(),
    });
    const started = Date.now();
    const tools = await open({ requestTimeoutMs: 500 }).tools();

    expect(names(tools)).toEqual([...toolNames('fine'), ...toolNames('local')]);
    expect(await callTool(tools, 'fine_add', { a: 1, b: 2 })).toBe('3');
    // The hung endpoint cost its own request timeout, not the 30 s connect deadline.
    expect(Date.now() - started).toBeLessThan(10_000);
    const skipped = Object.fromEntries(warnings(ws.lines, 'MCP server skipped').map((l) => [l.mcp_server, l.reason]));
    const endpointOf = /OAuth token request to http:\/\/127\.0\.0\.1:\d+\/token failed: /.source;
    expect(skipped).toEqual({
      dead: expect.stringMatching(new RegExp(`^${endpointOf}could not reach the endpoint \\(ECONNREFUSED\\)`)),
      refused: expect.stringMatching(new RegExp(`^${endpointOf}HTTP 401 \\(invalid_client\\)`)),
      hung: expect.stringMatching(new RegExp(`^${endpointOf}got no answer within 500 ms`)),
      empty: expect.stringMatching(new RegExp(`^${endpointOf}the answer has no "access_token" string`)),
      unset: expect.stringMatching(/oauth\.client_secret refers to \$MCP_UNSET_SECRET, which is not set/),
    });
    expectNoSecrets([good, refusing, hanging, noToken]);
  });

  it('never sends a request that the token endpoint redirects: the secret stays with the configured address', async () => {
    const target = await tokenEndpoint();
    const { createServer } = await import('node:http');
    const redirector = createServer((_req, res) => res.writeHead(307, { location: target.url }).end());
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => redirector.close(() => resolve())));
    const { port } = redirector.address() as { port: number };
    const mcp = await mcpBehind(target);
    await ws.writeServers({ moved: httpServer(mcp.url, clientCredentials(`http://127.0.0.1:${port}/token`)) });

    expect(await open().tools()).toEqual([]);
    expect(target.requests).toEqual([]);
    expect(warnings(ws.lines, 'MCP server skipped')).toMatchObject([{ mcp_server: 'moved', reason: expect.stringMatching(/HTTP 307/) }]);
  });
});
