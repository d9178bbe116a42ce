// POST/GET/DELETE /api/threads/{id}/uploads: storage, names, limits (nothing kept over a limit),
// listing, deletion, and a bounded wait for the thread's uploads lock.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_UPLOAD_LIMITS } from '../../src/gateway/gateway-deps.js';
import { createFileLocks } from '../../src/store/file-locks.js';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { multipart, rawMultipart, rawRequest, startGatewayApp, type GatewayApp, type MultipartBody } from '../gateway/gateway-app.js';

let gw: GatewayApp;
let small: GatewayApp;
beforeAll(async () => {
  gw = await startGatewayApp();
  small = await startGatewayApp({ gateway: { uploads: { maxFiles: 3, maxFileBytes: 1024, maxRequestBytes: 2048 } } });
});
afterAll(async () => {
  await gw?.close();
  await small?.close();
});

const uploadsDir = (app: GatewayApp, threadId: string) => path.join(app.home, 'threads', threadId, 'user-data', 'uploads');
const dirEntries = (app: GatewayApp, threadId: string) => (existsSync(uploadsDir(app, threadId)) ? readdirSync(uploadsDir(app, threadId)).sort() : []);
const post = (app: GatewayApp, threadId: string, body: MultipartBody) =>
  app.api.app.inject({ method: 'POST', url: `/api/threads/${threadId}/uploads`, ...body });
const files = (...specs: [string, string | Buffer][]) => multipart(specs.map(([name, data]) => ({ field: 'files', name, data })));

describe('upload', () => {
  it('stores files in the thread before the runtime thread exists, and describes them', async () => {
    const id = randomUUID();
    const res = await post(gw, id, await files(['notes.txt', 'hello'], ['data.csv', 'a,b\n1,2\n']));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      message: 'Uploaded 2 files.',
      files: [
        {
          filename: 'notes.txt',
          size: 5,
          path: `.warren/threads/${id}/user-data/uploads/notes.txt`,
          virtual_path: '/mnt/user-data/uploads/notes.txt',
          artifact_url: `/api/threads/${id}/artifacts/mnt/user-data/uploads/notes.txt`,
        },
        {
          filename: 'data.csv',
          size: 8,
          path: `.warren/threads/${id}/user-data/uploads/data.csv`,
          virtual_path: '/mnt/user-data/uploads/data.csv',
          artifact_url: `/api/threads/${id}/artifacts/mnt/user-data/uploads/data.csv`,
        },
      ],
    });
    expect(readFileSync(path.join(uploadsDir(gw, id), 'notes.txt'), 'utf8')).toBe('hello');
    expect(dirEntries(gw, id)).toEqual(['data.csv', 'notes.txt']);
  });

  it('percent-encodes the artifact URL of a name with spaces or #', async () => {
    const id = randomUUID();
    const res = await post(gw, id, await files(['my file #1.txt', 'x']));
    expect(res.json().files[0]).toMatchObject({
      filename: 'my file #1.txt',
      virtual_path: '/mnt/user-data/uploads/my file #1.txt',
      artifact_url: `/api/threads/${id}/artifacts/mnt/user-data/uploads/my%20file%20%231.txt`,
    });
  });

  it.each([
    ['filename="../../etc/passwd"', 'passwd'],
    ['filename="C:\\\\Users\\\\me\\\\notes.txt"', 'notes.txt'],
    ['filename="dir/sub/a.txt"', 'a.txt'],
    ["filename*=UTF-8''r%C3%A9sum%C3%A9.txt", 'résumé.txt'],
    ['filename="résumé-raw.txt"', 'résumé-raw.txt'],
  ])('reduces %s to its basename %s', async (header, expected) => {
    const id = randomUUID();
    const res = await post(gw, id, rawMultipart([{ field: 'files', filenameHeader: header, data: 'x' }]));
    expect(res.statusCode).toBe(200);
    expect(res.json().files[0].filename).toBe(expected);
    expect(dirEntries(gw, id)).toEqual([expected]);
  });

  it.each([
    ['an empty name', 'filename=""', /file name is empty/],
    ['a name that is only a folder', 'filename="dir/"', /file name is empty/],
    ['"."', 'filename="."', /"\." is not a file name/],
    ['".."', 'filename=".."', /"\.\." is not a file name/],
    ['"a/.."', 'filename="a/.."', /"\.\." is not a file name/],
    ['control characters', "filename*=UTF-8''a%01b.txt", /control characters/],
    ['a tab', "filename*=UTF-8''a%09b.txt", /control characters/],
    ['more than 255 bytes', `filename="${'é'.repeat(128)}.txt"`, /longer than 255 bytes/],
    ['the reserved temporary prefix', 'filename=".warren-tmp-x"', /reserved/],
  ])('refuses %s with 400 and keeps nothing of the request', async (_what, header, detail) => {
    const id = randomUUID();
    const body = rawMultipart([
      { field: 'files', filenameHeader: 'filename="first.txt"', data: 'kept?' },
      { field: 'files', filenameHeader: header, data: 'x' },
    ]);
    const res = await post(gw, id, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(detail);
    expect(dirEntries(gw, id)).toEqual([]);
  });

  it('accepts a name of exactly 255 bytes', async () => {
    const name = `${'a'.repeat(251)}.txt`;
    const res = await post(gw, randomUUID(), await files([name, 'x']));
    expect(res.statusCode).toBe(200);
    expect(res.json().files[0].filename).toBe(name);
  });

  it('replaces a file uploaded again under the same name; within one request the last one wins', async () => {
    const id = randomUUID();
    await post(gw, id, await files(['a.txt', 'one']));
    const again = await post(gw, id, await files(['a.txt', 'two']));
    expect(again.statusCode).toBe(200);
    expect(readFileSync(path.join(uploadsDir(gw, id), 'a.txt'), 'utf8')).toBe('two');
    const twice = await post(gw, id, await files(['a.txt', 'three'], ['a.txt', 'four!']));
    expect(twice.json().files).toHaveLength(1);
    expect(twice.json().files[0].size).toBe(5);
    expect(readFileSync(path.join(uploadsDir(gw, id), 'a.txt'), 'utf8')).toBe('four!');
    expect(dirEntries(gw, id)).toEqual(['a.txt']);
  });

  it('gives 409 for a name that is a folder in the uploads, keeping nothing of the request', async () => {
    const id = randomUUID();
    mkdirSync(path.join(uploadsDir(gw, id), 'taken'), { recursive: true });
    const res = await post(gw, id, await files(['ok.txt', 'x'], ['taken', 'y']));
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toBe("The thread's uploads already hold a folder named taken.");
    expect(dirEntries(gw, id)).toEqual(['taken']);
  });

  it('refuses a request without files, with another part name, or not multipart', async () => {
    const id = randomUUID();
    const fieldsOnly = await multipart([{ field: 'note', data: 'no files here' }]);
    expect((await post(gw, id, fieldsOnly)).json()).toEqual({ detail: 'No files were uploaded: send them in multipart parts named "files".' });
    const wrong = await multipart([{ field: 'file', name: 'a.txt', data: 'x' }]);
    const res = await post(gw, id, wrong);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/Unexpected file part "file"/);
    const json = await gw.api.app.inject({ method: 'POST', url: `/api/threads/${id}/uploads`, payload: { files: [] } });
    expect(json.statusCode).toBe(415);
    expect(dirEntries(gw, id)).toEqual([]);
  });

  it('keeps its conversion index beside user-data, where the agent cannot see it', async () => {
    const id = randomUUID();
    await post(gw, id, await files(['a.txt', 'x']));
    expect(readdirSync(path.join(gw.home, 'threads', id)).sort()).toEqual(['uploads-index.json', 'user-data']);
    expect(readdirSync(path.join(gw.home, 'threads', id, 'user-data'))).toEqual(['uploads']);
  });

  it('gives 403 when the uploads folder is a symlink out of the thread, and writes nothing there', async () => {
    const id = randomUUID();
    const outside = path.join(gw.home, 'outside-uploads');
    mkdirSync(outside, { recursive: true });
    mkdirSync(path.join(gw.home, 'threads', id, 'user-data'), { recursive: true });
    symlinkSync(outside, uploadsDir(gw, id));
    const res = await post(gw, id, await files(['a.txt', 'x']));
    expect(res.statusCode).toBe(403);
    expect(readdirSync(outside)).toEqual([]);
    expect((await gw.api.app.inject({ method: 'GET', url: `/api/threads/${id}/uploads/list` })).statusCode).toBe(403);
  });

  it.each(['bad.id', 'a b', 'x'.repeat(129), 'semi;colon'])('gives 422 for the thread id %s', async (id) => {
    const res = await post(gw, encodeURIComponent(id), await files(['a.txt', 'x']));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toMatch(/thread_id/);
  });
});

describe('limits', () => {
  it('are 10 files, 50 MiB a file and 100 MiB a request by default', () => {
    expect(DEFAULT_UPLOAD_LIMITS).toEqual({ maxFiles: 10, maxFileBytes: 50 * 1024 * 1024, maxRequestBytes: 100 * 1024 * 1024 });
  });

  it('are answered at GET /uploads/limits, for a thread that does not exist yet', async () => {
    const res = await small.api.app.inject({ method: 'GET', url: `/api/threads/${randomUUID()}/uploads/limits` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      max_files: 3,
      max_file_size: 1024,
      max_total_size: 2048,
      allowed_types: ['*/*'],
      converted_extensions: ['.pdf', '.ppt', '.pptx', '.xls', '.xlsx', '.doc', '.docx'],
    });
    expect((await small.api.app.inject({ method: 'GET', url: '/api/threads/bad%20id/uploads/limits' })).statusCode).toBe(422);
  });

  it('accepts a request exactly at the limits', async () => {
    const id = randomUUID();
    const res = await post(small, id, await files(['a', 'x'.repeat(1024)], ['b', 'y'.repeat(1024)]));
    expect(res.statusCode).toBe(200);
    expect(dirEntries(small, id)).toEqual(['a', 'b']);
  });

  it.each([
    ['too many files', [['a', 'x'], ['b', 'x'], ['c', 'x'], ['d', 'x']], /Too many files: at most 3 per request/],
    ['a file over the per-file limit', [['a', 'x'], ['b', 'x'.repeat(1025)]], /b is larger than the limit of 1024 bytes per file/],
    ['a request over the total', [['a', 'x'.repeat(1000)], ['b', 'x'.repeat(1000)], ['c', 'x'.repeat(100)]], /larger than the limit of 2048 bytes per request/],
  ] as [string, [string, string][], RegExp][])('gives 413 for %s and keeps nothing of the request', async (_what, specs, detail) => {
    const id = randomUUID();
    await post(small, id, await files(['a', 'original']));
    const res = await post(small, id, await files(...specs));
    expect(res.statusCode).toBe(413);
    expect(res.json().detail).toMatch(detail);
    // The earlier upload is untouched and nothing of the refused request remains.
    expect(dirEntries(small, id)).toEqual(['a']);
    expect(readFileSync(path.join(uploadsDir(small, id), 'a'), 'utf8')).toBe('original');
  });

  it('enforces the default per-file and per-request limits over HTTP, keeping nothing', async () => {
    const url = await gw.listen();
    const id = randomUUID();
    const MiB = 1024 * 1024;
    const send = async (parts: [string, number][]) => {
      const body = rawMultipart(parts.map(([name, size]) => ({ field: 'files', filenameHeader: `filename="${name}"`, data: Buffer.alloc(size, 97) })));
      const res = await fetch(`${url}/api/threads/${id}/uploads`, { method: 'POST', headers: body.headers, body: body.payload });
      return { status: res.status, body: (await res.json()) as { detail?: string } };
    };
    const oneTooBig = await send([['big.bin', 50 * MiB + 1]]);
    expect(oneTooBig.status).toBe(413);
    expect(oneTooBig.body.detail).toMatch(/big\.bin is larger than the limit of 50 MiB per file/);
    const total = await send([['a.bin', 34 * MiB], ['b.bin', 34 * MiB], ['c.bin', 34 * MiB]]);
    expect(total.status).toBe(413);
    expect(total.body.detail).toMatch(/larger than the limit of 100 MiB per request/);
    const eleven = await send(Array.from({ length: 11 }, (_, i): [string, number] => [`f${i}`, 1]));
    expect(eleven.status).toBe(413);
    expect(eleven.body.detail).toMatch(/at most 10 per request/);
    expect(dirEntries(gw, id)).toEqual([]);
  });
});

describe('list', () => {
  it('answers an empty list for a thread without uploads', async () => {
    const res = await gw.api.app.inject({ method: 'GET', url: `/api/threads/${randomUUID()}/uploads/list` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ files: [], count: 0 });
  });

  it('lists files with extension and modified time, hiding folders and temporary files', async () => {
    const id = randomUUID();
    const started = Date.now() / 1000;
    await post(gw, id, await files(['Report.PDF.txt', 'abc'], ['README', 'r']));
    mkdirSync(path.join(uploadsDir(gw, id), 'a-folder'));
    writeFileSync(path.join(uploadsDir(gw, id), '.warren-tmp-123'), 'partial');
    const res = await gw.api.app.inject({ method: 'GET', url: `/api/threads/${id}/uploads/list` });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.count).toBe(2);
    expect(body.files.map((f: { filename: string }) => f.filename)).toEqual(['README', 'Report.PDF.txt']);
    expect(body.files[1]).toMatchObject({
      filename: 'Report.PDF.txt',
      size: 3,
      extension: '.txt',
      path: `.warren/threads/${id}/user-data/uploads/Report.PDF.txt`,
      virtual_path: '/mnt/user-data/uploads/Report.PDF.txt',
      artifact_url: `/api/threads/${id}/artifacts/mnt/user-data/uploads/Report.PDF.txt`,
    });
    expect(body.files[0].extension).toBe('');
    expect(body.files[1].modified).toBeGreaterThan(started - 5);
    expect(Number.isInteger(body.files[1].modified)).toBe(false);
  });

  it('gives 422 for an invalid thread id', async () => {
    expect((await gw.api.app.inject({ method: 'GET', url: '/api/threads/bad.id/uploads/list' })).statusCode).toBe(422);
  });
});

describe('delete', () => {
  it('removes a file', async () => {
    const id = randomUUID();
    await post(gw, id, await files(['a.txt', 'x'], ['b.txt', 'y']));
    const res = await gw.api.app.inject({ method: 'DELETE', url: `/api/threads/${id}/uploads/a.txt` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Deleted a.txt' });
    expect(dirEntries(gw, id)).toEqual(['b.txt']);
  });

  it('gives 404 for a missing file, or a thread without uploads', async () => {
    const id = randomUUID();
    expect((await gw.api.app.inject({ method: 'DELETE', url: `/api/threads/${id}/uploads/none.txt` })).statusCode).toBe(404);
    await post(gw, id, await files(['a.txt', 'x']));
    const res = await gw.api.app.inject({ method: 'DELETE', url: `/api/threads/${id}/uploads/none.txt` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'File not found: none.txt' });
  });

  it.each(['..%2F..%2Fconfig.yaml', '%2E%2E', '..', '..%5Cx', 'a%00b', '%2Fetc%2Fpasswd', 'a%0Ab'])(
    'gives 400 for the traversal attempt %s, sent verbatim',
    async (name) => {
      const id = randomUUID();
      await post(gw, id, await files(['a.txt', 'x']));
      const res = await rawRequest(await gw.listen(), 'DELETE', `/api/threads/${id}/uploads/${name}`);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body.toString()).detail).toMatch(/Invalid file name/);
      expect(existsSync(path.join(gw.home, 'config.yaml'))).toBe(true);
      expect(dirEntries(gw, id)).toEqual(['a.txt']);
    },
  );

  it('gives 400 for a folder', async () => {
    const id = randomUUID();
    await post(gw, id, await files(['a.txt', 'x']));
    mkdirSync(path.join(uploadsDir(gw, id), 'sub'));
    expect((await gw.api.app.inject({ method: 'DELETE', url: `/api/threads/${id}/uploads/sub` })).statusCode).toBe(400);
  });
});

describe("the thread's uploads lock", () => {
  let impatient: GatewayApp;
  let redis: RedisClient;
  beforeAll(async () => {
    impatient = await startGatewayApp({ fileLocks: { waitMs: 100 } });
    redis = connectTestRedis(inject('redisUrl'));
  });
  afterAll(async () => {
    await redis?.quit();
    await impatient?.close();
  });

  it('answers 503 {detail} while another replica holds it past the wait, keeping nothing; then works', async () => {
    const id = randomUUID();
    await post(impatient, id, await files(['kept.txt', 'x']));
    const elsewhere = createFileLocks(redis).threadUploads(id);
    const [upload, removal] = await elsewhere.run(async () => [
      await post(impatient, id, await files(['late.txt', 'y'])),
      await impatient.api.app.inject({ method: 'DELETE', url: `/api/threads/${id}/uploads/kept.txt` }),
    ]);
    const detail = `Another change to the uploads of thread ${id} did not finish within 100 ms; try again.`;
    expect([upload.statusCode, upload.json()]).toEqual([503, { detail }]);
    expect([removal.statusCode, removal.json()]).toEqual([503, { detail }]);
    expect(dirEntries(impatient, id)).toEqual(['kept.txt']);
    expect((await post(impatient, id, await files(['late.txt', 'y']))).statusCode).toBe(200);
    expect(dirEntries(impatient, id)).toEqual(['kept.txt', 'late.txt']);
  });
});
