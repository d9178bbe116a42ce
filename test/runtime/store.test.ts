// The long-term store (issue 15) through @langchain/langgraph-sdk, on 2 API replicas and 2
// workers: what one replica writes the other reads, a graph's `config.store` is the same data
// as /store/items, items expire and reads refresh them, a worker sweeps expired items away, and
// `query` ranks by similarity through a real OpenAI embeddings client talking to a local server.
import { Client, type Item } from '@langchain/langgraph-sdk';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { itemId } from '../../src/store/store-items.js';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '../support/scripted-embeddings.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

let embeddings: ScriptedEmbeddings;
let cluster: Cluster;
let plain: Stack;
let redis: RedisClient;
let a: Client;
let b: Client;
let aUrl: string;

beforeAll(async () => {
  buildDist();
  embeddings = await startScriptedEmbeddings(64);
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: {
      graphs: testGraphs('memo'),
      store: {
        index: { embed: 'openai:test-embedding', dims: 64, fields: ['text'], base_url: embeddings.url, api_key: 'sk-test' },
        // A short sweep interval, so the test sees a worker remove an expired item.
        ttl: { sweep_interval_minutes: 0.01 },
      },
    },
  });
  const [first, second] = cluster.apis;
  aUrl = `http://127.0.0.1:${first?.port}/api/langgraph`;
  a = new Client({ apiUrl: aUrl });
  b = new Client({ apiUrl: `http://127.0.0.1:${second?.port}/api/langgraph` });
  redis = connectTestRedis(cluster.redis.url);
  // No index, and a default TTL: an in-process API on its own Redis.
  plain = await startStack({ config: { store: { ttl: { default_ttl: 30, refresh_on_read: false } } } });
}, 240_000);
afterAll(async () => {
  redis?.disconnect();
  await plain?.close();
  await cluster?.stop();
  await embeddings?.close();
}, 60_000);

const unique = () => `t${Math.random().toString(36).slice(2, 10)}`;

async function status(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; detail: string }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json().catch(() => ({}))) as { detail?: string };
  return { status: res.status, detail: json.detail ?? '' };
}

/** An item as the wire has it: the SDK adds camelCase copies of the times and types only those. */
type WireItem = Item & { created_at: string; updated_at: string };

describe('store items over HTTP', () => {
  it('puts on one replica and gets on the other; a rewrite keeps created_at; delete removes', async () => {
    const ns = ['users', unique()];
    await a.store.putItem(ns, 'profile', { name: 'Ada', langs: ['en'] });
    const first = (await b.store.getItem(ns, 'profile')) as WireItem | null;
    expect(first).toMatchObject({ namespace: ns, key: 'profile', value: { name: 'Ada', langs: ['en'] } });
    expect(Date.parse(first?.created_at as string)).not.toBeNaN();

    await b.store.putItem(ns, 'profile', { name: 'Ada Lovelace' });
    const second = (await a.store.getItem(ns, 'profile')) as WireItem | null;
    expect(second?.value).toEqual({ name: 'Ada Lovelace' });
    expect(second?.created_at).toBe(first?.created_at);
    expect(Date.parse(second?.updated_at as string)).toBeGreaterThanOrEqual(Date.parse(first?.updated_at as string));

    await a.store.deleteItem(ns, 'profile');
    expect(await b.store.getItem(ns, 'profile')).toBeNull();
    // Deleting what is not there is no error, as in LangGraph.
    await b.store.deleteItem(ns, 'profile');
  });

  it('searches a namespace prefix newest first, with filters, limit and offset', async () => {
    const root = unique();
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) {
      await a.store.putItem([root, i % 2 === 0 ? 'even' : 'odd'], key, { n: i, tag: i < 2 ? 'low' : 'high' }, { index: false });
    }
    const all = await b.store.searchItems([root], { limit: 10 });
    expect(all.items.map((item) => item.key)).toEqual(['d', 'c', 'b', 'a']);
    expect((await b.store.searchItems([root, 'even'])).items.map((item) => item.key)).toEqual(['c', 'a']);
    expect((await b.store.searchItems([root], { limit: 2, offset: 1 })).items.map((item) => item.key)).toEqual(['c', 'b']);
    expect((await b.store.searchItems([root], { filter: { tag: 'low' } })).items.map((item) => item.key)).toEqual(['b', 'a']);
    expect((await b.store.searchItems([root], { filter: { n: { $gte: 1, $lt: 3 } } })).items.map((item) => item.key)).toEqual(['c', 'b']);
    expect((await b.store.searchItems([root], { filter: { n: { $in: [0, 3] } } })).items.map((item) => item.key)).toEqual(['d', 'a']);
    expect((await b.store.searchItems([root], { filter: { n: { $ne: 3 } }, offset: 2 })).items.map((item) => item.key)).toEqual(['a']);
    // A prefix that only starts a label matches nothing: labels are whole.
    expect((await b.store.searchItems([root.slice(0, 4)])).items).toEqual([]);
  });

  it('lists namespaces by prefix, suffix (with * wildcards) and max_depth, paged', async () => {
    const root = unique();
    for (const ns of [
      [root, 'docs', 'v1'],
      [root, 'docs', 'v2'],
      [root, 'notes'],
      [root, 'tmp', 'v1'],
    ]) {
      await a.store.putItem(ns, 'k', { x: 1 }, { index: false });
    }
    const list = async (options: Parameters<Client['store']['listNamespaces']>[0]) => (await b.store.listNamespaces(options)).namespaces;
    expect(await list({ prefix: [root] })).toEqual([
      [root, 'docs', 'v1'],
      [root, 'docs', 'v2'],
      [root, 'notes'],
      [root, 'tmp', 'v1'],
    ]);
    expect(await list({ prefix: [root], suffix: ['v1'] })).toEqual([
      [root, 'docs', 'v1'],
      [root, 'tmp', 'v1'],
    ]);
    expect(await list({ prefix: [root, '*', 'v1'] })).toEqual([
      [root, 'docs', 'v1'],
      [root, 'tmp', 'v1'],
    ]);
    expect(await list({ prefix: [root], maxDepth: 2 })).toEqual([
      [root, 'docs'],
      [root, 'notes'],
      [root, 'tmp'],
    ]);
    expect(await list({ prefix: [root], limit: 2, offset: 1 })).toEqual([
      [root, 'docs', 'v2'],
      [root, 'notes'],
    ]);
    // A namespace whose last item goes leaves the list.
    await a.store.deleteItem([root, 'notes'], 'k');
    expect(await list({ prefix: [root], maxDepth: 2 })).toEqual([
      [root, 'docs'],
      [root, 'tmp'],
    ]);
  });

  it('refuses bad input with 422 {detail} naming what is wrong', async () => {
    const cases: [string, string, unknown, RegExp][] = [
      ['PUT', '/store/items', { namespace: ['a.b'], key: 'k', value: {} }, /periods/],
      ['PUT', '/store/items', { namespace: [], key: 'k', value: {} }, /at least one label/],
      ['PUT', '/store/items', { namespace: ['a'], key: 'k', value: [1] }, /value/],
      ['PUT', '/store/items', { namespace: ['a'], key: 'k', value: {}, ttl: -1 }, /ttl/],
      ['PUT', '/store/items', { namespace: ['a'], key: 'k', value: {}, colour: 'red' }, /colour/],
      ['POST', '/store/items/search', { namespace_prefix: ['a'], filter: { n: { $near: 1 } } }, /unknown operator \$near/],
      ['POST', '/store/items/search', { namespace_prefix: ['a'], limit: 0 }, /limit/],
      ['POST', '/store/namespaces', { prefix: ['a', ''] }, /empty/],
      ['DELETE', '/store/items', { key: 'k' }, /at least one label/],
    ];
    for (const [method, path, body, detail] of cases) {
      const answer = await status(aUrl, method, path, body);
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(422);
      expect(answer.detail).toMatch(detail);
    }
    const noKey = await status(aUrl, 'GET', '/store/items?namespace=a');
    expect(noKey.status).toBe(422);
    expect(noKey.detail).toMatch(/key/);
  });
});

describe('graphs and the store', () => {
  it("a node's config.store reads what the API wrote, and the API reads what the node wrote", async () => {
    const user = unique();
    await a.store.putItem(['memo', user], 'last', { text: 'hello from the API' }, { index: false });
    const thread = await a.threads.create();
    const result = (await b.runs.wait(thread.thread_id, 'memo', {
      input: { messages: [{ role: 'user', content: 'second message' }] },
      config: { configurable: { user } },
    })) as { messages: { content: string }[] };
    expect(result.messages.at(-1)?.content).toBe('before: hello from the API; items: 1');
    expect((await a.store.getItem(['memo', user], 'last'))?.value).toEqual({ text: 'second message' });
  });
});

describe('semantic search', () => {
  it('ranks by similarity of the configured fields; unindexed items follow without a score', async () => {
    const root = unique();
    await a.store.putItem([root, 'facts'], 'cats', { text: 'cats purr and chase mice', other: 'zebra' });
    await a.store.putItem([root, 'facts'], 'ships', { text: 'ships sail the sea' });
    await a.store.putItem([root, 'facts'], 'plain', { text: 'cats cats cats' }, { index: false });
    // `index` names other fields: only `other` is embedded for this one.
    await a.store.putItem([root, 'facts'], 'zebra', { text: 'nothing', other: 'zebra zebra stripes' }, { index: ['other'] });

    const found = (await b.store.searchItems([root], { query: 'do cats chase mice', limit: 10 })).items;
    expect(found).toHaveLength(4);
    expect(found[0]?.key).toBe('cats');
    expect(found[0]?.score).toBeGreaterThan(0.5);
    expect(found.at(-1)).toMatchObject({ key: 'plain' });
    expect(found.at(-1)).not.toHaveProperty('score');

    const stripes = (await a.store.searchItems([root], { query: 'zebra stripes', limit: 1 })).items;
    expect(stripes.map((item) => item.key)).toEqual(['zebra']);
    // Filters and offsets apply to the ranked order.
    const filtered = (await b.store.searchItems([root], { query: 'cats', filter: { text: 'ships sail the sea' } })).items;
    expect(filtered.map((item) => item.key)).toEqual(['ships']);
    // A rewrite re-embeds, and a delete removes: replica a searched this prefix before, and its
    // cache notices the store's new write generation.
    expect((await a.store.searchItems([root], { query: 'cats purr', limit: 1 })).items[0]?.key).toBe('cats');
    await b.store.putItem([root, 'facts'], 'cats', { text: 'dogs bark at night' });
    expect((await a.store.searchItems([root], { query: 'dogs bark', limit: 1 })).items[0]?.key).toBe('cats');
    await b.store.deleteItem([root, 'facts'], 'cats');
    expect((await a.store.searchItems([root], { query: 'dogs bark', limit: 10 })).items.map((item) => item.key)).not.toContain('cats');
  });

  it('answers a query with 422 when no embedding model is configured', async () => {
    const answer = await status(plain.apiUrl, 'POST', '/store/items/search', { namespace_prefix: [], query: 'anything' });
    expect(answer.status).toBe(422);
    expect(answer.detail).toMatch(/store\.index/);
  });
});

describe('TTL', () => {
  it('an item expires (reads as absent), and a worker sweeps it from Redis', async () => {
    const ns = ['ttl', unique()];
    // 0.002 minutes: 120 ms.
    await a.store.putItem(ns, 'brief', { x: 1 }, { ttl: 0.002, index: false });
    await a.store.putItem(ns, 'lasting', { x: 2 }, { index: false });
    // Without refresh_ttl: false, each read would start its TTL again (refresh_on_read).
    await waitFor(async () => (await b.store.getItem(ns, 'brief', { refreshTtl: false })) === null, 'the item to expire');
    await waitFor(async () => (await redis.exists(keys.storeItem(itemId(ns, 'brief')))) === 0, 'a worker to sweep the expired item');
    expect((await b.store.searchItems(ns)).items.map((item) => item.key)).toEqual(['lasting']);
    expect((await b.store.listNamespaces({ prefix: ns })).namespaces).toEqual([ns]);
  });

  it('a read restarts the TTL when it asks (refresh_on_read is on here), and not when it says no', async () => {
    const ns = ['ttl', unique()];
    await a.store.putItem(ns, 'k', { x: 1 }, { ttl: 10, index: false });
    const expiry = async () => Number(await redis.hget(keys.storeItem(itemId(ns, 'k')), 'expires_at'));
    const first = await expiry();
    await waitFor(async () => Date.now() > first - 10 * 60_000 + 5, 'the clock to move');
    await b.store.getItem(ns, 'k', { refreshTtl: false });
    expect(await expiry()).toBe(first);
    await b.store.getItem(ns, 'k');
    const refreshed = await expiry();
    expect(refreshed).toBeGreaterThan(first);
    await waitFor(async () => Date.now() > refreshed - 10 * 60_000 + 5, 'the clock to move');
    await a.store.searchItems(ns, { refreshTtl: true });
    expect(await expiry()).toBeGreaterThan(refreshed);
  });

  it("takes config's default TTL when a write names none, and ttl: null keeps an item for ever", async () => {
    const ns = ['ttl', unique()];
    const raw = connectTestRedis(inject('redisUrl'));
    try {
      await plain.client.store.putItem(ns, 'default', { x: 1 });
      await plain.client.store.putItem(ns, 'forever', { x: 1 }, { ttl: null });
      const fields = async (key: string) => raw.hmget(keys.storeItem(itemId(ns, key)), 'ttl', 'expires_at');
      const [ttl, expires] = await fields('default');
      expect(ttl).toBe('30');
      expect(Number(expires)).toBeGreaterThan(Date.now() + 29 * 60_000);
      expect(await fields('forever')).toEqual(['', '']);
    } finally {
      raw.disconnect();
    }
  });
});
