// A worker paused (SIGSTOP) past its lock, as a reliability test would: another worker takes its
// runs over, the thread goes on to its next run, and then the paused worker wakes up, while that
// next run is streaming or after it ended. Redis refuses everything the woken worker tries to
// write: every stream has one `metadata` per attempt and one `end`, nothing after it, and every
// thread keeps every acknowledged turn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { buildDist, startCluster, type Cluster, type ClusterProcess } from '../support/cluster.js';
import { chatRuns, expectOneWriterAtATime } from '../support/run-invariants.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { testGraphs } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const RUNS = 20;
/** About 4 s of streamed answer per run. */
const ANSWER = `${'word '.repeat(39)}done.`;
/** Waits that hold on a machine whose cores are busy with other suites (issue 18). */
const LOADED_WAIT = 120_000;

let llm: ScriptedOpenAI;
let cluster: Cluster;
let redis: RedisClient;
let chat: ReturnType<typeof chatRuns>;

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI((_request, index) => ({ content: `Answer ${index}: ${ANSWER}`, delayMs: 100 }));
  process.env.WARREN_TEST_OPENAI_URL = llm.url;
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    // Each worker can take half of the runs (on a Redis Cluster too, where runs are sharded
    // over several queues and each shard may use all of a worker's concurrency).
    workerConcurrency: RUNS / 2,
    config: { graphs: testGraphs('chat'), runtime: { lock_seconds: 2, stalled_check_seconds: 1 } },
    // 'run started' / 'run finished' lines tell which worker holds which run.
    env: { LOG_LEVEL: 'info' },
  });
  redis = connectTestRedis(cluster.redis.url);
  chat = chatRuns(cluster);
}, 240_000);
afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
  await llm?.close();
}, 60_000);

const streamLength = (threadId: string, runId: string) => redis.xlen(keys.runStream(threadId, runId));
const streaming = async (threads: string[], runs: string[]) => Promise.all(threads.map((t, i) => streamLength(t, runs[i] as string)));
const lostRuns = (worker: ClusterProcess) => worker.lines.filter((line) => line.includes('run lost')).length;

/** How many of `runIds` the worker runs right now, by its log lines. */
function holding(worker: ClusterProcess, runIds: ReadonlySet<string>): number {
  const held = new Set<string>();
  for (const line of worker.lines) {
    if (!line.startsWith('{')) continue;
    const { msg, run_id: runId } = JSON.parse(line) as { msg?: string; run_id?: string };
    if (!runId || !runIds.has(runId)) continue;
    if (msg === 'run started') held.add(runId);
    else if (msg === 'run finished' || msg === 'run failed' || msg?.startsWith('run lost')) held.delete(runId);
  }
  return held.size;
}

async function scenario(wake: 'during the next run' | 'after the next run') {
  const threads = await chat.threads(RUNS);
  const first = await chat.start(threads, 'first question');
  // Every run is well into its answer when one worker stops answering: the one holding most.
  await waitFor(async () => (await streaming(threads, first)).every((n) => n >= 12), 'every first run streaming', LOADED_WAIT);
  const firstIds = new Set(first);
  const paused = [...cluster.workers].sort((a, b) => holding(b, firstIds) - holding(a, firstIds))[0] as ClusterProcess;
  const lostBefore = lostRuns(paused);
  // Attempts as they stand at the pause: a run a worker lost before it (a cold worker's first runs
  // can outlast a 2 s lock while it loads the graph's modules) is not the paused worker's loss.
  const attempts = () => Promise.all(threads.map((t, i) => redis.hget(keys.run(t, first[i] as string), 'attempt')));
  const atPause = await attempts();
  paused.child.kill('SIGSTOP');
  await chat.succeeded(threads, first, 'the first runs finished by the other worker');
  const afterPause = await attempts();
  const takenOver = afterPause.filter((a, i) => a !== atPause[i]).length;
  const resumed = afterPause.filter((a) => a !== '1').length;
  expect(takenOver, 'runs the paused worker held').toBeGreaterThan(0);

  const second = await chat.start(threads, 'second question');
  if (wake === 'during the next run') {
    await waitFor(async () => (await streaming(threads, second)).some((n) => n >= 12), 'a second run streaming', LOADED_WAIT);
    paused.child.kill('SIGCONT');
    await chat.succeeded(threads, second, 'the second runs');
  } else {
    await chat.succeeded(threads, second, 'the second runs');
    paused.child.kill('SIGCONT');
  }
  // The woken worker finds out at its first write or lock renewal, and drops each of its runs.
  await waitFor(async () => lostRuns(paused) - lostBefore >= takenOver, 'the woken worker to drop every run it had lost', LOADED_WAIT);

  let resumedOnWire = 0;
  for (const [i, threadId] of threads.entries()) {
    const attempts = expectOneWriterAtATime(await chat.replay(threadId, first[i] as string, i), `first run on ${threadId}`);
    if (attempts.length > 1) resumedOnWire += 1;
    expect(expectOneWriterAtATime(await chat.replay(threadId, second[i] as string, i + 1), `second run on ${threadId}`)).toEqual([1]);
    expect(await chat.turns(threadId, i), `every acknowledged turn of ${threadId}`).toEqual([
      `human:first question on ${threadId}`,
      `ai:${ANSWER}`,
      `human:second question on ${threadId}`,
      `ai:${ANSWER}`,
    ]);
    expect((await chat.client(i + 1).threads.get(threadId)).status).toBe('idle');
  }
  // Every first run that went on in a new attempt says so on the wire (one `metadata` per attempt).
  expect(resumedOnWire).toBe(resumed);
  console.log(`[paused worker, woken ${wake}] ${takenOver} of ${RUNS} runs taken over; woken worker dropped ${lostRuns(paused) - lostBefore}`);
}

/** A scenario that fails midway must not leave the worker stopped for the next one. */
async function wakingAfter(wake: Parameters<typeof scenario>[0]): Promise<void> {
  try {
    await scenario(wake);
  } finally {
    for (const worker of cluster.workers) if (worker.child.exitCode === null) worker.child.kill('SIGCONT');
  }
}

describe('a paused worker', () => {
  it('woken while the thread runs its next run: writes nothing, and every turn is kept', () => wakingAfter('during the next run'), 600_000);
  it('woken after the next run ended: writes nothing, and every turn is kept', () => wakingAfter('after the next run'), 600_000);
});
