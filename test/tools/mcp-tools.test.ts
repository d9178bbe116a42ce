// The worker's MCP toolset against real MCP servers: the stdio fixture (a child process running
// test/fixtures/mcp/fixture-server.ts) and the same tools served in-process over streamable
// HTTP and SSE on 127.0.0.1.
import { writeFileSync } from 'node:fs';
import { connectTestRedis } from '../support/test-redis.js';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { publishConfigChanged } from '../../src/queue/control.js';
import type { HttpAuthSource } from '../../workers/tools/mcp-http-auth.js';
import { watchMcpConfig } from '../../workers/tools/mcp-reload.js';
import { createMcpToolset, type McpToolset, type McpToolsetOptions } from '../../workers/tools/mcp-tools.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/http-server.js';
import { waitFor } from '../support/wait-for.js';
import { alive, callTool, createWorkspace, names, pidsIn, stdioServer, TEST_STDIO_COMMANDS, warnings, type Workspace } from './mcp-support.js';

const FIXTURE_TOOLS = ['add', 'echo', 'env', 'pid'];
const toolNames = (server: string): string[] => FIXTURE_TOOLS.map((tool) => `${server}_${tool}`);

let ws: Workspace;
let toolsets: McpToolset[];
let fixtures: HttpFixture[];

beforeEach(() => {
  ws = createWorkspace();
  toolsets = [];
  fixtures = [];
});

afterEach(async () => {
  await Promise.all(toolsets.map((t) => t.close()));
  await Promise.all(fixtures.map((f) => f.close()));
  ws.remove();
});

function open(options: Partial<McpToolsetOptions> = {}): McpToolset {
  const toolset = createMcpToolset({
    extensionsConfigPath: ws.configPath,
    log: ws.log,
    env: { PATH: process.env.PATH },
    stdioAllowedCommands: TEST_STDIO_COMMANDS,
    // The remote fixture listens on loopback.
    allowPrivateNetworks: true,
    ...options,
  });
  toolsets.push(toolset);
  return toolset;
}

async function http(options: Parameters<typeof startHttpFixture>[0] = {}): Promise<HttpFixture> {
  const fixture = await startHttpFixture(options);
  fixtures.push(fixture);
  return fixture;
}

describe('MCP toolset: loading', () => {
  it('loads a stdio and a streamable http server, names tools <server>_<tool>, and calls them', async () => {
    const remote = await http();
    await ws.writeServers({ local: stdioServer(), remote: { enabled: true, type: 'http', url: remote.url } });
    const tools = await open().tools();

    expect(names(tools)).toEqual([...toolNames('local'), ...toolNames('remote')]);
    expect(await callTool(tools, 'local_add', { a: 2, b: 3 })).toBe('5');
    expect(await callTool(tools, 'remote_echo', { text: 'over http' })).toBe('over http');
    // What the model sees: a tool message under the prefixed name.
    const local = tools.find((t) => t.name === 'local_add');
    const message: unknown = await local?.invoke({ id: 'call-1', name: 'local_add', args: { a: 1, b: 2 }, type: 'tool_call' });
    expect(message).toMatchObject({ content: '3', name: 'local_add', tool_call_id: 'call-1' });
  });

  it('loads an sse server', async () => {
    const remote = await http();
    await ws.writeServers({ legacy: { type: 'sse', url: remote.sseUrl } });
    const tools = await open().tools();
    expect(names(tools)).toEqual(toolNames('legacy'));
    expect(await callTool(tools, 'legacy_add', { a: 20, b: 22 })).toBe('42');
  });

  it('sanitises a server name into the tool name', async () => {
    await ws.writeServers({ 'files.v2': stdioServer() });
    const tools = await open().tools();
    expect(names(tools)).toEqual(toolNames('files_v2'));
    for (const name of names(tools)) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('shares one load between concurrent callers and serves later calls from the cache', async () => {
    const pids = ws.pidFile('one');
    await ws.writeServers({ one: stdioServer({ MCP_FIXTURE_PID_FILE: pids }) });
    const toolset = open();
    const [a, b] = await Promise.all([toolset.tools(), toolset.tools()]);
    const c = await toolset.tools();
    expect(names(a)).toEqual(toolNames('one'));
    expect(names(b)).toEqual(names(a));
    expect(c[0]).toBe(a[0]);
    expect(pidsIn(pids)).toHaveLength(1);
  });

  it('does not start a disabled server', async () => {
    const pids = ws.pidFile('off');
    await ws.writeServers({ off: stdioServer({ MCP_FIXTURE_PID_FILE: pids }, { enabled: false }), on: stdioServer() });
    const tools = await open().tools();
    expect(names(tools)).toEqual(toolNames('on'));
    expect(pidsIn(pids)).toEqual([]);
  });

  it('refuses an http server on loopback unless mcp.allow_private_networks allows it', async () => {
    const remote = await http();
    await ws.writeServers({ remote: { type: 'http', url: remote.url }, real: stdioServer() });
    expect(names(await open({ allowPrivateNetworks: false }).tools())).toEqual(toolNames('real'));
    const [skipped] = warnings(ws.lines, 'MCP server skipped');
    expect(skipped).toMatchObject({ mcp_server: 'remote' });
    expect(String(skipped?.reason)).toMatch(/127\.0\.0\.1 is a local or private address; MCP server "remote" only reaches public hosts/);
    // Refused before any request was sent.
    expect(remote.authorizations).toEqual([]);
  });

  it('skips a server whose command does not exist and still loads the others', async () => {
    await ws.writeServers({
      ghost: { type: 'stdio', command: '/nonexistent/warren-mcp-server', args: ['--stdio'] },
      real: stdioServer(),
    });
    // Allowed, so that the spawn itself is what fails.
    const tools = await open({ stdioAllowedCommands: [...TEST_STDIO_COMMANDS, '/nonexistent/warren-mcp-server'] }).tools();
    expect(names(tools)).toEqual(toolNames('real'));
    const [skipped] = warnings(ws.lines, 'MCP server skipped');
    expect(skipped).toMatchObject({ mcp_server: 'ghost' });
    expect(String(skipped?.reason)).toMatch(/ENOENT/);
  });

  it('skips a server that does not answer within connectTimeoutMs, and ends its process', async () => {
    const pids = ws.pidFile('hang');
    await ws.writeServers({ hang: stdioServer({ MCP_FIXTURE_HANG: '1', MCP_FIXTURE_PID_FILE: pids }), quick: stdioServer() });
    const started = Date.now();
    // Long enough for the quick server to start on a loaded 2-core machine.
    const tools = await open({ connectTimeoutMs: 6_000 }).tools();
    expect(names(tools)).toEqual(toolNames('quick'));
    // The deadline plus the SDK's close (EOF, then SIGTERM after 2 s), not a hang.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(warnings(ws.lines, 'MCP server skipped')).toMatchObject([{ mcp_server: 'hang', reason: expect.stringMatching(/within 6000 ms/) }]);
    const [pid] = pidsIn(pids);
    expect(pid).toBeTypeOf('number');
    await waitFor(async () => !alive(pid ?? 0), 'the hung server to exit', 5_000);
  });

  it('skips entries that are invalid and loads the valid ones', async () => {
    await ws.writeServers({
      nocommand: { type: 'stdio' },
      nourl: { type: 'http' },
      notweb: { type: 'sse', url: 'ftp://127.0.0.1/mcp' },
      good: stdioServer(),
    });
    const tools = await open().tools();
    expect(names(tools)).toEqual(toolNames('good'));
    const skipped = warnings(ws.lines, 'MCP server skipped').map((l) => [l.mcp_server, l.reason]);
    expect(skipped).toEqual([
      ['nocommand', expect.stringMatching(/^invalid config: .*needs a command/)],
      ['nourl', expect.stringMatching(/^invalid config: .*needs a url/)],
      ['notweb', expect.stringMatching(/^invalid config: .*not an http\(s\) address/)],
    ]);
  });

  it('returns no tools, without throwing, when the file is missing or broken', async () => {
    expect(await open().tools()).toEqual([]);
    writeFileSync(ws.configPath, '{"mcpServers": {"x": {"env": {"K": sk-from-a-broken-file}}}}');
    expect(await open().tools()).toEqual([]);
    const [line] = ws.lines.filter((l) => l.msg === 'extensions config unreadable; MCP tools left as they were');
    expect(String(line?.reason)).toMatch(/is not valid JSON/);
    expect(JSON.stringify(ws.lines)).not.toContain('sk-from-a-broken-file');
  });
});

describe('MCP toolset: environment and headers', () => {
  const WORKER_SECRET = 'WARREN_TEST_WORKER_SECRET';

  it("resolves $NAME in env, and gives a stdio child nothing else of the worker's environment", async () => {
    process.env[WORKER_SECRET] = 'sk-process-secret';
    try {
      await ws.writeServers({ tool: stdioServer({ GREETING: '$MCP_GREETING', PLAIN: 'as written' }) });
      const env = { PATH: process.env.PATH, HOME: '/tmp/warren-home', LANG: 'C.UTF-8', MCP_GREETING: 'hello', OPENAI_API_KEY: 'sk-env-secret' };
      const tools = await open({ env }).tools();
      const read = (name: string) => callTool(tools, 'tool_env', { name });
      expect(await read('GREETING')).toBe('hello');
      expect(await read('PLAIN')).toBe('as written');
      expect(await read('HOME')).toBe('/tmp/warren-home');
      expect(await read('LANG')).toBe('C.UTF-8');
      expect(await read('MCP_GREETING')).toBe('(unset)');
      expect(await read('OPENAI_API_KEY')).toBe('(unset)');
      expect(await read(WORKER_SECRET)).toBe('(unset)');
    } finally {
      delete process.env[WORKER_SECRET];
    }
  });

  it('skips a server whose $NAME is not set, naming the variable and no value', async () => {
    await ws.writeServers({
      needs: stdioServer({ LITERAL: 'sk-literal-value', TOKEN: '$MCP_MISSING_TOKEN' }),
      fine: stdioServer(),
    });
    const tools = await open({ env: { PATH: process.env.PATH, MCP_MISSING_TOKEN: '' } }).tools();
    expect(names(tools)).toEqual(toolNames('fine'));
    expect(warnings(ws.lines, 'MCP server skipped')).toMatchObject([
      { mcp_server: 'needs', reason: expect.stringMatching(/env\.TOKEN refers to \$MCP_MISSING_TOKEN, which is not set/) },
    ]);
    expect(JSON.stringify(ws.lines)).not.toContain('sk-literal-value');
  });

  it("reports a stdio server's last stderr lines when it fails to start, with env values masked", async () => {
    await ws.writeServers({ crash: stdioServer({ API_KEY: '$MCP_KEY', MCP_FIXTURE_CRASH: '1' }), fine: stdioServer() });
    const tools = await open({ env: { PATH: process.env.PATH, MCP_KEY: 'sk-key-from-env' } }).tools();
    expect(names(tools)).toEqual(toolNames('fine'));
    expect(warnings(ws.lines, 'MCP server skipped')).toMatchObject([
      { mcp_server: 'crash', reason: expect.stringMatching(/Connection closed; stderr: refused key \*\*\*$/) },
    ]);
    expect(JSON.stringify(ws.lines)).not.toContain('sk-key-from-env');
  });

  it('resolves $NAME in the headers of an http server and never logs a header value', async () => {
    const remote = await http({ acceptAuthorization: (value) => value === 'Bearer s3cret-token' });
    await ws.writeServers({
      allowed: { type: 'http', url: remote.url, headers: { Authorization: '$MCP_AUTH' } },
      denied: { type: 'http', url: remote.url, headers: { Authorization: 'Bearer wrong-token-value' } },
      unset: { type: 'http', url: remote.url, headers: { Authorization: '$MCP_AUTH_UNSET' } },
    });
    const tools = await open({ env: { MCP_AUTH: 'Bearer s3cret-token' } }).tools();
    expect(names(tools)).toEqual(toolNames('allowed'));
    expect(await callTool(tools, 'allowed_add', { a: 1, b: 1 })).toBe('2');
    expect(warnings(ws.lines, 'MCP server skipped')).toMatchObject([
      { mcp_server: 'denied', reason: expect.stringMatching(/HTTP 401/) },
      { mcp_server: 'unset', reason: expect.stringMatching(/headers\.Authorization refers to \$MCP_AUTH_UNSET/) },
    ]);
    const logged = JSON.stringify(ws.lines);
    expect(logged).not.toContain('s3cret-token');
    expect(logged).not.toContain('wrong-token-value');
  });

  it('asks an http auth source for the header, and after a 401 for a fresh one, once', async () => {
    const remote = await http({ acceptAuthorization: (value) => value === 'Bearer fresh' });
    let current = 'Bearer stale';
    const invalidated: string[] = [];
    const source: HttpAuthSource = {
      authorization: async () => current,
      invalidate: (rejected) => {
        invalidated.push(rejected);
        current = 'Bearer fresh';
      },
    };
    const failing: HttpAuthSource = {
      authorization: async () => {
        throw new Error('token endpoint answered 503');
      },
      invalidate: () => undefined,
    };
    await ws.writeServers({ oauth: { type: 'http', url: remote.url }, dead: { type: 'http', url: remote.url }, local: stdioServer() });
    const tools = await open({ httpAuth: (name) => (name === 'oauth' ? source : name === 'dead' ? failing : undefined) }).tools();

    expect(names(tools)).toEqual([...toolNames('local'), ...toolNames('oauth')]);
    expect(await callTool(tools, 'oauth_echo', { text: 'authorised' })).toBe('authorised');
    expect(invalidated).toEqual(['Bearer stale']);
    expect(remote.authorizations.filter((a) => a === 'Bearer stale')).toHaveLength(1);
    expect(warnings(ws.lines, 'MCP server skipped')).toMatchObject([{ mcp_server: 'dead', reason: expect.stringMatching(/503/) }]);
  });
});

describe('MCP toolset: reload and close', () => {
  it('picks up a changed config on reload, and the old stdio child exits', async () => {
    await ws.writeServers({ alpha: stdioServer() });
    const toolset = open();
    const before = await toolset.tools();
    expect(names(before)).toEqual(toolNames('alpha'));
    const alphaPid = Number(await callTool(before, 'alpha_pid', {}));
    expect(alive(alphaPid)).toBe(true);

    await ws.writeServers({ beta: stdioServer() });
    await toolset.reload();
    const after = await toolset.tools();
    expect(names(after)).toEqual(toolNames('beta'));
    expect(alive(alphaPid)).toBe(false);
    // A run still holding an old tool gets an error it can turn into a tool message.
    await expect(callTool(before, 'alpha_add', { a: 1, b: 1 })).rejects.toThrow();
  });

  it('keeps the current tools when the changed file cannot be read', async () => {
    await ws.writeServers({ alpha: stdioServer() });
    const toolset = open();
    await toolset.tools();
    writeFileSync(ws.configPath, '{ not json');
    await toolset.reload();
    const tools = await toolset.tools();
    expect(names(tools)).toEqual(toolNames('alpha'));
    expect(await callTool(tools, 'alpha_add', { a: 2, b: 2 })).toBe('4');
  });

  it('starts nothing on a reload before first use, then loads the current file', async () => {
    const pids = ws.pidFile('lazy');
    await ws.writeServers({ lazy: stdioServer({ MCP_FIXTURE_PID_FILE: pids }) });
    const toolset = open();
    await toolset.reload();
    expect(pidsIn(pids)).toEqual([]);
    expect(names(await toolset.tools())).toEqual(toolNames('lazy'));
    expect(pidsIn(pids)).toHaveLength(1);
  });

  it('joins a burst of reload requests into one reload', async () => {
    const pids = ws.pidFile('burst');
    await ws.writeServers({ burst: stdioServer({ MCP_FIXTURE_PID_FILE: pids }) });
    const toolset = open();
    await toolset.tools();
    const requests = Array.from({ length: 5 }, () => toolset.reload());
    expect(new Set(requests).size).toBe(1);
    await Promise.all(requests);
    const [first, second] = pidsIn(pids);
    expect(pidsIn(pids)).toHaveLength(2);
    expect(alive(first ?? 0)).toBe(false);
    expect(alive(second ?? 0)).toBe(true);
  });

  it('ends every stdio child on close, is idempotent, and returns no tools afterwards', async () => {
    const pids = ws.pidFile('both');
    await ws.writeServers({ a: stdioServer({ MCP_FIXTURE_PID_FILE: pids }), b: stdioServer({ MCP_FIXTURE_PID_FILE: pids }) });
    const toolset = open();
    expect(await toolset.tools()).toHaveLength(8);
    const children = pidsIn(pids);
    expect(children.every(alive)).toBe(true);
    const closing = toolset.close();
    expect(toolset.close()).toBe(closing);
    await closing;
    expect(children.some(alive)).toBe(false);
    expect(await toolset.tools()).toEqual([]);
    await toolset.reload();
    expect(pidsIn(pids)).toHaveLength(2);
  });
});

describe('MCP toolset: reload on a config-changed announcement', () => {
  it('reloads when the gateway announces an extensions change over Redis pub/sub', async () => {
    const subscriber = connectTestRedis(inject('redisUrl'));
    const publisher = connectTestRedis(inject('redisUrl'));
    try {
      await ws.writeServers({ alpha: stdioServer() });
      const toolset = open();
      expect(names(await toolset.tools())).toEqual(toolNames('alpha'));
      await watchMcpConfig(subscriber, toolset, ws.log);

      await ws.writeServers({ beta: stdioServer() });
      await publishConfigChanged(publisher, { what: 'extensions' });
      await waitFor(async () => (await toolset.tools()).some((t) => t.name === 'beta_add'), 'the toolset to reload', 15_000);
      expect(names(await toolset.tools())).toEqual(toolNames('beta'));
    } finally {
      subscriber.disconnect();
      publisher.disconnect();
    }
  });
});
