// A worker's concurrency on a Redis Cluster (#22), where runs are spread over shard queues by
// thread: one worker process from dist/ with WARREN_WORKER_CONCURRENCY=2 on a 3-master cluster.
// Runs of one shard use both of its slots (a static share per shard let one run at once), and
// runs over every shard never exceed the two (a share of at least one per shard let six), each
// run once. The scripted model holds every run in its model call until the test lets it go, so
// "at once" is what the worker is doing, never a matter of timing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQueueNames, runQueueOf } from '../../src/queue/run-queue.js';
import { keys } from '../../src/store/keys.js';
import type { RedisClient } from '../../src/store/redis.js';
import { buildDist, startCluster, type Cluster, type ClusterProcess } from '../support/cluster.js';
import { chatRuns } from '../support/run-invariants.js';
import { startScriptedOpenAI, type ChatRequest, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { testGraphs } from '../support/stack.js';
import { connectTestRedis } from '../support/test-redis.js';
import { waitFor } from '../support/wait-for.js';

const CONCURRENCY = 2;
/** Waits that hold on a machine whose cores are busy with other suites (issue 18). */
const LOADED_WAIT = 120_000;

let llm: ScriptedOpenAI;
let cluster: Cluster;
let redis: RedisClient;
let chat: ReturnType<typeof chatRuns>;
/** Model calls held open, oldest first: letting one go lets its run finish. */
const held: (() => void)[] = [];

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI(() => ({ content: 'Held answer.', hold: new Promise<void>((resolve) => held.push(resolve)) }));
  process.env.WARREN_TEST_OPENAI_URL = llm.url;
  cluster = await startCluster({
    apis: 1,
    workers: 1,
    workerConcurrency: CONCURRENCY,
    redis: 'cluster',
    config: { graphs: testGraphs('chat') },
    // 'run started' / 'run finished' lines tell what the worker runs at once.
    env: { LOG_LEVEL: 'info' },
  });
  redis = connectTestRedis(cluster.redis.url);
  chat = chatRuns(cluster);
}, 240_000);
afterAll(async () => {
  for (const release of held.splice(0)) release();
  redis?.disconnect();
  await cluster?.stop();
  await llm?.close();
}, 60_000);

const worker = () => cluster.workers[0] as ClusterProcess;

/** New threads whose runs go to the given shards (indexes into the run queues), one per entry. */
async function threadsOnShards(shards: number[]): Promise<string[]> {
  const names = runQueueNames(redis, 'runs');
  const threads: string[] = [];
  for (const shard of shards) {
    let id: string;
    do id = randomUUID();
    while (runQueueOf(names, id) !== names[shard]);
    await chat.client(0).threads.create({ threadId: id });
    threads.push(id);
  }
  return threads;
}

/** The most of `runIds` the worker ran at once, by its log lines. */
function mostAtOnce(runIds: readonly string[]): number {
  const ours = new Set(runIds);
  const running = new Set<string>();
  let most = 0;
  for (const line of worker().lines) {
    if (!line.startsWith('{')) continue;
    const { msg, run_id: runId } = JSON.parse(line) as { msg?: string; run_id?: string };
    if (!runId || !ours.has(runId)) continue;
    if (msg === 'run started') running.add(runId);
    else if (msg === 'run finished' || msg === 'run failed' || msg?.startsWith('run lost')) running.delete(runId);
    most = Math.max(most, running.size);
  }
  return most;
}

const asks = (request: ChatRequest, threadId: string) => request.messages.some((m) => typeof m.content === 'string' && m.content.endsWith(` on ${threadId}`));

/** Every run succeeded on its first attempt, with one model call and one answer each. */
async function expectEachRunOnce(threads: string[], runs: string[]): Promise<void> {
  for (const [i, threadId] of threads.entries()) {
    expect(await redis.hget(keys.run(threadId, runs[i] as string), 'attempt'), `attempts of the run on ${threadId}`).toBe('1');
    expect(llm.requests.filter((r) => asks(r, threadId)), `model calls for ${threadId}`).toHaveLength(1);
    expect(await chat.turns(threadId, i)).toEqual([`human:question on ${threadId}`, 'ai:Held answer.']);
  }
  expect(worker().lines.filter((line) => line.includes('run lost'))).toEqual([]);
}

describe('a worker with concurrency 2 on a Redis Cluster', () => {
  it('#22: runs two runs of one shard at once (its share of the shards let one)', async () => {
    const threads = await threadsOnShards([3, 3, 3, 3]);
    const runs = await chat.start(threads, 'question');
    await waitFor(async () => held.length === CONCURRENCY, 'two runs of one shard in their model calls at once', LOADED_WAIT);
    // Both slots are taken: the other two wait.
    const statuses = await Promise.all(threads.map(async (t, i) => (await chat.client(0).runs.get(t, runs[i] as string)).status));
    expect(statuses.filter((s) => s === 'pending')).toHaveLength(threads.length - CONCURRENCY);

    // Freed slots go to the shard's next runs.
    await waitFor(
      async () => {
        for (const release of held.splice(0)) release();
        const done = await Promise.all(threads.map(async (t, i) => (await chat.client(0).runs.get(t, runs[i] as string)).status));
        return done.every((s) => s === 'success');
      },
      'every run of the shard to finish',
      LOADED_WAIT,
    );
    expect(mostAtOnce(runs)).toBe(CONCURRENCY);
    await expectEachRunOnce(threads, runs);
  }, 300_000);

  it('#22: runs over every shard never run more than two at once, and each runs once', async () => {
    const threads = await threadsOnShards([0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]);
    const runs = await chat.start(threads, 'question');
    // Each time the worker has both slots busy, one run is let go: the freed slot goes to a run
    // of whichever shard gets there first, the rest of the fetches handed back.
    for (let finished = 0; finished < runs.length; finished++) {
      const busy = Math.min(CONCURRENCY, runs.length - finished);
      await waitFor(async () => held.length >= busy, `${busy} runs in their model calls (${finished} finished)`, LOADED_WAIT);
      expect(held.length, 'runs in their model calls at once').toBeLessThanOrEqual(CONCURRENCY);
      held.shift()?.();
    }
    await chat.succeeded(threads, runs, 'every run', LOADED_WAIT);
    expect(mostAtOnce(runs)).toBe(CONCURRENCY);
    await expectEachRunOnce(threads, runs);
  }, 300_000);
});
