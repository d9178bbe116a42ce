// The bash tool as the agent sees it: offered or not, its replies, and symlinks it plants that
// the file tools must not follow out of the sandbox.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectBwrap } from '../../workers/sandbox/bash-runner.js';
import { formatBashResult } from '../../workers/tools/bash-tool.js';
import { createSandboxTools } from '../../workers/tools/sandbox-tools.js';
import { callTool, createTestHome, findTool, sandboxConfig, type TestHome } from '../sandbox/support.js';

const bwrap = await detectBwrap();
const A = 'bash-tool-a';
let t: TestHome;

beforeAll(async () => {
  t = await createTestHome('bash-tool');
});

afterAll(async () => {
  await t.cleanup();
});

const result = { exitCode: 0, signal: null, stdout: '', stderr: '', timedOut: false, aborted: false, truncated: false, durationMs: 1 };

describe('formatBashResult', () => {
  it('always states how the command ended', () => {
    expect(formatBashResult({ ...result, stdout: 'hi\n' }, 10)).toBe('exit code 0\nstdout:\nhi\n');
    expect(formatBashResult({ ...result, exitCode: 2, stderr: 'bad\n' }, 10)).toBe('exit code 2\nstderr:\nbad\n');
    expect(formatBashResult({ ...result, exitCode: null, signal: 'SIGKILL', timedOut: true }, 10)).toBe('killed: the command ran longer than the 10 s limit\n(no output)');
    expect(formatBashResult({ ...result, exitCode: null, signal: 'SIGSEGV' }, 10)).toBe('killed by SIGSEGV\n(no output)');
    expect(formatBashResult({ ...result, stdout: 'x', truncated: true }, 10)).toContain('[output was longer than the limit; the middle was left out]');
  });
});

describe('bash on the host', () => {
  let tools: StructuredToolInterface[];
  beforeAll(async () => {
    const created = await createSandboxTools({ files: t.files, skillsDir: t.skillsDir, sandbox: sandboxConfig({ allow_host_bash: true }), log: t.log, bwrapPath: null });
    expect(created).toMatchObject({ bash: true, bashMode: 'host' });
    tools = created.tools;
  });

  it('runs a command and describes the host honestly', async () => {
    const bash = findTool(tools, 'bash');
    expect(bash.description).toContain('on the host');
    expect(await callTool(bash, { command: 'echo hi; exit 4' }, A)).toBe('exit code 4\nstdout:\nhi\n');
    await expect(callTool(bash, { command: '   ' }, A)).rejects.toThrow(/empty/);
  });
});

describe.runIf(bwrap.available)('bash under bubblewrap', () => {
  let tools: StructuredToolInterface[];
  beforeAll(async () => {
    const created = await createSandboxTools({ files: t.files, skillsDir: t.skillsDir, sandbox: sandboxConfig(), log: t.log });
    expect(created).toMatchObject({ bash: true, bashMode: 'bwrap' });
    tools = created.tools;
  });

  it('says it is isolated and offline', () => {
    const bash = findTool(tools, 'bash');
    expect(bash.description).toContain('isolated sandbox');
    expect(bash.description).toContain('There is no network access.');
  });

  it('writes files the file tools can read', async () => {
    const bash = findTool(tools, 'bash');
    expect(await callTool(bash, { command: 'mkdir -p /mnt/user-data/outputs/r && printf "a\\nb\\n" > /mnt/user-data/outputs/r/out.txt' }, A)).toBe('exit code 0\n(no output)');
    expect(await callTool(findTool(tools, 'read_file'), { path: '/mnt/user-data/outputs/r/out.txt', start_line: 2 }, A)).toBe('b');
    expect(await readFile(path.join(t.files.areaDir(A, 'outputs'), 'r', 'out.txt'), 'utf8')).toBe('a\nb\n');
  });

  it('plants symlinks to the host that the file tools refuse to follow', async () => {
    const bash = findTool(tools, 'bash');
    await callTool(bash, { command: `ln -s /etc/passwd pw; ln -s ${t.home} home; ln -s /mnt/user-data/uploads up` }, A);
    await expect(callTool(findTool(tools, 'read_file'), { path: '/mnt/user-data/workspace/pw' }, A)).rejects.toThrow(/outside the sandbox/);
    await expect(callTool(findTool(tools, 'ls'), { path: '/mnt/user-data/workspace/home' }, A)).rejects.toThrow(/outside the sandbox/);
    // An absolute link made inside the sandbox means nothing on the host: refused, never followed.
    await expect(callTool(findTool(tools, 'write_file'), { path: '/mnt/user-data/workspace/up/x', content: 'x' }, A)).rejects.toThrow(/outside the sandbox|broken symbolic link/);
  });
});
