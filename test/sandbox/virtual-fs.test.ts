import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileNotFoundError, PathInvalidError, PathNotAFileError, PathOutsideThreadError } from '../../src/workspace/workspace.errors.js';
import { SandboxPathOutsideError } from '../../workers/sandbox/sandbox.errors.js';
import { createVirtualFs, describeFsError, parseAgentPath, type VirtualFs } from '../../workers/sandbox/virtual-fs.js';
import { createTestHome, type TestHome } from './support.js';

let t: TestHome;
let vfs: VirtualFs;
const A = 'thread-a';
const B = 'thread-b';
/** The error a resolution rejects with; if it resolves, an Error saying so, which no assertion here accepts. */
const rejection = (attempt: Promise<unknown>): Promise<Error> =>
  attempt.then(
    () => new Error('expected a rejection'),
    (err: unknown) => err as Error,
  );

beforeAll(async () => {
  t = await createTestHome('vfs');
  vfs = createVirtualFs({ files: t.files, skillsDir: t.skillsDir });
  for (const id of [A, B]) for (const area of ['uploads', 'outputs', 'workspace'] as const) await t.files.ensureArea(id, area);
  await writeFile(path.join(t.files.areaDir(A, 'workspace'), 'notes.txt'), 'hello');
  await writeFile(path.join(t.files.areaDir(A, 'uploads'), 'doc.md'), '# doc');
  await writeFile(path.join(t.files.areaDir(B, 'workspace'), 'secret.txt'), 'B only');
  const ws = t.files.areaDir(A, 'workspace');
  await symlink(t.files.areaDir(B, 'workspace'), path.join(ws, 'to-b'));
  await symlink('/etc', path.join(ws, 'to-etc'));
  await symlink('../outputs', path.join(ws, 'to-outputs'));
  await symlink('../uploads', path.join(ws, 'to-uploads'));
  await symlink('/nonexistent/target', path.join(ws, 'dangling'));
  await symlink(path.join(t.root, 'home'), path.join(t.skillsDir, 'custom', 'escape'));
});

afterAll(async () => {
  await t.cleanup();
});

describe('parseAgentPath', () => {
  it('accepts both roots and normalises slashes and dots', () => {
    expect(parseAgentPath('/mnt/user-data//workspace/./a.txt')).toMatchObject({ virtual: '/mnt/user-data/workspace/a.txt', kind: 'user-data', rest: ['workspace', 'a.txt'] });
    expect(parseAgentPath('/mnt/skills/public/demo/SKILL.md')).toMatchObject({ kind: 'skills', rest: ['public', 'demo', 'SKILL.md'] });
  });

  it.each([
    ['relative.txt', PathInvalidError, /not absolute/],
    ['', PathInvalidError, /empty/],
    ['/etc/passwd', SandboxPathOutsideError, /outside the sandbox/],
    ['/mnt/user-data/../../etc/passwd', PathOutsideThreadError, /leaves/],
    ['/mnt/user-data/workspace/a\u0000b', PathInvalidError, /control characters/],
    ['/mnt/user-data/workspace/%2e%2e/x', PathOutsideThreadError, /encoded/],
    ['/mnt/user-data/workspace\\..\\x', PathOutsideThreadError, /backslash/],
    ['/mnt/user-data/other/x', FileNotFoundError, /does not exist/],
    ['/mnt/skills/private/x', FileNotFoundError, /does not exist/],
  ])('refuses %j', (input, cls, message) => {
    expect(() => parseAgentPath(input)).toThrow(cls);
    expect(() => parseAgentPath(input)).toThrow(message);
  });
});

describe('resolveExisting', () => {
  it('maps user-data and skills paths onto real files', async () => {
    const notes = await vfs.resolveExisting(A, '/mnt/user-data/workspace/notes.txt');
    expect(await readFile(notes.real, 'utf8')).toBe('hello');
    expect(notes).toMatchObject({ virtual: '/mnt/user-data/workspace/notes.txt', area: 'workspace', writable: true });
    expect(await vfs.resolveExisting(A, '/mnt/user-data/uploads/doc.md')).toMatchObject({ area: 'uploads', writable: false });
    expect(await vfs.resolveExisting(A, '/mnt/skills/public/demo/SKILL.md')).toMatchObject({ area: 'skills', writable: false });
    expect(await vfs.resolveExisting(A, '/mnt/user-data')).toMatchObject({ area: null, writable: false });
  });

  it('gives each thread its own folders', async () => {
    await expect(vfs.resolveExisting(A, '/mnt/user-data/workspace/secret.txt')).rejects.toThrow(FileNotFoundError);
    expect((await vfs.resolveExisting(B, '/mnt/user-data/workspace/secret.txt')).virtual).toBe('/mnt/user-data/workspace/secret.txt');
  });

  it('refuses symlinks to another thread, to /etc and out of the skills', async () => {
    await expect(vfs.resolveExisting(A, '/mnt/user-data/workspace/to-b/secret.txt')).rejects.toThrow(SandboxPathOutsideError);
    await expect(vfs.resolveExisting(A, '/mnt/user-data/workspace/to-etc/passwd')).rejects.toThrow(/outside the sandbox/);
    await expect(vfs.resolveExisting(A, '/mnt/skills/custom/escape')).rejects.toThrow(SandboxPathOutsideError);
  });

  it('follows a symlink that stays in the thread, and reports the area it really leads to', async () => {
    expect(await vfs.resolveExisting(A, '/mnt/user-data/workspace/to-uploads/doc.md')).toMatchObject({ area: 'uploads', writable: false });
  });

  it('names the virtual path, never the real one, in errors', async () => {
    const err = await rejection(vfs.resolveExisting(A, '/mnt/user-data/workspace/missing.txt'));
    expect(err).toBeInstanceOf(FileNotFoundError);
    expect(err.message).toBe('/mnt/user-data/workspace/missing.txt does not exist.');
    expect(err.message).not.toContain(t.root);
  });

  it('refuses the folders above the roots but lists them virtually', async () => {
    await expect(vfs.resolveExisting(A, '/mnt')).rejects.toThrow(SandboxPathOutsideError);
    expect(vfs.syntheticChildren('/')).toEqual(['mnt']);
    expect(vfs.syntheticChildren('/mnt/')).toEqual(['skills', 'user-data']);
    expect(vfs.syntheticChildren('/mnt/user-data')).toBeNull();
    expect(vfs.syntheticChildren('/mnt/../x')).toBeNull();
  });
});

describe('resolveForWrite', () => {
  it('creates missing parent folders inside a writable area', async () => {
    const target = await vfs.resolveForWrite(A, '/mnt/user-data/outputs/reports/2026/q1.md');
    expect(target).toMatchObject({ virtual: '/mnt/user-data/outputs/reports/2026/q1.md', area: 'outputs', writable: true });
    expect((await stat(path.dirname(target.real))).isDirectory()).toBe(true);
  });

  it('refuses uploads, skills and the area folders themselves', async () => {
    await expect(vfs.resolveForWrite(A, '/mnt/user-data/uploads/x.txt')).rejects.toThrow(/uploads belong to the user/);
    await expect(vfs.resolveForWrite(A, '/mnt/skills/custom/x.md')).rejects.toThrow(/skills cannot be changed/);
    await expect(vfs.resolveForWrite(A, '/mnt/user-data/workspace')).rejects.toThrow(PathNotAFileError);
    await expect(vfs.resolveForWrite(A, '/mnt/user-data')).rejects.toThrow(PathNotAFileError);
  });

  it('refuses a write that a symlink would carry out of the thread or into uploads, creating nothing outside', async () => {
    await expect(vfs.resolveForWrite(A, '/mnt/user-data/workspace/to-b/new/x.txt')).rejects.toThrow(SandboxPathOutsideError);
    await expect(stat(path.join(t.files.areaDir(B, 'workspace'), 'new'))).rejects.toThrow();
    await expect(vfs.resolveForWrite(A, '/mnt/user-data/workspace/to-etc/x.txt')).rejects.toThrow(SandboxPathOutsideError);
    await expect(vfs.resolveForWrite(A, '/mnt/user-data/workspace/to-uploads/x.txt')).rejects.toThrow(/read-only/);
    await expect(vfs.resolveForWrite(A, '/mnt/user-data/workspace/dangling')).rejects.toThrow(/broken symbolic link/);
  });

  it('follows a final symlink only when it stays in a writable area', async () => {
    await writeFile(path.join(t.files.areaDir(A, 'outputs'), 'linked.md'), 'x');
    await symlink('../outputs/linked.md', path.join(t.files.areaDir(A, 'workspace'), 'linked.md'));
    expect(await vfs.resolveForWrite(A, '/mnt/user-data/workspace/linked.md')).toMatchObject({ area: 'outputs', writable: true });
    await symlink('../uploads/doc.md', path.join(t.files.areaDir(A, 'workspace'), 'doc-link.md'));
    await expect(vfs.resolveForWrite(A, '/mnt/user-data/workspace/doc-link.md')).rejects.toThrow(/read-only/);
  });

  it('refuses a file where a folder is needed, a folder as the target and reserved names', async () => {
    await expect(vfs.resolveForWrite(A, '/mnt/user-data/workspace/notes.txt/inner.txt')).rejects.toThrow(/is a file, not a folder/);
    await mkdir(path.join(t.files.areaDir(A, 'workspace'), 'dir'), { recursive: true });
    await expect(vfs.resolveForWrite(A, '/mnt/user-data/workspace/dir')).rejects.toThrow(/is a folder/);
    await expect(vfs.resolveForWrite(A, '/mnt/user-data/workspace/.warren-tmp-x')).rejects.toThrow(/reserved/);
  });
});

describe('describeFsError', () => {
  it('keeps real paths out of the message', () => {
    const err = Object.assign(new Error(`EACCES: permission denied, open '${'/real/secret/path'}'`), { code: 'EACCES' });
    expect(describeFsError(err, '/mnt/user-data/workspace/a').message).toBe('/mnt/user-data/workspace/a: permission denied.');
    expect(describeFsError(Object.assign(new Error('x'), { code: 'EIO' }), '/v').message).toBe('/v: file system error (EIO).');
  });
});

describe('a thread whose area was replaced', () => {
  it('reports the virtual area, not the real path, when a file stands where a folder should', async () => {
    const C = 'thread-c';
    await mkdir(t.files.userDataDir(C), { recursive: true });
    await writeFile(path.join(t.files.userDataDir(C), 'workspace'), 'not a folder');
    const err = await rejection(vfs.resolveExisting(C, '/mnt/user-data/workspace/a.txt'));
    expect(err.message).toMatch(/^\/mnt\/user-data\/workspace/);
    expect(err.message).not.toContain(t.root);
  });
});
