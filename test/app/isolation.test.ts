// Users and isolation (issue 19), on 2 API replicas and 2 workers: alice and bob each reach only
// their own threads, runs, assistants, crons, store namespaces, uploads, artifacts, memory and
// custom agents, through the LangGraph SDK and the gateway; the other's ids answer 404 (never
// 403), in searches, counts, history, stream joins and WebSocket joins too; the admin reaches both.
// Alice talks to one replica and bob to the other, so nothing rests on one process's memory.
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { testGraphs } from '../support/stack.js';
import { upgradeStatus } from '../support/upgrade-status.js';

const KEYS = { alice: 'alice-key-0123456789abcdef', bob: 'bob-key-0123456789abcdef', admin: 'admin-key-0123456789abcdef' } as const;
type Who = keyof typeof KEYS;

let cluster: Cluster;
let bases: Record<Who, string>;
let sdk: Record<Who, Client>;

beforeAll(async () => {
  buildDist();
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: {
      graphs: testGraphs('echo'),
      auth: {
        api_keys: [
          { key: KEYS.alice, user: 'alice' },
          { key: KEYS.bob, user: 'bob' },
          { key: KEYS.admin, user: 'ops', role: 'admin' },
        ],
      },
    },
  });
  const [first, second] = cluster.apis;
  const url = (port: number | undefined) => `http://127.0.0.1:${port}`;
  // Alice on one replica, bob on the other; the admin on the first.
  bases = { alice: url(first?.port), bob: url(second?.port), admin: url(first?.port) };
  sdk = {
    alice: new Client({ apiUrl: `${bases.alice}/api/langgraph`, apiKey: KEYS.alice }),
    bob: new Client({ apiUrl: `${bases.bob}/api/langgraph`, apiKey: KEYS.bob }),
    admin: new Client({ apiUrl: `${bases.admin}/api/langgraph`, apiKey: KEYS.admin }),
  };
}, 240_000);
afterAll(async () => {
  await cluster?.stop();
}, 60_000);

interface Answer {
  status: number;
  json: unknown;
}

/** A request as `who`, on their replica, with a JSON body. */
async function call(who: Who, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${bases[who]}${path}`, {
    method,
    headers: { 'x-api-key': KEYS[who], ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // SSE or a file: the text itself.
  }
  return { status: res.status, json };
}

const status = async (who: Who, method: string, path: string, body?: unknown) => (await call(who, method, path, body)).status;

/**
 * An upload's status. A refused upload is answered before its body is read and its connection
 * closed, which can cut fetch's write short (EPIPE) before it reads the answer: read it here.
 */
function uploadStatus(who: Who, threadId: string, name: string, content: string): Promise<number> {
  const boundary = `----isolation${randomUUID()}`;
  const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${bases[who]}/api/threads/${threadId}/uploads`, {
      method: 'POST',
      agent: false,
      headers: { 'x-api-key': KEYS[who], 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.end(body);
  });
}

/** A WebSocket upgrade on `who`'s replica, with their key. */
const upgradeAs = (who: Who, path: string) => upgradeStatus(`${bases[who]}${path}`, { 'x-api-key': KEYS[who] });

const lg = (path: string) => `/api/langgraph${path}`;
const tag = () => randomUUID().slice(0, 8);

describe('threads and runs', () => {
  let mine: string;
  let run: string;
  let theirs: string;
  const label = tag();

  beforeAll(async () => {
    mine = (await sdk.alice.threads.create({ metadata: { label } })).thread_id;
    theirs = (await sdk.bob.threads.create({ metadata: { label } })).thread_id;
    await sdk.alice.runs.wait(mine, 'echo', { input: { messages: [{ role: 'user', content: 'hi' }] } });
    run = ((await call('alice', 'GET', lg(`/threads/${mine}/runs`))).json as { runs: Array<{ run_id: string }> }).runs[0]?.run_id as string;
  }, 60_000);

  it("answers 404 for every route under another user's thread, and never 403", async () => {
    const t = `/threads/${mine}`;
    const r = `${t}/runs/${run}`;
    const refused: Array<[string, string, unknown?]> = [
      ['GET', t],
      ['PATCH', t, { metadata: { x: 1 } }],
      ['DELETE', t],
      ['POST', `${t}/copy`],
      ['GET', `${t}/state`],
      ['POST', `${t}/state`, { values: { messages: [] } }],
      ['GET', `${t}/history`],
      ['POST', `${t}/history`, { limit: 5 }],
      ['GET', `${t}/runs`],
      ['POST', `${t}/runs/wait`, { assistant_id: 'echo', input: { messages: [] } }],
      ['POST', `${t}/runs/stream`, { assistant_id: 'echo', input: { messages: [] } }],
      ['GET', r],
      ['DELETE', r],
      ['POST', `${r}/cancel`],
      ['GET', `${r}/join`],
      ['GET', `${r}/stream`],
      ['GET', `/runs/${run}/stream`],
      ['POST', `${t}/runs/crons`, { assistant_id: 'echo', schedule: '0 0 1 1 *' }],
    ];
    for (const [method, path, body] of refused) {
      const answer = await call('bob', method, lg(path), body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
      expect((answer.json as { detail?: unknown }).detail).toEqual(expect.any(String));
    }
    // The gateway's thread routes too.
    for (const [method, path] of [
      ['GET', `/api/threads/${mine}/uploads/list`],
      ['GET', `/api/threads/${mine}/token-usage`],
      ['GET', `/api/threads/${mine}/artifacts/mnt/user-data/outputs/x.txt`],
      ['DELETE', `/api/threads/${mine}`],
    ] as const) {
      expect({ path, status: await status('bob', method, path) }).toEqual({ path, status: 404 });
    }
    // A WebSocket join is refused before the upgrade; on one's own thread it upgrades.
    expect(await upgradeAs('bob', lg(`/threads/${mine}/runs/stream`))).toBe(404);
    expect(await upgradeAs('alice', lg(`/threads/${mine}/runs/stream`))).toBe(101);
    // Making a thread with another's id is a conflict, as for any existing thread.
    expect(await status('bob', 'POST', lg('/threads'), { thread_id: mine })).toBe(409);
    expect(await status('bob', 'POST', lg('/threads'), { thread_id: mine, if_exists: 'do_nothing' })).toBe(409);
    // And nothing of alice's was touched.
    expect((await sdk.alice.threads.get(mine)).metadata).toMatchObject({ label });
    expect(await sdk.alice.runs.get(mine, run)).toMatchObject({ status: 'success' });
  });

  it('searches, counts and bulk-cancels only within their own threads; the admin sees both', async () => {
    const bobs = await sdk.bob.threads.search({ metadata: { label } });
    expect(bobs.map((t) => t.thread_id)).toEqual([theirs]);
    expect(await sdk.bob.threads.search({ ids: [mine, theirs] })).toEqual([expect.objectContaining({ thread_id: theirs })]);
    expect(await call('bob', 'POST', lg('/threads/count'), { metadata: { label } })).toMatchObject({ json: 1 });
    expect((await sdk.alice.threads.search({ metadata: { label } })).map((t) => t.thread_id)).toEqual([mine]);
    const all = await sdk.admin.threads.search({ metadata: { label } });
    expect(all.map((t) => t.thread_id).sort()).toEqual([mine, theirs].sort());
    expect(await call('bob', 'POST', lg('/runs/cancel'), { run_ids: [run] })).toMatchObject({ status: 404 });
    expect(await status('bob', 'POST', lg('/runs/cancel'), { status: 'all' })).toBe(204);
  });

  it("lets the admin read, run on and join any user's thread", async () => {
    expect((await sdk.admin.threads.get(mine)).thread_id).toBe(mine);
    expect(await sdk.admin.threads.getHistory(mine)).not.toHaveLength(0);
    expect(await status('admin', 'GET', lg(`/threads/${mine}/runs/${run}/stream`))).toBe(200);
    expect(await upgradeAs('admin', lg(`/threads/${theirs}/runs/stream`))).toBe(101);
  });

  it("makes a stateless run's thread the caller's, and keeps its join from others", async () => {
    const answer = await call('bob', 'POST', lg('/runs'), { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'x' }] }, on_completion: 'keep' });
    const created = answer.json as { run_id: string; thread_id: string };
    await sdk.bob.runs.join(created.thread_id, created.run_id);
    expect(await status('alice', 'GET', lg(`/runs/${created.run_id}/stream`))).toBe(404);
    expect(await status('alice', 'GET', lg(`/threads/${created.thread_id}`))).toBe(404);
    expect((await sdk.bob.threads.get(created.thread_id)).thread_id).toBe(created.thread_id);
  });
});

describe('assistants, crons and custom agents', () => {
  it("hides another user's assistant from get, search, count, runs and changes", async () => {
    const graphId = 'echo';
    const name = `mine-${tag()}`;
    const assistant = await sdk.alice.assistants.create({ graphId, name });
    const a = lg(`/assistants/${assistant.assistant_id}`);
    for (const [method, path, body] of [
      ['GET', a],
      ['PATCH', a, { name: 'taken' }],
      ['DELETE', a],
      ['GET', `${a}/versions`],
      ['POST', `${a}/versions`, {}],
      ['POST', `${a}/latest`, { version: 1 }],
      ['GET', `${a}/schemas`],
      ['GET', `${a}/graph`],
    ] as const) {
      expect({ path, status: await status('bob', method, path, body) }).toEqual({ path, status: 404 });
    }
    expect(await sdk.bob.assistants.search({ name })).toEqual([]);
    expect(await call('bob', 'POST', lg('/assistants/count'), { name })).toMatchObject({ json: 0 });
    const run = await call('bob', 'POST', lg('/runs/wait'), { assistant_id: assistant.assistant_id, input: { messages: [] } });
    expect(run.status).toBe(404);
    // A create with its id does not hand it over, whatever if_exists says.
    expect(await status('bob', 'POST', lg('/assistants'), { graph_id: graphId, assistant_id: assistant.assistant_id, if_exists: 'do_nothing' })).toBe(409);
    // System assistants are everyone's.
    expect((await sdk.bob.assistants.search({ graphId })).map((x) => x.assistant_id)).toContain('echo');
    expect((await sdk.alice.assistants.search({ name })).map((x) => x.assistant_id)).toEqual([assistant.assistant_id]);
    expect((await sdk.admin.assistants.get(assistant.assistant_id)).name).toBe(name);
  });

  it("hides another user's cron, and records its owner as user_id", async () => {
    const marker = tag();
    const cron = await sdk.alice.crons.create('echo', { schedule: '0 0 1 1 *', input: { messages: [] }, metadata: { marker } });
    expect(cron).toMatchObject({ user_id: 'alice' });
    const c = lg(`/runs/crons/${cron.cron_id}`);
    expect(await status('bob', 'PATCH', c, { enabled: false })).toBe(404);
    expect(await status('bob', 'DELETE', c)).toBe(404);
    expect(await call('bob', 'POST', lg('/runs/crons/search'), { metadata: { marker } })).toMatchObject({ json: [] });
    expect(await call('bob', 'POST', lg('/runs/crons/count'), { metadata: { marker } })).toMatchObject({ json: 0 });
    expect(await call('alice', 'POST', lg('/runs/crons/count'), { metadata: { marker } })).toMatchObject({ json: 1 });
    expect(await call('admin', 'POST', lg('/runs/crons/count'), { metadata: { marker } })).toMatchObject({ json: 1 });
    await sdk.alice.crons.delete(cron.cron_id);
  });

  it("hides another user's custom agent, and refuses a run that names it", async () => {
    const name = `agent-${tag()}`;
    expect(await status('alice', 'POST', '/api/agents', { name, soul: 'You are terse.' })).toBe(201);
    expect(await status('bob', 'GET', `/api/agents/${name}`)).toBe(404);
    expect(await status('bob', 'PUT', `/api/agents/${name}`, { soul: 'mine now' })).toBe(404);
    expect(await status('bob', 'DELETE', `/api/agents/${name}`)).toBe(404);
    const listed = (answer: Answer) => (answer.json as { agents: Array<{ name: string }> }).agents.map((a) => a.name);
    expect(listed(await call('bob', 'GET', '/api/agents'))).not.toContain(name);
    expect(listed(await call('alice', 'GET', '/api/agents'))).toContain(name);
    expect(listed(await call('admin', 'GET', '/api/agents'))).toContain(name);
    const run = await call('bob', 'POST', lg('/runs/wait'), { assistant_id: 'echo', input: { messages: [] }, context: { agent_name: name } });
    expect(run.status).toBe(422);
    // Bootstrapping a new agent under a name another user holds is refused before it runs (#30).
    const bootstrap = await call('bob', 'POST', lg('/runs/wait'), { assistant_id: 'echo', input: { messages: [] }, context: { agent_name: name, is_bootstrap: true } });
    expect(bootstrap.status).toBe(409);
    expect(await status('alice', 'GET', `/api/agents/${name}`)).toBe(200);
  });
});

describe('store, uploads, artifacts and memory', () => {
  it("keeps each user's store namespaces (those under their user id) their own", async () => {
    const key = tag();
    await sdk.alice.store.putItem(['alice', 'notes'], key, { text: 'alice only' });
    await sdk.bob.store.putItem(['bob', 'notes'], key, { text: 'bob only' });
    expect(await sdk.bob.store.getItem(['alice', 'notes'], key)).toBeNull();
    expect(await status('bob', 'PUT', lg('/store/items'), { namespace: ['alice', 'notes'], key, value: { text: 'overwritten' } })).toBe(404);
    expect(await status('bob', 'DELETE', lg('/store/items'), { namespace: ['alice', 'notes'], key })).toBe(404);
    expect(await status('bob', 'PUT', lg('/store/items'), { namespace: ['shared'], key, value: {} })).toBe(404);
    const found = await sdk.bob.store.searchItems([], { limit: 100 });
    expect(found.items.map((i) => i.namespace[0])).toEqual(expect.arrayContaining(['bob']));
    expect(found.items.every((i) => i.namespace[0] === 'bob')).toBe(true);
    expect((await sdk.bob.store.searchItems(['alice'])).items).toEqual([]);
    const namespaces = await sdk.bob.store.listNamespaces();
    expect(namespaces.namespaces.every((ns) => ns[0] === 'bob')).toBe(true);
    expect((await sdk.alice.store.getItem(['alice', 'notes'], key))?.value).toEqual({ text: 'alice only' });
    const admin = await sdk.admin.store.searchItems([], { limit: 100 });
    expect(admin.items.map((i) => i.namespace[0])).toEqual(expect.arrayContaining(['alice', 'bob']));
  });

  it('lets an upload claim a thread that does not exist yet, for the uploader only', async () => {
    const threadId = randomUUID();
    expect(await uploadStatus('alice', threadId, 'notes.txt', 'private notes')).toBe(200);
    expect(await uploadStatus('bob', threadId, 'notes.txt', 'mine now')).toBe(404);
    expect(await status('bob', 'GET', `/api/threads/${threadId}/uploads/list`)).toBe(404);
    expect(await status('bob', 'DELETE', `/api/threads/${threadId}/uploads/notes.txt`)).toBe(404);
    const artifact = `/api/threads/${threadId}/artifacts/mnt/user-data/uploads/notes.txt`;
    expect(await status('bob', 'GET', artifact)).toBe(404);
    expect(await call('alice', 'GET', artifact)).toMatchObject({ status: 200, json: 'private notes' });
    expect(await call('admin', 'GET', artifact)).toMatchObject({ status: 200 });
    // The thread the first run makes is the uploader's; bob cannot make it his.
    expect(await status('bob', 'POST', lg('/threads'), { thread_id: threadId })).toBe(409);
    expect((await sdk.alice.threads.create({ threadId })).thread_id).toBe(threadId);
  });

  it('keeps one memory per user', async () => {
    const content = `alice likes ${tag()}`;
    expect(await status('alice', 'POST', '/api/memory/facts', { content })).toBe(200);
    const facts = async (who: Who) => ((await call(who, 'GET', '/api/memory')).json as { facts: Array<{ content: string; id: string }> }).facts;
    expect((await facts('alice')).map((f) => f.content)).toContain(content);
    expect((await facts('bob')).map((f) => f.content)).not.toContain(content);
    const id = (await facts('alice')).find((f) => f.content === content)?.id as string;
    expect(await status('bob', 'DELETE', `/api/memory/facts/${id}`)).toBe(404);
    expect((await facts('alice')).map((f) => f.content)).toContain(content);
  });
});

describe('the deployment itself', () => {
  it('lets only an admin change MCP servers, skills and channel connections (403 for a user)', async () => {
    const mcp = await call('bob', 'PUT', '/api/mcp/config', { mcpServers: {} });
    expect(mcp.status).toBe(403);
    expect((mcp.json as { detail: string }).detail).toMatch(/admin/);
    expect(await status('bob', 'PUT', '/api/skills/deep-research', { enabled: false })).toBe(403);
    expect(await status('bob', 'POST', '/api/channels/telegram/restart')).toBe(403);
    // Reading stays open to users.
    expect(await status('bob', 'GET', '/api/mcp/config')).toBe(200);
    expect(await status('bob', 'GET', '/api/skills')).toBe(200);
  });
});
