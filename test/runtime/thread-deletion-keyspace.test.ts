// Thread deletion leaves nothing (issue 33), on 2 API replicas and 2 workers: a thousand threads
// live (a chat run each with a feedback on it, an upload, a cron, a store item of their own, and every
// tenth a memory fact),
// then half are deleted through the LangGraph API and half through the gateway's. The keyspace,
// counted per key family (ids replaced by placeholders) and, for each single key, by its size,
// is then what it was before, and no thread's folder is left on disk. What is retained on
// purpose is BullMQ's capped job history (README, "What a deleted thread leaves").
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/store/redis.js';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { testGraphs } from '../support/stack.js';
import { connectTestRedis, onTestCluster, scanAll } from '../support/test-redis.js';
import { waitFor } from '../support/wait-for.js';

const THREADS = 1000;
/** Threads living at once: enough to keep both workers busy, few enough for a 2-core machine. */
const BATCH = 100;
/** Every this many lives add and forget a memory fact (one document per user: its writes queue). */
const MEMORY_EVERY = 10;
/** BullMQ keeps this many finished jobs per queue (and for an hour): src/queue/run-queue.ts. */
const JOB_HISTORY_CAP = 10_000;

let cluster: Cluster;
let llm: ScriptedOpenAI;
let redis: RedisClient;
let replicas: string[];
let turn = 0;

async function call(method: string, route: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const base = replicas[turn++ % replicas.length] as string;
  const isForm = body instanceof FormData;
  const res = await fetch(`${base}${route}`, {
    method,
    ...(body === undefined ? {} : isForm ? { body } : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
}

async function ok<T>(method: string, route: string, body?: unknown, status = 200): Promise<T> {
  const answer = await call(method, route, body);
  expect(answer.status, `${method} ${route}: ${JSON.stringify(answer.json)}`).toBe(status);
  return answer.json as T;
}

const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** A key's family: its name with ids and numbers replaced. */
const familyOf = (key: string) => key.replace(ID, '<id>').replace(/\d+/g, '<n>');
/** BullMQ's job records (`warren:bull:<queue>:<job id>`, and their logs): the retained history. */
const isJobRecord = (family: string) => /^warren:bull:(\{[^}]+\}:)?[^:]+:[^:]*<(id|n)>[^:]*(:logs)?$/.test(family);
/** BullMQ's own bookkeeping whose size follows the capped history, not the threads. */
const isJobHistoryIndex = (family: string) => /^warren:bull:(\{[^}]+\}:)?[^:]+:(completed|failed|events|id|metrics:.*)$/.test(family);

interface Census {
  /** Keys without an expiry, per family. */
  families: Map<string, number>;
  /** Keys with an expiry, per family (gone in time: allowed to differ). */
  expiring: Map<string, number>;
  /** The size of each family that is one key (a global index, a counter hash). */
  sizes: Map<string, number>;
  /** BullMQ job records, per family. */
  jobs: Map<string, number>;
}

async function sizeOf(key: string): Promise<number> {
  const type = await redis.type(key);
  if (type === 'hash') return redis.hlen(key);
  if (type === 'zset') return redis.zcard(key);
  if (type === 'set') return redis.scard(key);
  if (type === 'list') return redis.llen(key);
  if (type === 'stream') return redis.xlen(key);
  return 1;
}

async function census(): Promise<Census> {
  const all = await scanAll(redis, 'warren:*');
  const ttls = await Promise.all(all.map((k) => redis.pttl(k)));
  const c: Census = { families: new Map(), expiring: new Map(), sizes: new Map(), jobs: new Map() };
  const bump = (m: Map<string, number>, f: string) => m.set(f, (m.get(f) ?? 0) + 1);
  all.forEach((key, i) => {
    const family = familyOf(key);
    if (isJobRecord(family)) bump(c.jobs, family);
    else if ((ttls[i] ?? -1) >= 0) bump(c.expiring, family);
    else bump(c.families, family);
  });
  const singles = all.filter((k) => familyOf(k) === k && !isJobHistoryIndex(k));
  const sizes = await Promise.all(singles.map(sizeOf));
  singles.forEach((k, i) => c.sizes.set(k, sizes[i] ?? 0));
  return c;
}

const diff = (before: Map<string, number>, after: Map<string, number>) =>
  [...new Set([...before.keys(), ...after.keys()])].filter((k) => (before.get(k) ?? 0) !== (after.get(k) ?? 0)).map((k) => `${k}: ${before.get(k) ?? 0} → ${after.get(k) ?? 0}`).sort();

/** One thread's life, ended by deleting it through `route`. */
async function life(i: number, route: 'langgraph' | 'gateway'): Promise<string> {
  const { thread_id: threadId } = await ok<{ thread_id: string }>('POST', '/api/langgraph/threads', { metadata: { life: i } });
  const form = new FormData();
  form.append('files', new Blob([`notes of life ${i}`]), 'notes.txt');
  await ok('POST', `/api/threads/${threadId}/uploads`, form);
  // A yearly schedule: it exists (record, indexes, BullMQ scheduler) but never ticks here.
  await ok('POST', `/api/langgraph/threads/${threadId}/runs/crons`, { assistant_id: 'chat', schedule: '0 0 1 1 *', input: { messages: [] } });
  await ok('POST', `/api/langgraph/threads/${threadId}/runs/wait`, { assistant_id: 'chat', input: { messages: [{ type: 'human', content: `life ${i}` }] } });
  const listed = await ok<Array<{ run_id: string }> | { runs: Array<{ run_id: string }> }>('GET', `/api/langgraph/threads/${threadId}/runs`);
  const runId = (Array.isArray(listed) ? listed : listed.runs)[0]?.run_id;
  expect(runId).toBeDefined();
  await ok('POST', `/api/threads/${threadId}/runs/${runId}/feedback`, { rating: i % 2 === 0 ? 1 : -1, comment: `life ${i}` });
  const namespace = ['life', threadId];
  await ok('PUT', '/api/langgraph/store/items', { namespace, key: 'note', value: { i } }, 204);
  await ok('DELETE', '/api/langgraph/store/items', { namespace, key: 'note' }, 204);
  if (i % MEMORY_EVERY === 0) {
    const memory = await ok<{ facts: { id: string; content: string }[] }>('POST', '/api/memory/facts', { content: `Life ${i} likes thread ${threadId}.` });
    const factId = memory.facts.find((f) => f.content.includes(threadId))?.id;
    expect(factId).toBeDefined();
    await ok('DELETE', `/api/memory/facts/${factId}`);
  }
  if (route === 'langgraph') await ok('DELETE', `/api/langgraph/threads/${threadId}`, undefined, 204);
  else await ok('DELETE', `/api/threads/${threadId}`);
  return threadId;
}

async function lives(from: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = from; start < from + count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, from + count - start) }, (_, j) => start + j);
    ids.push(...(await Promise.all(batch.map((i) => life(i, i % 2 === 0 ? 'langgraph' : 'gateway')))));
  }
  return ids;
}

/** Nothing queued or running: every job of the lives is finished. */
async function settled(): Promise<boolean> {
  const busy = await Promise.all(
    (await scanAll(redis, 'warren:bull:*')).filter((k) => /:(wait|active|paused|prioritized|delayed)$/.test(k) && !k.includes('crons')).map((k) => sizeOf(k)),
  );
  return busy.every((n) => n === 0);
}

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI(() => ({ content: 'Noted.' }));
  process.env.WARREN_TEST_OPENAI_URL = llm.url;
  cluster = await startCluster({ apis: 2, workers: 2, config: { graphs: testGraphs('chat') } });
  replicas = cluster.apis.map((api) => `http://127.0.0.1:${api.port}`);
  redis = connectTestRedis(cluster.redis.url);
}, 400_000);
afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
  await llm?.close();
}, 60_000);

describe('a thousand threads live and are deleted through both APIs (issue 33)', () => {
  it('leaves the keyspace as it found it, but for BullMQ capped job history, and no folder on disk', async () => {
    // One life each way first: what any first use makes once (global indexes, the memory
    // document, BullMQ's queue keys) is there before the count.
    await lives(0, 2);
    await waitFor(settled, 'the warm-up jobs to finish');
    const before = await census();

    const started = performance.now();
    const ids = await lives(2, THREADS);
    const livedMs = performance.now() - started;
    await waitFor(settled, 'every job to finish');
    let after = await census();
    // Settling writes (a run's final counters, BullMQ's moves) may land just after the answers.
    await waitFor(async () => {
      after = await census();
      return diff(before.families, after.families).length === 0 && diff(before.sizes, after.sizes).length === 0;
    }, 'the keyspace to come back', 30_000).catch(() => undefined);

    // Keys without expiry, per family, and the size of each single key: as before.
    expect({ families: diff(before.families, after.families), sizes: diff(before.sizes, after.sizes) }).toEqual({ families: [], sizes: [] });
    // Retained on purpose: BullMQ's job history, capped per queue.
    for (const [family, count] of after.jobs) expect(count, family).toBeLessThanOrEqual(JOB_HISTORY_CAP);
    const expiring = [...after.expiring].map(([f, n]) => `${f}: ${n}`);
    process.stdout.write(
      `keyspace after ${THREADS} threads in ${Math.round(livedMs / 1000)} s (${onTestCluster() ? 'cluster' : 'single'}): ${after.families.size} families, ` +
        `job records ${JSON.stringify(Object.fromEntries(after.jobs))}, expiring ${JSON.stringify(expiring)}\n`,
    );
    expect(ids.filter((id) => existsSync(path.join(cluster.home, 'threads', id))), 'thread folders left').toEqual([]);
  }, 900_000);
});
