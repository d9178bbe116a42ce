// DELETE /api/threads/{id}: removes the thread's local files, and its records when it has any
// (as DeerFlow's current gateway does), idempotently; 422 for a bad id; the spec's fixed 500
// body on failure. DELETE /api/langgraph/threads/{id} removes the files too.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startGatewayApp, type GatewayApp } from './gateway-app.js';

let gw: GatewayApp;
beforeAll(async () => {
  gw = await startGatewayApp();
});
afterAll(async () => gw?.close());

const del = (id: string) => gw.api.app.inject({ method: 'DELETE', url: `/api/threads/${id}` });

describe('thread cleanup', () => {
  it('removes the thread folder with everything in it, and answers the spec message', async () => {
    const id = randomUUID();
    const outputs = path.join(gw.home, 'threads', id, 'user-data', 'outputs', 'deep');
    mkdirSync(outputs, { recursive: true });
    writeFileSync(path.join(outputs, 'file.txt'), 'x');
    const other = randomUUID();
    mkdirSync(path.join(gw.home, 'threads', other), { recursive: true });

    const res = await del(id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: `Deleted local thread data for ${id}` });
    expect(existsSync(path.join(gw.home, 'threads', id))).toBe(false);
    expect(existsSync(path.join(gw.home, 'threads', other))).toBe(true);
  });

  it('deletes the runtime thread too, and either delete leaves no folder and frees the id', async () => {
    for (const url of ['/api/threads', '/api/langgraph/threads']) {
      const created = await gw.api.app.inject({ method: 'POST', url: '/api/langgraph/threads', payload: {} });
      const id = (created.json() as { thread_id: string }).thread_id;
      const uploads = path.join(gw.home, 'threads', id, 'user-data', 'uploads');
      mkdirSync(uploads, { recursive: true });
      writeFileSync(path.join(uploads, 'notes.txt'), 'x');

      const res = await gw.api.app.inject({ method: 'DELETE', url: `${url}/${id}` });
      expect(res.statusCode, url).toBe(url === '/api/threads' ? 200 : 204);
      expect((await gw.api.app.inject({ method: 'GET', url: `/api/langgraph/threads/${id}` })).statusCode, url).toBe(404);
      expect(existsSync(path.join(gw.home, 'threads', id)), url).toBe(false);
    }
  });

  it('is idempotent: a thread with no folder answers the same 200', async () => {
    const id = randomUUID();
    for (let i = 0; i < 2; i++) {
      const res = await del(id);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, message: `Deleted local thread data for ${id}` });
    }
  });

  it('accepts every id the pattern allows, up to 128 characters', async () => {
    for (const id of ['a', 'A-z_0-9', 'x'.repeat(128)]) expect((await del(id)).statusCode).toBe(200);
  });

  it.each(['x'.repeat(129), 'bad.id', 'a%20b', 'semi%3Bcolon', '..', '%2E%2E', 'a%2Fb', '%00'])(
    'gives 422 {detail} for the id %s and touches nothing',
    async (id) => {
      const res = await rawRequest(await gw.listen(), 'DELETE', `/api/threads/${id}`);
      expect(res.status).toBe(422);
      expect(JSON.parse(res.body.toString()).detail).toMatch(/thread_id/);
      expect(existsSync(path.join(gw.home, 'config.yaml'))).toBe(true);
    },
  );

  it('answers exactly {"detail":"Failed to delete local thread data."} with 500 on an internal failure', async () => {
    const broken = await startGatewayApp();
    try {
      // A file where the threads folder should be: removing threads/<id> fails with ENOTDIR.
      rmSync(path.join(broken.home, 'threads'), { recursive: true, force: true });
      writeFileSync(path.join(broken.home, 'threads'), 'not a folder');
      const res = await broken.api.app.inject({ method: 'DELETE', url: `/api/threads/${randomUUID()}` });
      expect(res.statusCode).toBe(500);
      expect(res.body).toBe('{"detail":"Failed to delete local thread data."}');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    } finally {
      await broken.close();
    }
  });
});
