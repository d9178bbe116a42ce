// The queue dashboard (issue #35): Bull Board at /admin/queues, on 2 API replicas and 2 workers.
// An admin sees it and every queue of the deployment (runs, model tasks, memory, webhooks,
// crons), with the runs the workers finished; a user gets 403 and no key 401; by default it is
// read-only (a retry or a promote is refused and changes nothing); `admin.queues: false` serves
// nothing (404); `{actions: true}` lets an open Warren's anonymous admin pause and resume a queue.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildDist, startApiReplicas, startCluster, type ApiReplicas, type Cluster } from '../support/cluster.js';
import { testGraphs } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const KEYS = { admin: 'admin-key-0123456789abcdef', alice: 'alice-key-0123456789abcdef' } as const;
/** The queues of a deployment whose WARREN_QUEUE is `runs` (each test deployment has its own name). */
const queuesOf = (runs: string) => [runs, `${runs}-tasks`, `${runs}-memory`, `${runs}-webhooks`, `${runs}-crons`];
const RUNS = 4;

let cluster: Cluster;
let replicas: string[];
/** Deployments beside the cluster's, on its Redis and queue, with other `admin.queues` settings. */
const others: ApiReplicas[] = [];

async function call(base: string, method: string, url: string, key?: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    // JSON answers: a run created without it would answer as a stream.
    headers: { accept: 'application/json', ...(key ? { 'x-api-key': key } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // An HTML page or a static file: the text is what the test reads.
  }
  return { status: res.status, text, json, headers: res.headers };
}

interface BoardQueue {
  name: string;
  counts: Record<string, number>;
  readOnlyMode: boolean;
}

async function boardQueues(base: string, key?: string): Promise<BoardQueue[]> {
  const answer = await call(base, 'GET', '/admin/queues/api/queues', key);
  expect(answer.status, answer.text).toBe(200);
  return (answer.json as { queues: BoardQueue[] }).queues;
}

/** The run queue among the board's queues: the one the others are named after. */
function runQueue(queues: BoardQueue[]): BoardQueue {
  const names = new Set(queues.map((q) => q.name));
  const runs = queues.find((q) => names.has(`${q.name}-tasks`));
  expect(runs).toBeDefined();
  return runs as BoardQueue;
}

/** Starts API replicas (and workers) on the cluster's Redis and home, with this config and their own queue. */
async function deployment(config: Record<string, unknown>, name: string, size: { apis: number; workers: number }): Promise<string[]> {
  const configFile = path.join(cluster.home, `${name}.yaml`);
  writeFileSync(configFile, stringify(config));
  const started = await startApiReplicas({ ...size, redisUrl: cluster.redis.url, home: cluster.home, configFile });
  others.push(started);
  return started.urls;
}

beforeAll(async () => {
  buildDist();
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    redis: 'single',
    config: {
      graphs: testGraphs('echo'),
      auth: { api_keys: [{ key: KEYS.admin, user: 'root', role: 'admin' }, { key: KEYS.alice, user: 'alice' }] },
    },
  });
  replicas = cluster.apis.map((api) => `http://127.0.0.1:${api.port}`);
  for (let i = 0; i < RUNS; i++) {
    const base = replicas[i % 2] as string;
    const thread = (await call(base, 'POST', '/api/langgraph/threads', KEYS.alice, {})).json as { thread_id: string };
    const run = await call(base, 'POST', `/api/langgraph/threads/${thread.thread_id}/runs/wait`, KEYS.alice, {
      assistant_id: 'echo',
      input: { messages: [{ type: 'human', content: `run ${i}` }] },
    });
    expect(run.status, run.text).toBe(200);
  }
}, 300_000);

afterAll(async () => {
  await Promise.all(others.map((o) => o.stop()));
  await cluster?.stop();
});

describe('queue dashboard', () => {
  it('shows an admin the page and every queue, with the finished runs, on each replica', async () => {
    for (const base of replicas) {
      const page = await call(base, 'GET', '/admin/queues', KEYS.admin);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(page.text).toContain('Warren queues');
      // The page's scripts and styles load from under the same prefix, past the same gate.
      expect(page.text).toContain('<base href="/admin/queues/"');
      const asset = `/admin/queues/${/href="(static\/css\/[^"]+)"/.exec(page.text)?.[1]}`;
      expect(asset).toMatch(/\.css$/);
      expect((await call(base, 'GET', asset, KEYS.admin)).status).toBe(200);
      expect((await call(base, 'GET', asset, KEYS.alice)).status).toBe(403);

      const queues = await boardQueues(base, KEYS.admin);
      const runs = runQueue(queues);
      expect(queues.map((q) => q.name).sort()).toEqual(queuesOf(runs.name).sort());
      for (const q of queues) expect(q.readOnlyMode).toBe(true);
      expect(runs.counts.completed).toBeGreaterThanOrEqual(RUNS);
      // One queue's jobs, as the page lists them: the runs, by job id = run id.
      const listed = await call(base, 'GET', `/admin/queues/api/queues?activeQueue=${runs.name}&status=completed&page=1&jobsPerPage=10`, KEYS.admin);
      const jobs = ((listed.json as { queues: { name: string; jobs: { id: string; name: string }[] }[] }).queues.find((q) => q.name === runs.name)?.jobs ?? []);
      expect(jobs.length).toBeGreaterThanOrEqual(RUNS);
      for (const job of jobs) expect(job.name).toBe('run');
    }
    // The board's own routes stay out of the API's OpenAPI document.
    const doc = (await call(replicas[0] as string, 'GET', '/openapi.json', KEYS.admin)).json as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/admin'))).toEqual([]);
  });

  it('refuses a user (403) and a caller without a key (401), on each replica', async () => {
    for (const base of replicas) {
      for (const url of ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/queue/runs']) {
        const user = await call(base, 'GET', url, KEYS.alice);
        expect(user.status).toBe(403);
        expect((user.json as { detail: string }).detail).toMatch(/admin/);
        expect((await call(base, 'GET', url)).status).toBe(401);
      }
      // A user is refused before the read-only rule is even looked at.
      expect((await call(base, 'PUT', '/admin/queues/api/queues/runs/retry/failed', KEYS.alice)).status).toBe(403);
    }
  });

  it('is read-only by default: an action is refused and changes nothing', async () => {
    const base = replicas[0] as string;
    const thread = (await call(base, 'POST', '/api/langgraph/threads', KEYS.alice, {})).json as { thread_id: string };
    const delayed = await call(base, 'POST', `/api/langgraph/threads/${thread.thread_id}/runs`, KEYS.alice, { assistant_id: 'echo', input: { messages: [] }, after_seconds: 3600 });
    expect(delayed.status, delayed.text).toBe(200);
    const runId = (delayed.json as { run_id: string }).run_id;
    const name = runQueue(await boardQueues(base, KEYS.admin)).name;
    for (const [method, url] of [
      ['PUT', `/admin/queues/api/queues/${name}/${runId}/promote`],
      ['PUT', `/admin/queues/api/queues/${name}/promote`],
      ['PUT', `/admin/queues/api/queues/${name}/retry/failed`],
      ['PUT', `/admin/queues/api/queues/${name}/clean/completed`],
      ['PUT', '/admin/queues/api/queues/pause'],
      ['PUT', `/admin/queues/api/queues/${name}/empty`],
      ['POST', `/admin/queues/api/queues/${name}/add`],
    ] as const) {
      const answer = await call(replicas[1] as string, method, url, KEYS.admin, method === 'POST' ? { name: 'run', data: {} } : undefined);
      expect(answer.status, url).toBe(405);
      expect(answer.headers.get('allow')).toBe('GET, HEAD');
      expect((answer.json as { detail: string }).detail).toMatch(/read-only.*admin\.queues/);
    }
    const runs = runQueue(await boardQueues(replicas[1] as string, KEYS.admin));
    expect(runs.counts.delayed).toBe(1);
    expect(runs.counts.completed).toBeGreaterThanOrEqual(RUNS);
    const run = await call(base, 'GET', `/api/langgraph/threads/${thread.thread_id}/runs/${runId}`, KEYS.alice);
    expect((run.json as { status: string }).status).toBe('pending');
    await call(base, 'POST', `/api/langgraph/threads/${thread.thread_id}/runs/${runId}/cancel`, KEYS.alice);
  });

  it('serves nothing when admin.queues is false (404)', async () => {
    const off = await deployment({ graphs: testGraphs('echo'), admin: { queues: false } }, 'off', { apis: 1, workers: 0 });
    for (const base of off) {
      for (const url of ['/admin/queues', '/admin/queues/api/queues']) {
        const answer = await call(base, 'GET', url);
        expect(answer.status).toBe(404);
        expect(answer.json).toHaveProperty('detail');
      }
      // The rest of the API is there.
      expect((await call(base, 'GET', '/ok')).status).toBe(200);
    }
  }, 180_000);

  it('lets an open Warren\'s anonymous admin act when actions are on: the run queue paused holds a run, resumed runs it', async () => {
    // One API and a worker of its own (its queue is its own): the cluster's replicas show the rest.
    const [api] = (await deployment({ graphs: testGraphs('echo'), admin: { queues: { actions: true } } }, 'actions', { apis: 1, workers: 1 })) as [string];
    const queues = await boardQueues(api);
    for (const q of queues) expect(q.readOnlyMode).toBe(false);
    const name = runQueue(queues).name;
    const paused = await call(api, 'PUT', `/admin/queues/api/queues/${name}/pause`);
    expect(paused.status, paused.text).toBeLessThan(300);
    expect((runQueue(await boardQueues(api)) as BoardQueue & { isPaused: boolean }).isPaused).toBe(true);
    const thread = (await call(api, 'POST', '/api/langgraph/threads', undefined, {})).json as { thread_id: string };
    const created = await call(api, 'POST', `/api/langgraph/threads/${thread.thread_id}/runs`, undefined, { assistant_id: 'echo', input: { messages: [] } });
    expect(created.status, created.text).toBe(200);
    const runId = (created.json as { run_id: string }).run_id;
    // The job waits in the paused queue, as the board counts it.
    const held = runQueue(await boardQueues(api)).counts;
    expect((held.paused ?? 0) + (held.waiting ?? 0)).toBe(1);
    const resumed = await call(api, 'PUT', `/admin/queues/api/queues/${name}/resume`);
    expect(resumed.status, resumed.text).toBeLessThan(300);
    const status = async () => ((await call(api, 'GET', `/api/langgraph/threads/${thread.thread_id}/runs/${runId}`)).json as { status: string }).status;
    await waitFor(async () => (await status()) === 'success', 'the run to finish once the queue is resumed', 120_000);
  }, 300_000);
});
