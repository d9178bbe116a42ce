// src/workspace/thread-files.ts: the one module that maps thread ids and virtual paths to real paths
// and refuses escapes. (Lives in test/gateway with the other gateway suites; it tests a store.)
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileNameInvalidError, FileNotFoundError, PathInvalidError, PathOutsideThreadError, ThreadIdInvalidError } from '../../src/workspace/workspace.errors.js';
import {
  createThreadFiles,
  fileNameProblem,
  parseVirtualPath,
  tempPathIn,
  virtualPath,
  writeFileAtomic,
  type ThreadFiles,
} from '../../src/workspace/thread-files.js';

let home: string;
let files: ThreadFiles;
beforeAll(() => {
  home = mkdtempSync(path.join(tmpdir(), 'warren-thread-files-'));
  files = createThreadFiles(home);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const put = (rel: string, content = 'x') => {
  const file = path.join(home, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
};

describe('parseVirtualPath', () => {
  it.each([
    ['/mnt/user-data/outputs/a.txt', ['outputs', 'a.txt']],
    ['mnt/user-data/uploads/sub/b.md', ['uploads', 'sub', 'b.md']],
    ['mnt/user-data/./outputs//c', ['outputs', 'c']],
    ['mnt/user-data', []],
    ['mnt/user-data/', []],
  ])('splits %s', (input, segments) => expect(parseVirtualPath(input)).toEqual(segments));

  it.each(['mnt/skills/public/x', 'etc/passwd', '/mnt/user-datax/a', 'mnt/other/user-data/a', ''])('refuses the prefix of %j with 400', (input) => {
    expect(() => parseVirtualPath(input)).toThrow(PathInvalidError);
  });

  it.each(['mnt/user-data/a\u0000b', 'mnt/user-data/a\nb', 'mnt/user-data/\u007f'])('refuses control characters in %j with 400', (input) => {
    expect(() => parseVirtualPath(input)).toThrow(PathInvalidError);
  });

  it.each([
    'mnt/user-data/../x',
    'mnt/user-data/outputs/../../x',
    '../mnt/user-data/x',
    'mnt/user-data/%2e%2e/x',
    'mnt/user-data/%2F/x',
    'mnt/user-data/a%5cb',
    'mnt/user-data/%00',
    'mnt/user-data/..\\x',
  ])('refuses the escape %j with 403', (input) => {
    expect(() => parseVirtualPath(input)).toThrow(PathOutsideThreadError);
  });
});

describe('fileNameProblem', () => {
  it.each(['a.txt', 'résumé.pdf', '...', '.hidden', 'a'.repeat(255)])('accepts %j', (name) => expect(fileNameProblem(name)).toBeNull());
  it.each(['', '.', '..', 'a/b', 'a\\b', 'a\u0001', 'é'.repeat(128), '.warren-tmp-x'])('refuses %j', (name) => {
    expect(fileNameProblem(name)).toEqual(expect.any(String));
  });
});

describe('paths of a thread', () => {
  it('maps a thread id to WARREN_HOME/threads/{id}/user-data/{area}', () => {
    expect(files.areaDir('t1', 'uploads')).toBe(path.join(home, 'threads', 't1', 'user-data', 'uploads'));
    expect(files.fileIn('t1', 'outputs', 'a.txt')).toBe(path.join(home, 'threads', 't1', 'user-data', 'outputs', 'a.txt'));
    expect(files.displayPath('t1', 'uploads', 'a.txt')).toBe('.warren/threads/t1/user-data/uploads/a.txt');
    expect(virtualPath('workspace', 'a.txt')).toBe('/mnt/user-data/workspace/a.txt');
  });

  it('keeps its own bookkeeping beside user-data, out of the agent\'s sight', () => {
    expect(files.metaFile('t1', 'uploads-index.json')).toBe(path.join(home, 'threads', 't1', 'uploads-index.json'));
  });

  it.each(['', '../x', 'a.b', 'a/b', 'x'.repeat(129), 'a b'])('refuses the thread id %j with 422', (id) => {
    expect(() => files.threadDir(id)).toThrow(ThreadIdInvalidError);
  });

  it.each(['..', 'a/b', ''])('refuses the file name %j with 400', (name) => {
    expect(() => files.fileIn('t1', 'uploads', name)).toThrow(FileNameInvalidError);
  });
});

describe('resolveVirtual', () => {
  beforeAll(() => {
    put('threads/r1/user-data/outputs/a.txt', 'inside');
    put('threads/r2/user-data/outputs/secret.txt', 'neighbour');
    put('outside.txt', 'outside');
    symlinkSync(path.join(home, 'outside.txt'), path.join(home, 'threads/r1/user-data/outputs/out-link'));
    symlinkSync(path.join(home, 'threads/r2/user-data/outputs/secret.txt'), path.join(home, 'threads/r1/user-data/outputs/neighbour-link'));
    symlinkSync(path.join(home, 'threads/r1/user-data/outputs/a.txt'), path.join(home, 'threads/r1/user-data/outputs/in-link'));
    symlinkSync(path.join(home, 'nowhere'), path.join(home, 'threads/r1/user-data/outputs/dangling'));
  });

  it('returns the real path of a file inside the thread, following inner symlinks', async () => {
    const real = await files.resolveVirtual('r1', '/mnt/user-data/outputs/a.txt');
    expect(readFileSync(real, 'utf8')).toBe('inside');
    expect(await files.resolveVirtual('r1', 'mnt/user-data/outputs/in-link')).toBe(real);
  });

  it('gives 403 for a symlink leading out of the thread, to WARREN_HOME or to another thread', async () => {
    await expect(files.resolveVirtual('r1', 'mnt/user-data/outputs/out-link')).rejects.toThrow(PathOutsideThreadError);
    await expect(files.resolveVirtual('r1', 'mnt/user-data/outputs/neighbour-link')).rejects.toThrow(PathOutsideThreadError);
  });

  it('gives 404 for a missing file, a dangling link or a thread without files', async () => {
    await expect(files.resolveVirtual('r1', 'mnt/user-data/outputs/none')).rejects.toThrow(FileNotFoundError);
    await expect(files.resolveVirtual('r1', 'mnt/user-data/outputs/dangling')).rejects.toThrow(FileNotFoundError);
    await expect(files.resolveVirtual('nobody', 'mnt/user-data/outputs/a.txt')).rejects.toThrow(FileNotFoundError);
  });
});

describe('ensureArea and listFiles', () => {
  it('creates the area and lists only regular, finished files', async () => {
    const dir = await files.ensureArea('l1', 'uploads');
    expect(existsSync(dir)).toBe(true);
    writeFileSync(path.join(dir, 'b.txt'), 'bb');
    writeFileSync(path.join(dir, 'a.txt'), 'a');
    writeFileSync(tempPathIn(dir), 'partial');
    mkdirSync(path.join(dir, 'folder'));
    symlinkSync(path.join(dir, 'a.txt'), path.join(dir, 'link.txt'));
    const listed = await files.listFiles('l1', 'uploads');
    expect(listed.map((f) => [f.name, f.size])).toEqual([['a.txt', 1], ['b.txt', 2]]);
    expect(await files.listFiles('l-none', 'uploads')).toEqual([]);
  });

  it('refuses an area, or a thread folder, that is a symlink to elsewhere', async () => {
    mkdirSync(path.join(home, 'elsewhere'), { recursive: true });
    writeFileSync(path.join(home, 'elsewhere', 'x.txt'), 'x');
    mkdirSync(path.join(home, 'threads/s1/user-data'), { recursive: true });
    symlinkSync(path.join(home, 'elsewhere'), path.join(home, 'threads/s1/user-data/uploads'));
    await expect(files.ensureArea('s1', 'uploads')).rejects.toThrow(PathOutsideThreadError);
    await expect(files.listFiles('s1', 'uploads')).rejects.toThrow(PathOutsideThreadError);

    mkdirSync(path.join(home, 'elsewhere-thread/user-data/uploads'), { recursive: true });
    symlinkSync(path.join(home, 'elsewhere-thread'), path.join(home, 'threads/s2'));
    await expect(files.ensureArea('s2', 'uploads')).rejects.toThrow(PathOutsideThreadError);
  });
});

describe('removeThread', () => {
  it('removes the thread folder and is idempotent', async () => {
    put('threads/d1/user-data/outputs/deep/file.txt');
    await files.removeThread('d1');
    expect(existsSync(path.join(home, 'threads/d1'))).toBe(false);
    await files.removeThread('d1');
    await expect(files.removeThread('../x')).rejects.toThrow(ThreadIdInvalidError);
  });
});

describe('writeFileAtomic', () => {
  it('replaces a file and leaves no temporary file', async () => {
    const dir = path.join(home, 'atomic');
    mkdirSync(dir);
    const target = path.join(dir, 'f.json');
    await writeFileAtomic(target, 'one');
    await writeFileAtomic(target, 'two');
    expect(readFileSync(target, 'utf8')).toBe('two');
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it('leaves nothing behind when the rename fails', async () => {
    const dir = path.join(home, 'atomic-fail');
    mkdirSync(path.join(dir, 'taken'), { recursive: true });
    writeFileSync(path.join(dir, 'taken', 'inner'), 'x');
    await expect(writeFileAtomic(path.join(dir, 'taken'), 'data')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
  });
});
