// Issue 9: a worker refuses to start a stdio server that breaks the stdio policy, even when
// extensions_config.json was edited by hand past the gateway. Each refused entry would, if
// started, create a marker file; none may appear.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpToolset, type McpToolset, type McpToolsetOptions } from '../../workers/tools/mcp-tools.js';
import { createWorkspace, FIXTURE_SERVER, names, stdioServer, TEST_STDIO_COMMANDS, warnings, type Workspace } from './mcp-support.js';

const FIXTURE_TOOLS = ['add', 'echo', 'env', 'pid'];
const toolNames = (server: string): string[] => FIXTURE_TOOLS.map((tool) => `${server}_${tool}`);

let ws: Workspace;
let toolsets: McpToolset[];

beforeEach(() => {
  ws = createWorkspace();
  toolsets = [];
});

afterEach(async () => {
  await Promise.all(toolsets.map((t) => t.close()));
  ws.remove();
});

function open(options: Partial<McpToolsetOptions> = {}): McpToolset {
  const toolset = createMcpToolset({ extensionsConfigPath: ws.configPath, log: ws.log, env: { PATH: process.env.PATH }, ...options });
  toolsets.push(toolset);
  return toolset;
}

const skipReasons = (): Record<string, unknown> =>
  Object.fromEntries(warnings(ws.lines, 'MCP server skipped').map((l) => [l.mcp_server, l.reason]));

describe('MCP stdio policy in the worker', () => {
  it('starts no stdio server that breaks the policy, and still loads the ones that keep it', async () => {
    const marker = (name: string): string => path.join(ws.dir, `${name}.ran`);
    const touch = (name: string): string => `require("node:fs").writeFileSync(${JSON.stringify(marker(name))}, "")`;
    await ws.writeServers({
      shell: { type: 'stdio', command: 'sh', args: ['-c', `touch ${marker('shell')}`] },
      inline: { type: 'stdio', command: process.execPath, args: ['-e', touch('inline')] },
      printed: { type: 'stdio', command: process.execPath, args: ['--print', touch('printed')] },
      dataurl: { type: 'stdio', command: process.execPath, args: ['--import', `data:text/javascript,${touch('dataurl')}`, FIXTURE_SERVER] },
      preload: stdioServer({ NODE_OPTIONS: `--import=data:text/javascript,${touch('preload')}` }),
      good: stdioServer(),
    });
    const tools = await open({ stdioAllowedCommands: TEST_STDIO_COMMANDS }).tools();

    expect(names(tools)).toEqual(toolNames('good'));
    const policy = /^refused by the stdio policy: server "[a-z]+": /.source;
    expect(skipReasons()).toEqual({
      shell: expect.stringMatching(new RegExp(`${policy}command "sh" is not allowed for stdio servers`)),
      inline: expect.stringMatching(new RegExp(`${policy}args\\[0\\] "-e" runs code given inline`)),
      printed: expect.stringMatching(new RegExp(`${policy}args\\[0\\] "--print" runs code given inline`)),
      dataurl: expect.stringMatching(new RegExp(`${policy}args\\[1\\] is a data: URL`)),
      preload: expect.stringMatching(new RegExp(`${policy}env\\.NODE_OPTIONS may not be set`)),
    });
    for (const name of ['shell', 'inline', 'printed', 'dataurl', 'preload']) expect(existsSync(marker(name))).toBe(false);
  });

  it('uses npx, uvx and node by default, and accepts an absolute path only when it is the node on PATH', async () => {
    // A PATH whose `node` is the node running the tests, so the absolute path is that very file.
    const env = { PATH: [path.dirname(process.execPath), process.env.PATH].join(path.delimiter) };
    await ws.writeServers({
      absolute: stdioServer(),
      lookalike: { type: 'stdio', command: path.join(ws.dir, 'node'), args: [FIXTURE_SERVER] },
    });
    const tools = await open({ env }).tools();
    expect(names(tools)).toEqual(toolNames('absolute'));
    expect(skipReasons()).toEqual({
      lookalike: expect.stringMatching(/command ".*\/node" is not allowed for stdio servers \(allowed: npx, uvx, node;/),
    });
  });

  it('refuses every stdio server when the allowlist is empty', async () => {
    await ws.writeServers({ any: stdioServer() });
    expect(await open({ stdioAllowedCommands: [] }).tools()).toEqual([]);
    expect(skipReasons()).toEqual({ any: expect.stringMatching(/is not allowed for stdio servers \(allowed: none;/) });
  });
});
