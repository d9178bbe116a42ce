import { mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_MAX_CHARS } from '../../workers/tools/file-tools.js';
import { createSandboxTools } from '../../workers/tools/sandbox-tools.js';
import { createThreadFiles } from '../../src/workspace/thread-files.js';
import { callTool, createTestHome, findTool, sandboxConfig, type TestHome } from '../sandbox/support.js';
import { mountSmallDisk, type SmallDisk } from '../support/full-disk.js';

const A = 'files-a';
const B = 'files-b';
let t: TestHome;
let tools: StructuredToolInterface[];
let ws: string;

const call = (name: string, args: Record<string, unknown>, thread = A) => callTool(findTool(tools, name), args, thread);

beforeAll(async () => {
  t = await createTestHome('file-tools');
  ({ tools } = await createSandboxTools({ files: t.files, skillsDir: t.skillsDir, sandbox: sandboxConfig(), log: t.log, bwrapPath: null }));
  ws = await t.files.ensureArea(A, 'workspace');
  await t.files.ensureArea(B, 'workspace');
  await writeFile(path.join(t.files.areaDir(B, 'workspace'), 'secret.txt'), 'B only');
  await writeFile(path.join(ws, 'lines.txt'), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  await writeFile(path.join(ws, 'crlf.txt'), 'one\r\ntwo\r\n');
  await writeFile(path.join(ws, 'empty.txt'), '');
  await writeFile(path.join(ws, 'blob.bin'), Buffer.from([1, 2, 0, 3]));
  await mkdir(path.join(ws, 'sub'));
  await symlink(t.files.areaDir(B, 'workspace'), path.join(ws, 'to-b'));
  await symlink('/etc/hostname', path.join(ws, 'hostname'));
  await t.files.ensureArea(A, 'uploads');
  await writeFile(path.join(t.files.areaDir(A, 'uploads'), 'report.md'), '# Uploaded\n');
});

afterAll(async () => {
  await t.cleanup();
});

describe('the tool set', () => {
  it('has the file tools, glob, grep and present_files, and no bash without a sandbox or allow_host_bash', () => {
    expect(tools.map((x) => x.name)).toEqual(['ls', 'read_file', 'glob', 'grep', 'write_file', 'str_replace', 'present_files']);
  });

  it("declares DeerFlow's step description first, and takes null for an optional argument", async () => {
    for (const name of ['ls', 'read_file', 'write_file', 'str_replace']) {
      const schema = (findTool(tools, name) as unknown as { schema: { properties: Record<string, unknown> } }).schema;
      expect(Object.keys(schema.properties)[0], name).toBe('description');
    }
    expect(await call('read_file', { description: 'peek', path: '/mnt/user-data/workspace/lines.txt', start_line: null, end_line: null })).toContain('line 10');
    expect(await call('write_file', { description: 'note', path: '/mnt/user-data/workspace/nulls.txt', content: 'x', append: null })).toMatch(/^Wrote 1 bytes/);
    expect(await call('str_replace', { path: '/mnt/user-data/workspace/nulls.txt', old_str: 'x', new_str: 'y', replace_all: null })).toBeTruthy();
    expect(await readFile(path.join(ws, 'nulls.txt'), 'utf8')).toBe('y');
    await rm(path.join(ws, 'nulls.txt'));
  });

  it('needs a thread id', async () => {
    await expect(findTool(tools, 'ls').invoke({ path: '/mnt/user-data' })).rejects.toThrow(/thread_id/);
    await expect(call('ls', { path: '/mnt/user-data' }, '../x')).rejects.toThrow(/thread_id/);
  });

  it('validates arguments against the schema', async () => {
    await expect(call('read_file', { path: '/mnt/user-data/workspace/lines.txt', start_line: 0 })).rejects.toThrow(/did not match/);
    await expect(call('write_file', { path: '/mnt/user-data/workspace/x.txt' })).rejects.toThrow(/did not match/);
  });
});

describe('ls', () => {
  it('lists entries with their type and size, without temporary files', async () => {
    await writeFile(path.join(ws, '.warren-tmp-hidden'), 'x');
    const out = (await call('ls', { path: '/mnt/user-data/workspace' })) as string;
    expect(out.split('\n')).toEqual([
      '/mnt/user-data/workspace (7 entries)',
      'file  blob.bin  (4 bytes)',
      'file  crlf.txt  (10 bytes)',
      'file  empty.txt  (0 bytes)',
      'link  hostname',
      'file  lines.txt  (71 bytes)',
      'dir   sub/',
      'link  to-b',
    ]);
  });

  it('lists the virtual folders above the roots, the areas and the skills', async () => {
    expect(await call('ls', { path: '/' })).toBe('dir   mnt/');
    expect(await call('ls', { path: '/mnt' })).toBe('dir   skills/\ndir   user-data/');
    expect(await call('ls', { path: '/mnt/user-data' })).toBe('/mnt/user-data (3 entries)\ndir   outputs/\ndir   uploads/\ndir   workspace/');
    expect(await call('ls', { path: '/mnt/skills/public' })).toBe('/mnt/skills/public (1 entry)\ndir   demo/');
    expect(await call('ls', { path: '/mnt/user-data/workspace/sub' })).toBe('/mnt/user-data/workspace/sub is empty.');
    expect(await call('ls', { path: '/mnt/user-data/workspace/lines.txt' })).toBe('file  /mnt/user-data/workspace/lines.txt  (71 bytes)');
  });

  it('refuses paths outside the sandbox and symlink escapes', async () => {
    await expect(call('ls', { path: '/etc' })).rejects.toThrow(/outside the sandbox/);
    await expect(call('ls', { path: '/mnt/user-data/workspace/../../../' })).rejects.toThrow(/leaves/);
    await expect(call('ls', { path: '/mnt/user-data/workspace/to-b' })).rejects.toThrow(/outside the sandbox/);
    await expect(call('ls', { path: '/mnt/user-data/workspace/nope' })).rejects.toThrow('/mnt/user-data/workspace/nope does not exist.');
  });
});

describe('read_file', () => {
  it('reads a whole file, or a 1-based inclusive range of lines', async () => {
    expect(await call('read_file', { path: '/mnt/user-data/workspace/lines.txt' })).toBe(Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'));
    expect(await call('read_file', { path: '/mnt/user-data/workspace/lines.txt', start_line: 3, end_line: 5 })).toBe('line 3\nline 4\nline 5');
    expect(await call('read_file', { path: '/mnt/user-data/workspace/lines.txt', start_line: 9 })).toBe('line 9\nline 10');
    expect(await call('read_file', { path: '/mnt/user-data/workspace/lines.txt', start_line: 10, end_line: 99 })).toBe('line 10');
    expect(await call('read_file', { path: '/mnt/user-data/workspace/lines.txt', end_line: 1 })).toBe('line 1');
  });

  it('keeps CR characters, reads uploads and skills, and says when a file is empty', async () => {
    expect(await call('read_file', { path: '/mnt/user-data/workspace/crlf.txt' })).toBe('one\r\ntwo\r');
    expect(await call('read_file', { path: '/mnt/user-data/uploads/report.md' })).toBe('# Uploaded');
    expect(await call('read_file', { path: '/mnt/skills/public/demo/SKILL.md', end_line: 2 })).toBe('---\nname: demo');
    expect(await call('read_file', { path: '/mnt/user-data/workspace/empty.txt' })).toBe('/mnt/user-data/workspace/empty.txt is empty.');
  });

  it('refuses bad ranges, folders, binary files and escapes', async () => {
    await expect(call('read_file', { path: '/mnt/user-data/workspace/lines.txt', start_line: 11 })).rejects.toThrow('start_line 11 is past the end of /mnt/user-data/workspace/lines.txt, which has 10 lines.');
    await expect(call('read_file', { path: '/mnt/user-data/workspace/lines.txt', start_line: 5, end_line: 4 })).rejects.toThrow(/before start_line/);
    await expect(call('read_file', { path: '/mnt/user-data/workspace/sub' })).rejects.toThrow(/is a folder/);
    await expect(call('read_file', { path: '/mnt/user-data/workspace/blob.bin' })).rejects.toThrow(/binary file/);
    await expect(call('read_file', { path: '/mnt/user-data/workspace/hostname' })).rejects.toThrow(/outside the sandbox/);
    await expect(call('read_file', { path: '/mnt/user-data/workspace/to-b/secret.txt' })).rejects.toThrow(/outside the sandbox/);
    await expect(call('read_file', { path: '/etc/passwd' })).rejects.toThrow(/outside the sandbox/);
    await expect(call('read_file', { path: '/mnt/user-data/workspace/missing.txt' })).rejects.toThrow(/does not exist/);
  });

  it('caps what one call returns and says where to continue', async () => {
    const line = 'x'.repeat(999);
    await writeFile(path.join(ws, 'big.txt'), Array.from({ length: 300 }, () => line).join('\n'));
    const out = (await call('read_file', { path: '/mnt/user-data/workspace/big.txt' })) as string;
    const kept = Math.floor((READ_MAX_CHARS + 1) / 1000);
    expect(out).toContain(`stopped after line ${kept} at the ${READ_MAX_CHARS}-character limit; call read_file with start_line=${kept + 1}`);
    expect(out.length).toBeLessThan(READ_MAX_CHARS + 300);
    await writeFile(path.join(ws, 'one-line.txt'), 'y'.repeat(READ_MAX_CHARS * 2));
    const cut = (await call('read_file', { path: '/mnt/user-data/workspace/one-line.txt' })) as string;
    expect(cut.startsWith('y'.repeat(READ_MAX_CHARS))).toBe(true);
    expect(cut).toContain('stopped after line 1');
  });
});

describe('write_file', () => {
  it('writes atomically, creating folders, and overwrites', async () => {
    expect(await call('write_file', { path: '/mnt/user-data/outputs/deep/er/report.md', content: '# Report\n' })).toBe('Wrote 9 bytes to /mnt/user-data/outputs/deep/er/report.md.');
    expect(await readFile(path.join(t.files.areaDir(A, 'outputs'), 'deep', 'er', 'report.md'), 'utf8')).toBe('# Report\n');
    await call('write_file', { path: '/mnt/user-data/outputs/deep/er/report.md', content: 'v2' });
    expect(await readFile(path.join(t.files.areaDir(A, 'outputs'), 'deep', 'er', 'report.md'), 'utf8')).toBe('v2');
    expect((await readdir(path.join(t.files.areaDir(A, 'outputs'), 'deep', 'er'))).filter((n) => n.startsWith('.warren-tmp-'))).toEqual([]);
  });

  it("appends with DeerFlow's append flag, creating the file when missing", async () => {
    expect(await call('write_file', { path: '/mnt/user-data/workspace/log.txt', content: 'one\n', append: true })).toBe('Appended 4 bytes to /mnt/user-data/workspace/log.txt.');
    await call('write_file', { path: '/mnt/user-data/workspace/log.txt', content: 'two\n', append: true });
    expect(await readFile(path.join(t.files.areaDir(A, 'workspace'), 'log.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('refuses uploads, skills, escapes and folders', async () => {
    await expect(call('write_file', { path: '/mnt/user-data/uploads/report.md', content: 'x' })).rejects.toThrow(/read-only/);
    await expect(call('write_file', { path: '/mnt/skills/public/demo/SKILL.md', content: 'x' })).rejects.toThrow(/read-only/);
    await expect(call('write_file', { path: '/mnt/user-data/workspace/to-b/pwned.txt', content: 'x' })).rejects.toThrow(/outside the sandbox/);
    await expect(call('write_file', { path: '/tmp/x', content: 'x' })).rejects.toThrow(/outside the sandbox/);
    await expect(call('write_file', { path: '/mnt/user-data/workspace/sub', content: 'x' })).rejects.toThrow(/is a folder/);
    expect(await readFile(path.join(t.files.areaDir(A, 'uploads'), 'report.md'), 'utf8')).toBe('# Uploaded\n');
    expect(await readdir(t.files.areaDir(B, 'workspace'))).toEqual(['secret.txt']);
  });
});

describe('str_replace', () => {
  const file = '/mnt/user-data/workspace/edit.txt';
  const real = () => path.join(ws, 'edit.txt');

  it('replaces a unique piece of text, keeping `$` patterns literal', async () => {
    await writeFile(real(), 'alpha beta gamma\n');
    expect(await call('str_replace', { path: file, old_str: 'beta', new_str: '$& $1 delta' })).toBe(`Replaced 1 occurrence in ${file}.`);
    expect(await readFile(real(), 'utf8')).toBe('alpha $& $1 delta gamma\n');
  });

  it('refuses ambiguous text unless replace_all, then replaces every occurrence', async () => {
    await writeFile(real(), 'a-a-a');
    await expect(call('str_replace', { path: file, old_str: 'a', new_str: 'b' })).rejects.toThrow(`old_str appears 3 times in ${file}`);
    expect(await readFile(real(), 'utf8')).toBe('a-a-a');
    expect(await call('str_replace', { path: file, old_str: 'a', new_str: 'bb', replace_all: true })).toBe(`Replaced 3 occurrences in ${file}.`);
    expect(await readFile(real(), 'utf8')).toBe('bb-bb-bb');
  });

  it('refuses missing text, an empty old_str, read-only files and escapes', async () => {
    await expect(call('str_replace', { path: file, old_str: 'zzz', new_str: 'y' })).rejects.toThrow(/was not found/);
    await expect(call('str_replace', { path: file, old_str: '', new_str: 'y' })).rejects.toThrow(/empty/);
    await expect(call('str_replace', { path: '/mnt/user-data/uploads/report.md', old_str: 'Uploaded', new_str: 'x' })).rejects.toThrow(/read-only/);
    await expect(call('str_replace', { path: '/mnt/skills/public/demo/SKILL.md', old_str: 'Demo', new_str: 'x' })).rejects.toThrow(/read-only/);
    await expect(call('str_replace', { path: '/mnt/user-data/workspace/to-b/secret.txt', old_str: 'B', new_str: 'x' })).rejects.toThrow(/outside the sandbox/);
    await expect(call('str_replace', { path: '/mnt/user-data/workspace/nope.txt', old_str: 'a', new_str: 'b' })).rejects.toThrow(/does not exist/);
    await expect(call('str_replace', { path: '/mnt/user-data/workspace/blob.bin', old_str: 'a', new_str: 'b' })).rejects.toThrow(/binary/);
    expect(await readFile(path.join(t.files.areaDir(B, 'workspace'), 'secret.txt'), 'utf8')).toBe('B only');
  });
});

describe('on a full disk', () => {
  let disk: SmallDisk;
  let full: StructuredToolInterface[];
  beforeAll(async () => {
    disk = mountSmallDisk('file-tools-full');
    ({ tools: full } = await createSandboxTools({ files: createThreadFiles(disk.dir), skillsDir: t.skillsDir, sandbox: sandboxConfig(), log: t.log, bwrapPath: null }));
  });
  afterAll(() => disk?.remove());

  it('write_file and str_replace say the disk is full, name the virtual path, and keep the file', async () => {
    const file = '/mnt/user-data/workspace/notes.txt';
    const run = (name: string, args: Record<string, unknown>) => callTool(findTool(full, name), { path: file, ...args }, A);
    await run('write_file', { content: 'kept' });
    const real = path.join(disk.dir, 'threads', A, 'user-data', 'workspace');
    const reason = `Insufficient storage: the disk holding WARREN_HOME is full while writing ${file}.`;
    await disk.whileFull(0, async () => {
      await expect(run('write_file', { content: 'lost' })).rejects.toThrow(reason);
      await expect(run('str_replace', { old_str: 'kept', new_str: 'lost' })).rejects.toThrow(reason);
    });
    expect(await readFile(path.join(real, 'notes.txt'), 'utf8')).toBe('kept');
    expect(await readdir(real)).toEqual(['notes.txt']);
  });
});
