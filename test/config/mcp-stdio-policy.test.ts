// src/config/mcp-stdio-policy.ts: which stdio command lines the gateway stores and workers start
// (issue 9), and the `mcp` section of config.yaml that widens the allowlist.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../src/config/load-config.js';
import { checkStdioServer, DEFAULT_STDIO_ALLOWED_COMMANDS, type StdioPolicy } from '../../src/config/mcp-stdio-policy.js';
import { ConfigError } from '../../src/errors.js';

let dir: string;
let bin: string;
let policy: StdioPolicy;

beforeAll(() => {
  // A PATH of one folder whose `node` is a link to the node running the tests.
  dir = mkdtempSync(path.join(tmpdir(), 'warren-stdio-policy-'));
  bin = path.join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, path.join(bin, 'node'));
  policy = { allowedCommands: DEFAULT_STDIO_ALLOWED_COMMANDS, searchPath: bin };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const check = (server: Parameters<typeof checkStdioServer>[1], given: StdioPolicy = policy) => checkStdioServer('srv', server, given);

describe('stdio policy: the command', () => {
  it.each(['npx', 'uvx', 'node'])('allows %s by default, spawned as written', async (command) => {
    expect(await check({ command, args: ['server'] })).toEqual({ ok: true, command });
  });

  it.each([
    ['a shell', 'sh'],
    ['another interpreter', 'python3'],
    ['a relative path', './node'],
    ['a path inside a folder', 'bin/node'],
    ['a look-alike absolute path', '/tmp/evil/node'],
    ['an empty command', ''],
  ])('refuses %s, naming the server, the command and how to widen the list', async (_what, command) => {
    const verdict = await check({ command });
    expect(verdict).toEqual({
      ok: false,
      reason: `server "srv": command "${command}" is not allowed for stdio servers (allowed: npx, uvx, node; an operator widens mcp.stdio_allowed_commands in config.yaml)`,
    });
  });

  it('allows an absolute path that is the same file as an allowed name on PATH, and spawns that file', async () => {
    const viaLink = path.join(dir, 'elsewhere-node');
    symlinkSync(path.join(bin, 'node'), viaLink);
    expect(await check({ command: viaLink })).toEqual({ ok: true, command: process.execPath });
    expect(await check({ command: process.execPath })).toEqual({ ok: true, command: process.execPath });
  });

  it('refuses an executable named like an allowed command that is another file', async () => {
    const copy = path.join(dir, 'copy', 'node');
    mkdirSync(path.dirname(copy));
    copyFileSync('/bin/sh', copy);
    chmodSync(copy, 0o755);
    expect((await check({ command: copy })).ok).toBe(false);
  });

  it('allows what an operator lists: a name, or an absolute path as written', async () => {
    const widened = { allowedCommands: [...DEFAULT_STDIO_ALLOWED_COMMANDS, 'python3', '/opt/mcp/bin/server'], searchPath: bin };
    expect(await check({ command: 'python3', args: ['-m', 'my_server'] }, widened)).toEqual({ ok: true, command: 'python3' });
    expect(await check({ command: '/opt/mcp/bin/server' }, widened)).toEqual({ ok: true, command: '/opt/mcp/bin/server' });
    expect((await check({ command: 'npx' }, { allowedCommands: [], searchPath: bin })).ok).toBe(false);
  });
});

describe('stdio policy: inline code in the arguments', () => {
  it.each([
    [['-e', 'code'], 0, '"-e" runs code given inline'],
    [['-E', 'code'], 0, '"-E" runs code given inline'],
    [['-p', 'code'], 0, '"-p" runs code given inline'],
    [['-pe', 'code'], 0, '"-p" runs code given inline'],
    [['-c', 'code'], 0, '"-c" runs code given inline'],
    [['-lc', 'code'], 0, '"-lc" runs code given inline'],
    [['-cimport os; os.system("x")'], 0, '"-c" runs code given inline'],
    [['--eval', 'code'], 0, '"--eval" runs code given inline'],
    [['--eval=code'], 0, '"--eval" runs code given inline'],
    [['--print', 'code'], 0, '"--print" runs code given inline'],
    [['--call', 'rm -rf /'], 0, '"--call" runs code given inline'],
    [['--cal=rm -rf /'], 0, '"--cal" runs code given inline'],
    [['--node-options=--require=x'], 0, '"--node-options" runs code given inline'],
    [['--node_options', '--require=x'], 0, '"--node_options" runs code given inline'],
    [['eval', 'code'], 0, '"eval" runs code given inline'],
    [['--import', 'data:text/javascript,code'], 1, 'is a data: URL, which carries code inline'],
    [['--import=data:text/javascript,code'], 0, 'is a data: URL, which carries code inline'],
    [['--inspect=0.0.0.0:9229', 'server.js'], 0, '"--inspect" opens a debugger, through which code can be run'],
    [['--inspect-brk', 'server.js'], 0, '"--inspect-brk" opens a debugger, through which code can be run'],
    [['--debug_port=9229'], 0, '"--debug_port" opens a debugger, through which code can be run'],
    // npx and uvx pass what follows the package on: a flag anywhere counts.
    [['-y', 'node@22', '-e', 'code'], 2, '"-e" runs code given inline'],
    [['--from', 'x', 'python', '-c', 'code'], 3, '"-c" runs code given inline'],
  ])('refuses %j (args[%i])', async (args, index, problem) => {
    const verdict = await check({ command: 'npx', args });
    expect(verdict).toEqual({ ok: false, reason: `server "srv": args[${index}] ${problem}, which stdio servers may not do` });
  });

  it('never quotes the code itself', async () => {
    const verdict = await check({ command: 'uvx', args: ['-csecret_code()'] });
    expect(verdict.ok).toBe(false);
    expect(JSON.stringify(verdict)).not.toContain('secret_code');
  });

  it.each([
    [['-y', '@modelcontextprotocol/server-github']],
    [['--yes', '--package=@scope/pkg', 'bin', '--stdio']],
    [['--from', 'mcp-server-fetch', 'mcp-server-fetch']],
    [['-m', 'my_server']],
    [['server.js', '--port', '3000', '--config', './config.json', '-v']],
    [['--env-file=.env', '-y']],
    [['--require', './instrument.js', '--import', './register.mjs', 'server.js']],
    [['--trace-warnings', 'server.js']],
  ])('allows %j', async (args) => {
    expect(await check({ command: 'npx', args })).toEqual({ ok: true, command: 'npx' });
  });
});

describe('stdio policy: the environment', () => {
  it.each(['PATH', 'path', 'NODE_OPTIONS', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'DYLD_INSERT_LIBRARIES', 'npm_config_call', 'NPM_CONFIG_NODE_OPTIONS', 'BASH_ENV', 'ENV'])(
    'refuses env.%s',
    async (key) => {
      const verdict = await check({ command: 'npx', env: { [key]: 'x' } });
      expect(verdict).toEqual({
        ok: false,
        reason: `server "srv": env.${key} may not be set, since it changes which program starts or what code it runs`,
      });
    },
  );

  it('allows ordinary variables', async () => {
    expect((await check({ command: 'npx', env: { GITHUB_TOKEN: 'x', NODE_ENV: 'production', LANG: 'C' } })).ok).toBe(true);
  });
});

describe('config.yaml mcp section', () => {
  it('defaults to npx, uvx and node', () => {
    expect(parseAppConfig({}, {}).mcp).toEqual({ stdio_allowed_commands: ['npx', 'uvx', 'node'], allow_private_networks: false });
  });

  it('takes a wider list of names and absolute paths', () => {
    const config = parseAppConfig({ mcp: { stdio_allowed_commands: ['npx', 'python3', '/opt/mcp/bin/server'] } }, {});
    expect(config.mcp.stdio_allowed_commands).toEqual(['npx', 'python3', '/opt/mcp/bin/server']);
  });

  it.each([['./bin/server'], ['npx -y'], ['']])('refuses the entry %j', (entry) => {
    expect(() => parseAppConfig({ mcp: { stdio_allowed_commands: [entry] } }, {})).toThrow(ConfigError);
  });
});
