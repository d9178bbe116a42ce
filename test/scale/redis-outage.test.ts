// A Redis outage longer than the workers' locks (20 s against 10 s), mid-answer for 20 runs on
// two workers: every run finishes once. Whatever a worker had queued while Redis was away is
// either stored before another worker takes the run over, or refused after; no stream shows
// two attempts writing, and no thread holds a turn twice or loses one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { connectTestRedis } from '../support/test-redis.js';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { chatRuns, expectOneWriterAtATime } from '../support/run-invariants.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { testGraphs } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const RUNS = 20;
const OUTAGE_MS = 20_000;
/**
 * About 40 s of streamed answer per run: a run is still streaming when the stalled check hands it
 * to another worker after the outage, which is when two workers could both be executing it.
 */
const ANSWER = `${'word '.repeat(399)}done.`;

let llm: ScriptedOpenAI;
let cluster: Cluster;
let chat: ReturnType<typeof chatRuns>;

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI((_request, index) => ({ content: `Answer ${index}: ${ANSWER}`, delayMs: 100 }));
  process.env.WARREN_TEST_OPENAI_URL = llm.url;
  // The default lock (10 s) and stalled check (5 s): the outage is twice the lock.
  cluster = await startCluster({ apis: 2, workers: 2, workerConcurrency: RUNS / 2, config: { graphs: testGraphs('chat') } });
  chat = chatRuns(cluster);
}, 240_000);
afterAll(async () => {
  await cluster?.stop();
  await llm?.close();
}, 60_000);

describe('a Redis outage longer than the lock', () => {
  it('runs every run once: no double execution, no lost or doubled turn', async () => {
    const threads = await chat.threads(RUNS);
    const runs = await chat.start(threads, 'question');
    const redis = connectTestRedis(cluster.redis.url);
    try {
      await waitFor(
        async () => (await Promise.all(threads.map((t, i) => redis.xlen(keys.runStream(t, runs[i] as string))))).every((n) => n >= 10),
        'every run streaming',
        // Twenty runs starting on two workers: generous, for a machine whose cores are busy.
        120_000,
      );
    } finally {
      redis.disconnect();
    }
    await cluster.restartRedis(OUTAGE_MS);
    await chat.succeeded(threads, runs, 'every run to finish after the outage', 180_000);

    let doubled = 0;
    let takenOver = 0;
    for (const [i, threadId] of threads.entries()) {
      const events = await chat.replay(threadId, runs[i] as string, i);
      // Two attempts writing at once would show as a lost attempt's chunks after the take-over,
      // two ends, or anything after the end.
      try {
        if (expectOneWriterAtATime(events, `run on ${threadId}`).length > 1) takenOver += 1;
      } catch (err) {
        doubled += 1;
        console.log(String(err));
      }
      expect(await chat.turns(threadId, i), `the turn of ${threadId}, once`).toEqual([`human:question on ${threadId}`, `ai:${ANSWER}`]);
    }
    console.log(`[redis outage ${OUTAGE_MS / 1000} s] ${takenOver} of ${RUNS} runs taken over, ${doubled} executed twice`);
    expect(doubled, 'runs executed twice').toBe(0);
  }, 300_000);
});
