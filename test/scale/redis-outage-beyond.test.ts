// #33: a Redis outage longer than the workers' hold (16 s against a hold of 4 s), Redis killed
// (-9, AOF on) mid-answer for 20 runs on two workers. Each worker gives its runs up (dropping
// what it held back); after the outage they are taken over from their last checkpoint, and the
// stream's exactly-once holds: no run shows two writers, no turn is lost or doubled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { outageReply, runThroughOutage } from '../support/outage-runs.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { testGraphs } from '../support/stack.js';

const RUNS = 20;
const OUTAGE_MS = 16_000;

let llm: ScriptedOpenAI;
let cluster: Cluster;

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI(outageReply);
  process.env.WARREN_TEST_OPENAI_URL = llm.url;
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    workerConcurrency: RUNS / 2,
    config: { graphs: testGraphs('chat'), runtime: { outage_hold_seconds: 4 } },
  });
}, 240_000);
afterAll(async () => {
  await cluster?.stop();
  await llm?.close();
}, 60_000);

describe('a Redis outage longer than the hold (#33)', () => {
  it('takes the runs over after the outage, exactly once', async () => {
    const result = await runThroughOutage(cluster, llm, RUNS, OUTAGE_MS);
    console.log(`[redis kill -9, ${OUTAGE_MS / 1000} s, hold 4 s] ${JSON.stringify(result)}`);
    expect(result.doubled, 'runs executed twice at once').toBe(0);
    expect(result.takenOver, 'runs taken over').toBe(RUNS);
    expect(result.mostCallsForOneRun, 'model calls for one run').toBe(2);
    expect(result.brokenTexts, 'streams with a gap or a repeat in the answer').toBe(0);
  }, 400_000);
});
