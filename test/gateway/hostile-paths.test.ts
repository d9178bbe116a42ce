// Path tricks against every endpoint that takes a path or a name (issue 7): artifacts, uploads
// delete, skills and thread cleanup. artifacts.test.ts, uploads.test.ts and threads.test.ts
// hold the plain cases (`..`, %2e, %252e, backslashes, NUL, symlinks out of an area); this file
// adds Unicode look-alikes, absolute and drive paths, mixed and overlong encodings, and
// symlinks planted where each endpoint deletes or reads. The property in every case: nothing
// outside the thread (or the skills folder) is read, listed or deleted.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, rawRequest, startGatewayApp, type GatewayApp } from './gateway-app.js';

const MARKER = `OUTSIDE-${randomUUID()}`;
let gw: GatewayApp;
let url: string;
let outsideDir: string;
let outsideFile: string;
const id = randomUUID();
const other = randomUUID();

const userData = (threadId: string) => path.join(gw.home, 'threads', threadId, 'user-data');
const put = (file: string, content: string) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
};

beforeAll(async () => {
  gw = await startGatewayApp({ withPublicSkills: true });
  url = await gw.listen();
  outsideDir = path.join(gw.home, 'outside');
  outsideFile = path.join(outsideDir, 'secret.txt');
  put(outsideFile, MARKER);
  put(path.join(userData(id), 'outputs', 'report.txt'), 'inside');
  put(path.join(userData(other), 'outputs', 'secret.txt'), MARKER);
});
afterAll(async () => gw?.close());

/** Everything an answer may not contain: the outside file and the configuration. */
const leaks = (body: Buffer) => {
  const text = body.toString('utf8');
  return text.includes(MARKER) || text.includes('skills:') || text.includes('root:x:0:0');
};

// U+FF0E fullwidth full stop, U+FF0F fullwidth solidus, U+FF3C fullwidth reverse solidus,
// U+2024 one dot leader, U+2025 two dot leader, U+2215 division slash, U+2044 fraction slash,
// U+FE52 small full stop: what NFKC folding (or a careless client) could turn into `..` and `/`.
const LOOKALIKES = [
  '%EF%BC%8E%EF%BC%8E%EF%BC%8F%EF%BC%8E%EF%BC%8E%EF%BC%8Fsecret.txt',
  '%E2%80%A4%E2%80%A4/%E2%80%A4%E2%80%A4/secret.txt',
  '%E2%80%A5/%E2%80%A5/%E2%80%A5/outside/secret.txt',
  '..%E2%88%95..%E2%88%95..%E2%88%95outside%E2%88%95secret.txt',
  '..%E2%81%84..%E2%81%84outside%E2%81%84secret.txt',
  '..%EF%BC%BC..%EF%BC%BCoutside%EF%BC%BCsecret.txt',
  '%EF%B9%92%EF%B9%92/%EF%B9%92%EF%B9%92/secret.txt',
];

// Encodings the plain suites do not cover.
const ENCODINGS = [
  '.%2e/.%2e/.%2e/.%2e/outside/secret.txt',
  '%2e./%2e./%2e./%2e./outside/secret.txt',
  '..%252f..%252f..%252f..%252foutside%252fsecret.txt',
  '..%255c..%255c..%255coutside%255csecret.txt',
  '%e0%80%ae%e0%80%ae/%e0%80%ae%e0%80%ae/secret.txt',
  '....//....//....//outside/secret.txt',
  '..%20/..%20/..%20/outside/secret.txt',
  '..%00/..%00/outside/secret.txt',
  'report.txt%00../../../outside/secret.txt',
  '..;/..;/..;/outside/secret.txt',
];

// Absolute and drive paths placed where a relative one belongs.
const ABSOLUTE = ['/etc/passwd', '%2Fetc%2Fpasswd', '%2F%2Fetc%2Fpasswd', 'C:%5CWindows%5Cwin.ini', 'C:/Windows/win.ini', '%5C%5Cserver%5Cshare%5Cx'];

describe('artifacts', () => {
  const get = (rest: string) => rawRequest(url, 'GET', `/api/threads/${id}/artifacts/mnt/user-data/outputs/${rest}`);

  it.each([...LOOKALIKES, ...ENCODINGS])('serves nothing outside the thread for %s', async (rest) => {
    const res = await get(rest);
    expect([400, 403, 404]).toContain(res.status);
    expect(leaks(res.body)).toBe(false);
    expect(Object.keys(JSON.parse(res.body.toString()))).toEqual(['detail']);
  });

  it.each(ABSOLUTE)('serves nothing for the absolute path %s, under the prefix or instead of it', async (abs) => {
    for (const raw of [`/api/threads/${id}/artifacts/mnt/user-data/${abs}`, `/api/threads/${id}/artifacts/${abs}`, `/api/threads/${id}/artifacts/mnt/user-data/outputs/${abs}`]) {
      const res = await rawRequest(url, 'GET', raw);
      expect([400, 403, 404], raw).toContain(res.status);
      expect(leaks(res.body)).toBe(false);
    }
  });

  it('follows no symlink planted deep inside a folder chain', async () => {
    const dir = path.join(userData(id), 'outputs', 'a', 'b', 'c');
    mkdirSync(dir, { recursive: true });
    symlinkSync(outsideDir, path.join(dir, 'up'));
    symlinkSync(path.join(userData(other), 'outputs'), path.join(userData(id), 'outputs', 'a', 'neighbour'));
    for (const rest of ['a/b/c/up/secret.txt', 'a/neighbour/secret.txt']) {
      const res = await get(rest);
      expect(res.status, rest).toBe(403);
      expect(leaks(res.body)).toBe(false);
    }
  });

  it('does not fold Unicode: a file named with look-alike dots is itself, not a way up', async () => {
    put(path.join(userData(id), 'outputs', '\uff0e\uff0e'), 'just a file with an odd name');
    const res = await get('%EF%BC%8E%EF%BC%8E');
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('just a file with an odd name');
  });
});

describe('uploads delete', () => {
  const uploads = (threadId: string) => path.join(userData(threadId), 'uploads');
  const del = (threadId: string, name: string) => rawRequest(url, 'DELETE', `/api/threads/${threadId}/uploads/${name}`);

  beforeAll(async () => {
    const body = await multipart([{ field: 'files', name: 'keep.txt', data: 'kept' }]);
    expect((await gw.api.app.inject({ method: 'POST', url: `/api/threads/${id}/uploads`, ...body })).statusCode).toBe(200);
  });

  it.each([...LOOKALIKES, ...ENCODINGS, ...ABSOLUTE, '..%2F..%2F..%2F..%2Foutside%2Fsecret.txt'])('deletes nothing outside for %s', async (name) => {
    const res = await del(id, name);
    expect([400, 404]).toContain(res.status);
    expect(Object.keys(JSON.parse(res.body.toString()))).toEqual(['detail']);
    expect(readFileSync(outsideFile, 'utf8')).toBe(MARKER);
    expect(existsSync(path.join(uploads(id), 'keep.txt'))).toBe(true);
  });

  it('removes a planted symlink itself, never the file it points to', async () => {
    symlinkSync(outsideFile, path.join(uploads(id), 'link.txt'));
    symlinkSync(outsideDir, path.join(uploads(id), 'link-dir'));
    const res = await del(id, 'link.txt');
    expect(res.status).toBe(200);
    expect(existsSync(path.join(uploads(id), 'link.txt'))).toBe(false);
    expect(readFileSync(outsideFile, 'utf8')).toBe(MARKER);
    // A link to a folder is a link, not a folder: removed as such, the folder untouched.
    expect((await del(id, 'link-dir')).status).toBe(200);
    expect(readFileSync(outsideFile, 'utf8')).toBe(MARKER);
  });

  it('deletes nothing when the uploads folder itself is a symlink out of the thread', async () => {
    const tid = randomUUID();
    mkdirSync(userData(tid), { recursive: true });
    symlinkSync(outsideDir, uploads(tid));
    const res = await del(tid, 'secret.txt');
    expect(res.status).toBe(403);
    expect(readFileSync(outsideFile, 'utf8')).toBe(MARKER);
  });
});

describe('thread cleanup', () => {
  const del = (raw: string) => rawRequest(url, 'DELETE', `/api/threads/${raw}`);

  it.each([...LOOKALIKES.map((l) => l.split('/')[0] ?? l), '..%5C..%5Coutside', '%252e%252e', '%2e%2e%2foutside', 'C:%5Cx', '%EF%BC%8E%EF%BC%8E'])(
    'refuses the id %s with 422 and deletes nothing',
    async (raw) => {
      const res = await del(raw);
      expect(res.status).toBe(422);
      expect(readFileSync(outsideFile, 'utf8')).toBe(MARKER);
      expect(existsSync(path.join(gw.home, 'config.yaml'))).toBe(true);
    },
  );

  it('removes a symlink planted in a thread without following it', async () => {
    const tid = randomUUID();
    mkdirSync(path.join(userData(tid), 'workspace'), { recursive: true });
    symlinkSync(outsideDir, path.join(userData(tid), 'workspace', 'escape'));
    symlinkSync(path.join(userData(other), 'outputs'), path.join(userData(tid), 'workspace', 'neighbour'));
    expect((await del(tid)).status).toBe(200);
    expect(existsSync(path.join(gw.home, 'threads', tid))).toBe(false);
    expect(readFileSync(outsideFile, 'utf8')).toBe(MARKER);
    expect(readFileSync(path.join(userData(other), 'outputs', 'secret.txt'), 'utf8')).toBe(MARKER);
  });

  it('removes a thread folder that is itself a symlink as a link, leaving its target', async () => {
    const tid = randomUUID();
    const target = path.join(gw.home, 'elsewhere');
    put(path.join(target, 'keep.txt'), MARKER);
    symlinkSync(target, path.join(gw.home, 'threads', tid));
    expect((await del(tid)).status).toBe(200);
    expect(readFileSync(path.join(target, 'keep.txt'), 'utf8')).toBe(MARKER);
  });
});

describe('skills', () => {
  const before = () => (existsSync(gw.extensionsFile) ? readFileSync(gw.extensionsFile, 'utf8') : '');

  it.each([
    ...LOOKALIKES,
    ...ENCODINGS,
    ...ABSOLUTE,
    '..%2F..%2Fconfig.yaml',
    '..%2Fpublic%2Fdata-analysis',
    'public%2Fdata-analysis',
    '%2E%2E',
    'data-analysis%00',
    'DATA-ANALYSIS',
    'data%E2%80%90analysis',
  ])('finds no skill, reads nothing and writes nothing for the name %s', async (name) => {
    const state = before();
    for (const [method, suffix] of [['GET', ''], ['POST', '/enable'], ['POST', '/disable']] as const) {
      const res = await rawRequest(url, method, `/api/skills/${name}${suffix}`);
      expect([400, 404, 422], `${method} ${name}${suffix}`).toContain(res.status);
      expect(leaks(res.body)).toBe(false);
    }
    expect(before()).toBe(state);
  });

  it('does not serve a SKILL.md that is a symlink to a file outside the skills folder', async () => {
    const dir = path.join(gw.skillsDir, 'custom', 'linked');
    mkdirSync(dir, { recursive: true });
    symlinkSync('/etc/passwd', path.join(dir, 'SKILL.md'));
    const list = await rawRequest(url, 'GET', '/api/skills');
    expect(list.status).toBe(200);
    expect(leaks(list.body)).toBe(false);
    expect((await rawRequest(url, 'GET', '/api/skills/linked')).status).toBe(404);
  });
});
