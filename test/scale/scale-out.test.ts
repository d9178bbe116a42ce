// The production topology on loopback: real nginx (deploy/nginx.conf), Redis with AOF, two API
// processes and two workers. Each scenario prints its numbers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { followRun, sseRequest } from '../support/sse-client.js';
import type { SseEvent } from '../support/sse.js';
import { GRAPHS_MODULE } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

let cluster: Cluster;
beforeAll(async () => {
  buildDist();
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    workerConcurrency: 25,
    config: { graphs: { counter: `${GRAPHS_MODULE}:counter`, echo: `${GRAPHS_MODULE}:echo` } },
  });
}, 240_000);
afterAll(async () => cluster?.stop(), 60_000);

const api = () => `${cluster.url}/api/langgraph`;
/** A distinct loopback source address per simulated client. */
const clientAddress = (i: number) => `127.0.${Math.floor(i / 200) + 1}.${(i % 200) + 10}`;

async function newThread(localIndex = 0): Promise<string> {
  const res = await sseRequestJson(`${api()}/threads`, {}, clientAddress(localIndex));
  return (res as { thread_id: string }).thread_id;
}

async function sseRequestJson(url: string, body: unknown, localAddress: string): Promise<unknown> {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', localAddress, headers: { 'content-type': 'application/json' }, agent: false },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${res.statusCode}: ${text}`))));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const counts = (events: SseEvent[]) => events.filter((e) => e.event === 'custom').map((e) => (e.data as { count: number }).count);
const countingRun = (target: number, tickMs: number) => ({
  assistant_id: 'counter',
  input: { count: 0 },
  stream_mode: ['custom'],
  on_disconnect: 'continue',
  config: { recursion_limit: 200, configurable: { target, tick_ms: tickMs } },
});

/** Every event id once, in increasing order. */
function assertExactlyOnceInOrder(events: SseEvent[]) {
  const ids = events.map((e) => e.id as string);
  expect(new Set(ids).size).toBe(ids.length);
  const sorted = [...ids].sort((a, b) => {
    const [am, as] = a.split('-').map(Number) as [number, number];
    const [bm, bs] = b.split('-').map(Number) as [number, number];
    return am - bm || as - bs;
  });
  expect(ids).toEqual(sorted);
}

describe('scale-out behind nginx', () => {
  it('50 concurrent streaming runs all complete, every event exactly once and in order', async () => {
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const threadId = await newThread(i);
        return followRun(
          { url: `${api()}/threads/${threadId}/runs/stream`, body: countingRun(10, 30), localAddress: clientAddress(i) },
          { base: `${cluster.url}/api/langgraph` },
        );
      }),
    );
    for (const { events } of results) {
      assertExactlyOnceInOrder(events);
      expect(counts(events)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(events.at(-1)?.event).toBe('end');
    }
    console.log(`[scale] 50 concurrent streamed runs through nginx: ${Date.now() - started} ms, ${results.reduce((n, r) => n + r.events.length, 0)} events`);
  });

  it('a worker killed with SIGKILL mid-run: all 20 runs complete on the other worker, resuming from checkpoints', async () => {
    const spare = await cluster.startWorker();
    const victim = cluster.workers[0];
    if (!victim) throw new Error('no worker');
    const started = Date.now();
    const runs = Array.from({ length: 20 }, async (_, i) => {
      const threadId = await newThread(100 + i);
      return followRun(
        { url: `${api()}/threads/${threadId}/runs/stream`, body: countingRun(20, 150), localAddress: clientAddress(100 + i) },
        { base: `${cluster.url}/api/langgraph` },
      );
    });
    await new Promise((r) => setTimeout(r, 1500));
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    const results = await Promise.all(runs);
    let resumed = 0;
    let repeatedSteps = 0;
    for (const { events } of results) {
      assertExactlyOnceInOrder(events);
      const seen = counts(events);
      expect(new Set(seen)).toEqual(new Set(Array.from({ length: 20 }, (_, k) => k + 1)));
      repeatedSteps += seen.length - 20;
      const attempts = events.filter((e) => e.event === 'metadata').map((e) => (e.data as { attempt: number }).attempt);
      if (attempts.includes(2)) {
        resumed += 1;
        // Resumed from its checkpoint, not from zero: count 1 is not sent twice.
        expect(seen.filter((c) => c === 1)).toHaveLength(1);
      }
      expect(events.at(-1)?.event).toBe('end');
    }
    expect(resumed).toBeGreaterThan(0);
    console.log(
      `[scale] SIGKILL of a worker during 20 runs: all completed ${Date.now() - killedAt} ms after the kill (total ${Date.now() - started} ms); ${resumed} runs resumed on another worker with attempt 2, ${repeatedSteps} in-flight steps re-executed`,
    );
    expect(spare.child.exitCode).toBeNull();
  }, 120_000);

  it('killing the API process a client streams from: the client resumes through nginx on the other replica', async () => {
    const threadId = await newThread(300);
    const served: string[] = [];
    let killed: string | undefined;
    const result = await followRun(
      { url: `${api()}/threads/${threadId}/runs/stream`, body: countingRun(20, 100), localAddress: clientAddress(300) },
      {
        base: `${cluster.url}/api/langgraph`,
        onStart: (headers) => served.push(String(headers['x-warren-instance'])),
        onEvent: (e) => {
          if (!killed && e.event === 'custom' && (e.data as { count: number }).count === 5) {
            killed = served[0];
            cluster.apis.find((a) => a.name === killed)?.child.kill('SIGKILL');
          }
        },
      },
    );
    assertExactlyOnceInOrder(result.events);
    expect(counts(result.events)).toEqual(Array.from({ length: 20 }, (_, k) => k + 1));
    expect(result.reconnects).toBeGreaterThanOrEqual(1);
    expect(served.at(-1)).not.toBe(killed);
    console.log(`[scale] API ${killed} killed mid-stream: the client resumed on ${served.at(-1)} after ${result.reconnects} reconnect(s), no gap, no duplicate`);
  }, 60_000);

  it('a rate-limited burst gets 429 {detail} beyond the limit, and stream resumes keep working', async () => {
    const threadId = await newThread(400);
    const run = await followRun(
      { url: `${api()}/threads/${threadId}/runs/stream`, body: countingRun(3, 10), localAddress: clientAddress(400) },
      { base: `${cluster.url}/api/langgraph` },
    );
    const http = await import('node:http');
    const get = (path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const u = new URL(`${cluster.url}${path}`);
        const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, localAddress: clientAddress(401), headers, agent: false }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const burst = await Promise.all(Array.from({ length: 60 }, () => get(`/api/langgraph/threads/${threadId}`)));
    const limited = burst.filter((r) => r.status === 429);
    const ok = burst.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(20);
    expect(limited.length).toBeGreaterThan(0);
    expect(JSON.parse(limited[0]?.body ?? '{}')).toHaveProperty('detail');
    const resume = await get(`/api/langgraph${run.location}`, { 'last-event-id': run.events[1]?.id as string });
    expect(resume.status).toBe(200);
    expect(resume.body).toContain('event: end');
    console.log(`[scale] burst of 60 from one address: ${ok.length} served, ${limited.length} got 429; a resume right after was served`);
  });

  it('restarting Redis while idle loses no thread, run or checkpoint, and every process reconnects', async () => {
    const threadIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const threadId = await newThread(500 + i);
      await followRun(
        { url: `${api()}/threads/${threadId}/runs/stream`, body: countingRun(3, 0), localAddress: clientAddress(500 + i) },
        { base: `${cluster.url}/api/langgraph` },
      );
      threadIds.push(threadId);
    }
    const before = await Promise.all(threadIds.map(async (t) => (await fetch(`${api()}/threads/${t}/state`)).json()));
    await cluster.restartRedis();
    await waitFor(async () => {
      const oks = await Promise.all(cluster.apis.filter((a) => a.child.exitCode === null && a.child.signalCode === null).map(async (a) => (await (await fetch(`http://127.0.0.1:${a.port}/ok`)).json()) as { redis: boolean }));
      return oks.every((o) => o.redis);
    }, 'the APIs to reconnect to Redis');
    for (const [i, t] of threadIds.entries()) {
      expect(await (await fetch(`${api()}/threads/${t}/state`)).json()).toEqual(before[i]);
      const runs = (await (await fetch(`${api()}/threads/${t}/runs`)).json()) as { runs: { status: string }[] };
      expect(runs.runs.map((r) => r.status)).toEqual(['success']);
    }
    const again = await followRun(
      { url: `${api()}/threads/${threadIds[0]}/runs/stream`, body: countingRun(2, 0), localAddress: clientAddress(510) },
      { base: `${cluster.url}/api/langgraph` },
    );
    expect(again.events.at(-1)?.event).toBe('end');
    console.log('[scale] Redis restarted while idle: 3 threads with their runs and checkpoints intact; a new run after the restart completed');
  }, 90_000);

  it('restarting Redis during runs ends every run cleanly, finished or failed, never hanging', async () => {
    const started = Date.now();
    const threadIds = await Promise.all(Array.from({ length: 10 }, (_, i) => newThread(600 + i)));
    const runs = threadIds.map((threadId, i) =>
      followRun(
        { url: `${api()}/threads/${threadId}/runs/stream`, body: countingRun(15, 100), localAddress: clientAddress(600 + i) },
        { base: `${cluster.url}/api/langgraph`, maxReconnects: 60 },
      ),
    );
    await new Promise((r) => setTimeout(r, 700));
    await cluster.restartRedis();
    const results = await Promise.all(runs);
    const outcomes: Record<string, number> = {};
    for (const [i, { events }] of results.entries()) {
      assertExactlyOnceInOrder(events);
      expect(events.at(-1)?.event).toBe('end');
      const run = (await (await fetch(`${api()}/threads/${threadIds[i]}/runs`)).json()) as { runs: { status: string }[] };
      const status = run.runs[0]?.status ?? 'missing';
      expect(['success', 'error']).toContain(status);
      if (status === 'error') expect(events.some((e) => e.event === 'error')).toBe(true);
      outcomes[status] = (outcomes[status] ?? 0) + 1;
    }
    console.log(`[scale] Redis restarted during 10 runs: ${JSON.stringify(outcomes)} after ${Date.now() - started} ms, no run left hanging`);
  }, 120_000);
});
