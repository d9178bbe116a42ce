// Chat runs streaming on two workers while Redis is killed (-9, AOF on) and started again after
// a gap: what each run's stream, thread and model calls show afterwards. For the outage tests of
// #33, within a worker's hold (no run executed twice) and beyond it (taken over): each states
// only its runtime settings and its assertions; the stack and the scripted model are set up here.
import { expect } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { buildDist, startCluster, type Cluster } from './cluster.js';
import { chatRuns, expectOneWriterAtATime, modelCallsPerThread, streamedTexts } from './run-invariants.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from './scripted-openai.js';
import { testGraphs } from './stack.js';
import { connectTestRedis } from './test-redis.js';
import { waitFor } from './wait-for.js';

/**
 * About 40 s of streamed answer per run (400 pieces, 100 ms apart): every run is mid-answer when
 * Redis dies and still streaming when it is back.
 */
export const OUTAGE_ANSWER = `${'word '.repeat(399)}done.`;
/** The scripted model's reply for the outage runs. */
export const outageReply = (_request: unknown, index: number) => ({ content: `Answer ${index}: ${OUTAGE_ANSWER}`, delayMs: 100 });

export interface OutageResult {
  runs: number;
  /** Runs whose stream shows more than one attempt. */
  takenOver: number;
  /** Runs whose stream breaks the one-writer invariants (expectOneWriterAtATime). */
  doubled: number;
  /** Model calls made in all, and the most made for one run. */
  modelCalls: number;
  mostCallsForOneRun: number;
  /** Streams whose text of a model call is not one whole answer (a gap or a repeat). */
  brokenTexts: number;
}

export interface OutageClusterConfig {
  /** Runs streaming when Redis dies, split evenly over the two workers' slots. */
  runs: number;
  /** The config's `runtime` section (the hold, say); the defaults when left out. */
  runtime?: Record<string, unknown>;
}

export interface OutageCluster {
  /** Starts the runs, kills Redis once every run streams, starts it after `outageMs`, and checks every run. */
  runThroughOutage(outageMs: number): Promise<OutageResult>;
  stop(): Promise<void>;
}

/** 2 APIs and 2 workers hosting the test chat graph, whose model is a scripted one answering `outageReply`. */
export async function startOutageCluster(config: OutageClusterConfig): Promise<OutageCluster> {
  buildDist();
  const llm = await startScriptedOpenAI(outageReply);
  process.env.WARREN_TEST_OPENAI_URL = llm.url;
  let cluster: Cluster;
  try {
    cluster = await startCluster({
      apis: 2,
      workers: 2,
      workerConcurrency: Math.ceil(config.runs / 2),
      config: { graphs: testGraphs('chat'), ...(config.runtime ? { runtime: config.runtime } : {}) },
    });
  } catch (err) {
    await llm.close();
    throw err;
  }
  return {
    runThroughOutage: (outageMs) => runThroughOutage(cluster, llm, config.runs, outageMs),
    stop: async () => {
      await cluster.stop();
      await llm.close();
    },
  };
}

async function runThroughOutage(cluster: Cluster, llm: ScriptedOpenAI, count: number, outageMs: number): Promise<OutageResult> {
  const chat = chatRuns(cluster);
  const threads = await chat.threads(count);
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
  const callsBefore = llm.requests.length;
  await cluster.restartRedis(outageMs, 'kill');
  await chat.succeeded(threads, runs, 'every run to finish after the outage', 240_000);

  const result: OutageResult = { runs: count, takenOver: 0, doubled: 0, modelCalls: 0, mostCallsForOneRun: 0, brokenTexts: 0 };
  const whole = new RegExp(`^Answer \\d+: ${OUTAGE_ANSWER.replace('.', '\\.')}$`);
  for (const [i, threadId] of threads.entries()) {
    const events = await chat.replay(threadId, runs[i] as string, i);
    try {
      if (expectOneWriterAtATime(events, `run on ${threadId}`).length > 1) result.takenOver += 1;
    } catch (err) {
      result.doubled += 1;
      console.log(String(err));
    }
    // The last attempt's model call streamed the whole answer once: no gap, no repeat.
    const texts = [...streamedTexts(events).values()];
    if (!whole.test(texts.at(-1) ?? '')) result.brokenTexts += 1;
    expect(await chat.turns(threadId, i), `the turn of ${threadId}, once`).toEqual([`human:question on ${threadId}`, `ai:${OUTAGE_ANSWER}`]);
  }
  const calls = modelCallsPerThread(llm.requests, threads);
  result.modelCalls = calls.reduce((a, b) => a + b, 0);
  result.mostCallsForOneRun = Math.max(...calls);
  expect(callsBefore, 'every run had called the model before the outage').toBeGreaterThanOrEqual(count);
  return result;
}
