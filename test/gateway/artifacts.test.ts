// GET /api/threads/{id}/artifacts/{path}: safe resolution (400 prefix, 403 escapes, 404, 400
// folder), content types, attachment rules, nosniff everywhere, Range and streaming.
import { randomUUID } from 'node:crypto';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startGatewayApp, type GatewayApp } from './gateway-app.js';

let gw: GatewayApp;
let url: string;
const id = randomUUID();
const other = randomUUID();
const TEXT = '0123456789abcdefghij';

const userData = (threadId: string) => path.join(gw.home, 'threads', threadId, 'user-data');
const put = (rel: string, content: string | Buffer, threadId = id) => {
  const file = path.join(userData(threadId), rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
};
const get = (rel: string, headers: Record<string, string> = {}) => rawRequest(url, 'GET', `/api/threads/${id}/artifacts/${rel}`, headers);

beforeAll(async () => {
  gw = await startGatewayApp();
  url = await gw.listen();
  put('outputs/report.txt', TEXT);
  put('uploads/data.json', '{"a":1}');
  for (const ext of ['html', 'htm', 'xhtml', 'svg', 'xml']) put(`outputs/page.${ext}`, '<script>alert(1)</script>');
  put('outputs/chart.png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  put('outputs/NOTES.MD', '# notes');
  put('outputs/blob.xyz', 'x');
  put('outputs/rapport final é.txt', 'accents');
  put('workspace/inner.txt', 'inside');
  put('outputs/secret.txt', 'other thread', other);
  mkdirSync(path.join(userData(id), 'outputs', 'folder'), { recursive: true });
  symlinkSync(path.join(gw.home, 'config.yaml'), path.join(userData(id), 'outputs', 'escape.txt'));
  symlinkSync('/etc', path.join(userData(id), 'outputs', 'etc-dir'));
  symlinkSync(path.join(userData(other), 'outputs', 'secret.txt'), path.join(userData(id), 'outputs', 'neighbour.txt'));
  symlinkSync(path.join(userData(id), 'workspace', 'inner.txt'), path.join(userData(id), 'outputs', 'inside-link.txt'));
});
afterAll(async () => gw?.close());

describe('serving', () => {
  it('streams a file with its type, length, nosniff and no attachment', async () => {
    const res = await get('mnt/user-data/outputs/report.txt');
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe(TEXT);
    expect(res.headers).toMatchObject({
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(TEXT.length),
      'x-content-type-options': 'nosniff',
      'accept-ranges': 'bytes',
    });
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.headers['last-modified']).toBeTruthy();
  });

  it.each([
    ['uploads/data.json', 'application/json; charset=utf-8'],
    ['outputs/chart.png', 'image/png'],
    ['outputs/NOTES.MD', 'text/markdown; charset=utf-8'],
    ['outputs/blob.xyz', 'application/octet-stream'],
  ])('takes the Content-Type of %s from its extension', async (rel, type) => {
    const res = await get(`mnt/user-data/${rel}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each(['html', 'htm', 'xhtml', 'svg', 'xml'])('always sends .%s as an attachment', async (ext) => {
    const res = await get(`mnt/user-data/outputs/page.${ext}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename*=UTF-8''page.${ext}`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toMatch(/sandbox/);
  });

  it('download=true sends an RFC 8187 attachment header; download=false does not', async () => {
    const rel = `mnt/user-data/outputs/${encodeURIComponent('rapport final é.txt')}`;
    const res = await get(`${rel}?download=true`);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe("attachment; filename*=UTF-8''rapport%20final%20%C3%A9.txt");
    expect(res.body.toString()).toBe('accents');
    expect((await get(`${rel}?download=false`)).headers['content-disposition']).toBeUndefined();
    expect((await get(`${rel}?download=maybe`)).status).toBe(422);
  });

  it('follows a symlink that stays inside the thread', async () => {
    const res = await get('mnt/user-data/outputs/inside-link.txt');
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('inside');
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await rawRequest(url, 'HEAD', `/api/threads/${id}/artifacts/mnt/user-data/outputs/report.txt`);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(TEXT.length));
    expect(res.body.length).toBe(0);
  });
});

describe('errors', () => {
  it.each(['mnt/skills/public/x/SKILL.md', 'etc/passwd', 'mnt/user-datax/a.txt', 'user-data/outputs/report.txt', 'mnt'])(
    'gives 400 for the prefix of %s',
    async (rel) => {
      const res = await get(rel);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body.toString()).detail).toBe('Only paths under mnt/user-data/ can be served.');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    },
  );

  it.each(['mnt/user-data', 'mnt/user-data/', 'mnt/user-data/outputs', 'mnt/user-data/outputs/folder'])('gives 400 for the folder %s', async (rel) => {
    const res = await get(rel);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString()).detail).toMatch(/folder/);
  });

  it.each([
    'mnt/user-data/../../../config.yaml',
    'mnt/user-data/outputs/../../../../config.yaml',
    'mnt/user-data/outputs/%2e%2e/%2e%2e/%2e%2e/%2e%2e/config.yaml',
    'mnt/user-data/outputs/%2E%2E%2F%2E%2E%2F%2E%2E%2Fconfig.yaml',
    'mnt/user-data/outputs/%252e%252e/%252e%252e/config.yaml',
    'mnt/user-data/outputs/..%5c..%5c..%5cconfig.yaml',
    `mnt/user-data/../../${other}/user-data/outputs/secret.txt`,
  ])('gives 403 for the traversal %s', async (rel) => {
    const res = await get(rel);
    expect(res.status).toBe(403);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body.toString()).not.toMatch(/skills|models|other thread/);
  });

  it('refuses an overlong UTF-8 dot (%c0%ae) as a malformed URL, before any file is looked at', async () => {
    const res = await get('mnt/user-data/outputs/%c0%ae%c0%ae/config.yaml');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString()).detail).toBeTruthy();
  });

  it.each(['outputs/escape.txt', 'outputs/etc-dir/passwd', 'outputs/neighbour.txt'])('gives 403 for the symlink escape %s', async (rel) => {
    const res = await get(`mnt/user-data/${rel}`);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body.toString()).detail).toMatch(/leaves the thread/);
  });

  it('gives 403 when a whole area is a symlink out of the thread', async () => {
    const tid = randomUUID();
    mkdirSync(userData(tid), { recursive: true });
    symlinkSync(path.join(userData(other), 'outputs'), path.join(userData(tid), 'outputs'));
    const res = await rawRequest(url, 'GET', `/api/threads/${tid}/artifacts/mnt/user-data/outputs/secret.txt`);
    expect(res.status).toBe(403);
  });

  it('gives 404 for a missing file or thread, and 400 for a NUL byte', async () => {
    expect((await get('mnt/user-data/outputs/none.txt')).status).toBe(404);
    const missing = await rawRequest(url, 'GET', `/api/threads/${randomUUID()}/artifacts/mnt/user-data/outputs/report.txt`);
    expect(missing.status).toBe(404);
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
    expect((await get('mnt/user-data/outputs/report.txt%00.png')).status).toBe(400);
  });

  it('gives 422 for an invalid thread id', async () => {
    expect((await rawRequest(url, 'GET', '/api/threads/bad.id/artifacts/mnt/user-data/outputs/x')).status).toBe(422);
  });
});

describe('ranges', () => {
  const rel = 'mnt/user-data/outputs/report.txt';
  it.each([
    ['bytes=0-4', 0, 4],
    ['bytes=5-', 5, 19],
    ['bytes=-3', 17, 19],
    ['bytes=10-999', 10, 19],
    ['bytes=19-19', 19, 19],
  ])('answers 206 for %s', async (range, start, end) => {
    const res = await get(rel, { range });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${TEXT.length}`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.body.toString()).toBe(TEXT.slice(start, end + 1));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each(['bytes=20-', 'bytes=100-200', 'bytes=-0'])('answers 416 for %s', async (range) => {
    const res = await get(rel, { range });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${TEXT.length}`);
    expect(JSON.parse(res.body.toString()).detail).toMatch(/outside the file/);
  });

  it.each(['bytes=0-1,4-5', 'items=0-1', 'bytes=5-2', 'bytes=abc'])('ignores %s and sends the whole file', async (range) => {
    const res = await get(rel, { range });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe(TEXT);
  });

  it('streams a large file without holding it in memory, and serves a range at its end', async () => {
    const big = put('outputs/movie.mp4', '');
    const size = 512 * 1024 * 1024;
    truncateSync(big, size);
    const tail = await get('mnt/user-data/outputs/movie.mp4', { range: `bytes=${size - 10}-` });
    expect(tail.status).toBe(206);
    expect(tail.headers['content-type']).toBe('video/mp4');
    expect(tail.body.length).toBe(10);

    // Connection: close, so the server has no keep-alive socket left when the app closes.
    const before = process.memoryUsage();
    let peak = 0;
    const { status, length, received } = await new Promise<{ status: number; length: string | undefined; received: number }>((resolve, reject) => {
      const req = httpGet(`${url}/api/threads/${id}/artifacts/mnt/user-data/outputs/movie.mp4`, { headers: { connection: 'close' } }, (res) => {
        let count = 0;
        res.on('data', (chunk: Buffer) => {
          count += chunk.length;
          const now = process.memoryUsage();
          peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, length: res.headers['content-length'], received: count }));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
    expect(status).toBe(200);
    expect(length).toBe(String(size));
    expect(received).toBe(size);
    expect(peak).toBeLessThan(128 * 1024 * 1024);
  });
});
