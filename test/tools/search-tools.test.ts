// glob, grep and list_uploaded_files (#30): DeerFlow's arguments and answer texts, on virtual
// paths, refusing every way out of the thread's sandbox.
import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globToRegExp } from '../../workers/tools/search-tools.js';
import { createSandboxTools } from '../../workers/tools/sandbox-tools.js';
import { createListUploadedFilesTool } from '../../workers/tools/uploads-tool.js';
import { callTool, createTestHome, findTool, sandboxConfig, type TestHome } from '../sandbox/support.js';

const A = 'search-a';
const B = 'search-b';
const EMPTY = 'search-empty';
let t: TestHome;
let tools: StructuredToolInterface[];
let listUploads: StructuredToolInterface;
let ws: string;

const call = (name: string, args: Record<string, unknown>, thread = A) => callTool(findTool(tools, name), args, thread);
const WS = '/mnt/user-data/workspace';

beforeAll(async () => {
  t = await createTestHome('search-tools');
  ({ tools } = await createSandboxTools({ files: t.files, skillsDir: t.skillsDir, sandbox: sandboxConfig(), log: t.log, bwrapPath: null }));
  listUploads = createListUploadedFilesTool(t.files);
  ws = await t.files.ensureArea(A, 'workspace');
  const bWs = await t.files.ensureArea(B, 'workspace');
  await writeFile(path.join(bWs, 'secret.py'), 'TOKEN = "b-only"\n');
  await mkdir(path.join(ws, 'src', 'lib'), { recursive: true });
  await mkdir(path.join(ws, 'node_modules', 'dep'), { recursive: true });
  await writeFile(path.join(ws, 'main.py'), 'import os\nTOKEN = "a"\nprint("Hello")\n');
  await writeFile(path.join(ws, 'src', 'app.py'), 'def hello():\n    return "hello world"\n');
  await writeFile(path.join(ws, 'src', 'lib', 'util.ts'), 'export const hello = 1;\n' + `const long = "${'x'.repeat(300)} hello";\n` + `const huge = "${'y'.repeat(2500)} hello";\n`);
  await writeFile(path.join(ws, 'node_modules', 'dep', 'index.py'), 'hello = "ignored"\n');
  await writeFile(path.join(ws, 'run.log'), 'hello from a log\n');
  await writeFile(path.join(ws, 'blob.bin'), Buffer.from([104, 101, 108, 108, 111, 0, 1]));
  await writeFile(path.join(ws, 'big.txt'), `hello\n${'z'.repeat(1024 * 1024)}`);
  await writeFile(path.join(ws, 'regex.txt'), 'a.b\naxb\n');
  // Ways out: a folder link to another thread, a file link to the host.
  await symlink(bWs, path.join(ws, 'to-b'));
  await symlink('/etc/hostname', path.join(ws, 'hostname.py'));
});

afterAll(async () => {
  await t.cleanup();
});

describe('globToRegExp', () => {
  it('keeps * inside a name and lets **/ span none or many folders', () => {
    expect(globToRegExp('**/*.py').test('main.py')).toBe(true);
    expect(globToRegExp('**/*.py').test('src/app.py')).toBe(true);
    expect(globToRegExp('*.py').test('src/app.py')).toBe(false);
    expect(globToRegExp('src/*.{py,ts}').test('src/app.py')).toBe(true);
    expect(globToRegExp('src/?pp.py').test('src/app.py')).toBe(true);
    expect(globToRegExp('[!m]*.py').test('main.py')).toBe(false);
  });
});

describe('glob', () => {
  it('lists matches as DeerFlow does, skipping ignored folders and never entering links', async () => {
    const out = await call('glob', { description: 'find python', pattern: '**/*.py', path: WS });
    expect(out).toBe([`Found 2 paths under ${WS}`, `1. ${WS}/main.py`, `2. ${WS}/src/app.py`].join('\n'));
  });

  it('includes folders on request, and says when nothing matched', async () => {
    expect(await call('glob', { pattern: '**/lib', path: WS, include_dirs: true })).toBe(`Found 1 paths under ${WS}\n1. ${WS}/src/lib`);
    expect(await call('glob', { pattern: '**/lib', path: WS })).toBe(`No files matched under ${WS}`);
  });

  it('truncates at max_results with the note, and treats 0 as the default', async () => {
    const out = String(await call('glob', { pattern: '**/*', path: WS, max_results: 2 }));
    expect(out.split('\n')[0]).toBe(`Found 2 paths under ${WS} (showing first 2)`);
    expect(out.split('\n').at(-1)).toBe('Results truncated. Narrow the path or pattern to see fewer matches.');
    expect(String(await call('glob', { pattern: '**/*.py', path: WS, max_results: 0 }))).toMatch(/^Found 2 paths/);
  });

  it('searches the skills too', async () => {
    expect(await call('glob', { pattern: '**/SKILL.md', path: '/mnt/skills' })).toBe('Found 1 paths under /mnt/skills\n1. /mnt/skills/public/demo/SKILL.md');
  });

  it('refuses escapes, missing folders and files', async () => {
    await expect(call('glob', { pattern: '*', path: '/etc' })).rejects.toThrow(/outside the sandbox/);
    await expect(call('glob', { pattern: '*', path: `${WS}/../../../../` })).rejects.toThrow(/outside|leaves|invalid|refused/i);
    await expect(call('glob', { pattern: '*', path: `${WS}/to-b` })).rejects.toThrow(/outside the sandbox/);
    await expect(call('glob', { pattern: '*', path: `${WS}/nope` })).rejects.toThrow(`Directory not found: ${WS}/nope`);
    await expect(call('glob', { pattern: '*', path: `${WS}/main.py` })).rejects.toThrow(`Path is not a directory: ${WS}/main.py`);
    // A pattern cannot climb out either: it only filters what the walk under path found.
    expect(await call('glob', { pattern: '../**/*.py', path: WS })).toBe(`No files matched under ${WS}`);
  });
});

describe('grep', () => {
  it('finds lines case-insensitively by default, as path:line: text', async () => {
    const out = await call('grep', { description: 'look', pattern: 'hello', path: WS });
    expect(out).toBe(
      [
        `Found 5 matches under ${WS}`,
        `${WS}/main.py:3: print("Hello")`,
        `${WS}/src/app.py:1: def hello():`,
        `${WS}/src/app.py:2:     return "hello world"`,
        `${WS}/src/lib/util.ts:1: export const hello = 1;`,
        `${WS}/src/lib/util.ts:2: const long = "${'x'.repeat(186)}...`,
      ].join('\n'),
    );
  });

  it('skips binary and big files, logs, ignored folders, links and over-long lines; cuts long ones', async () => {
    const out = String(await call('grep', { pattern: 'hello', path: `${WS}/src/lib` }));
    // The 300-character line matches past the cut, and is shown cut; the 2500-character one is skipped.
    expect(out.split('\n')[0]).toBe(`Found 2 matches under ${WS}/src/lib`);
    expect(out).toContain(`${WS}/src/lib/util.ts:2: const long = "${'x'.repeat(186)}...`);
    expect(out).not.toContain(':3:');
    const all = String(await call('grep', { pattern: 'hello|TOKEN', path: WS }));
    for (const skipped of ['blob.bin', 'big.txt', 'run.log', 'node_modules', 'to-b', 'hostname', 'b-only']) expect(all).not.toContain(skipped);
  });

  it('honours case_sensitive, literal and glob', async () => {
    expect(await call('grep', { pattern: 'Hello', path: WS, case_sensitive: true })).toBe(`Found 1 matches under ${WS}\n${WS}/main.py:3: print("Hello")`);
    expect(await call('grep', { pattern: 'a.b', path: `${WS}/regex.txt`, literal: true })).toBe(`Found 1 matches under ${WS}/regex.txt\n${WS}/regex.txt:1: a.b`);
    expect(String(await call('grep', { pattern: 'a.b', path: `${WS}/regex.txt` }))).toMatch(/^Found 2 matches/);
    expect(await call('grep', { pattern: 'hello =', path: WS, glob: '*.ts' })).toBe(`Found 1 matches under ${WS}\n${WS}/src/lib/util.ts:1: export const hello = 1;`);
  });

  it('marks the answer truncated as soon as max_results is reached', async () => {
    const out = String(await call('grep', { pattern: 'hello', path: WS, max_results: 2 }));
    expect(out.split('\n')).toEqual([`Found 2 matches under ${WS} (showing first 2)`, `${WS}/main.py:3: print("Hello")`, `${WS}/src/app.py:1: def hello():`, 'Results truncated. Narrow the path or add a glob filter.']);
  });

  it('says when nothing matched, and refuses a bad regex and escapes', async () => {
    expect(await call('grep', { pattern: 'no-such-text', path: WS })).toBe(`No matches found under ${WS}`);
    await expect(call('grep', { pattern: '(unclosed', path: WS })).rejects.toThrow(/Invalid regex pattern/);
    await expect(call('grep', { pattern: 'root', path: '/etc/passwd' })).rejects.toThrow(/outside the sandbox/);
    await expect(call('grep', { pattern: 'TOKEN', path: `${WS}/to-b/secret.py` })).rejects.toThrow(/outside the sandbox/);
    await expect(call('grep', { pattern: '.', path: `${WS}/hostname.py` })).rejects.toThrow(/outside the sandbox/);
    await expect(call('grep', { pattern: 'x', path: `${WS}/gone.txt` })).rejects.toThrow(`Path not found: ${WS}/gone.txt`);
  });
});

describe('list_uploaded_files', () => {
  let uploads: string;
  beforeAll(async () => {
    uploads = await t.files.ensureArea(A, 'uploads');
    await writeFile(path.join(uploads, 'report.pdf'), '%PDF-1.4 binary');
    await writeFile(path.join(uploads, 'report.md'), '# Annual report\nintro\n## Revenue\nup\n');
    await writeFile(path.join(uploads, 'data.csv'), 'a,b\n1,2\n');
    await writeFile(path.join(uploads, 'notes.txt'), 'first line\n\nsecond line\n');
    await writeFile(path.join(uploads, '.upload-x.part'), 'staging');
    await symlink('/etc/hostname', path.join(uploads, 'linked.txt'));
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    await utimes(path.join(uploads, 'report.pdf'), at(1), at(1));
    await utimes(path.join(uploads, 'data.csv'), at(3), at(3));
    await utimes(path.join(uploads, 'notes.txt'), at(2), at(2));
  });

  it('lists earlier uploads newest first, without conversions, staging files or links', async () => {
    const out = (await callTool(listUploads, {}, A)) as Record<string, unknown>;
    expect(out).toEqual({
      files: [
        { filename: 'data.csv', size: 8, path: '/mnt/user-data/uploads/data.csv', extension: '.csv' },
        { filename: 'notes.txt', size: 24, path: '/mnt/user-data/uploads/notes.txt', extension: '.txt' },
        { filename: 'report.pdf', size: 15, path: '/mnt/user-data/uploads/report.pdf', extension: '.pdf' },
      ],
      total_count: 3,
      message: 'Found 3 historical file(s).',
    });
  });

  it('gives outlines from the Markdown text for the files asked for', async () => {
    const out = (await callTool(listUploads, { include_outline: ['report.pdf'] }, A)) as { files: Record<string, unknown>[] };
    expect(out.files.find((f) => f.filename === 'report.pdf')?.outline).toEqual([
      { title: 'Annual report', line: 1 },
      { title: 'Revenue', line: 3 },
    ]);
    expect(out.files.find((f) => f.filename === 'data.csv')).not.toHaveProperty('outline');
  });

  it('cuts at max_results and summarises what it left out', async () => {
    const out = (await callTool(listUploads, { max_results: 1, include_outline: null }, A)) as Record<string, unknown>;
    expect(out).toMatchObject({ total_count: 3, truncated: true, omitted_summary: '1 .txt, 1 .pdf', message: 'Found 3 historical file(s).' });
    expect((out.files as unknown[]).length).toBe(1);
  });

  it('says so when the thread has no uploads', async () => {
    expect(await callTool(listUploads, {}, EMPTY)).toEqual({ files: [], message: 'No historical uploaded files in this thread.' });
  });
});
