// #33: a Redis outage shorter than a worker's hold (16 s against 30 s; the lock is 10 s), Redis
// killed (-9, AOF on) mid-answer for 20 runs on two workers. Every worker keeps its runs, their
// writes waiting for Redis, and re-takes them when Redis is back: every run finishes at attempt
// 1, each model call is made once, and each stream holds the whole answer once (no gap, no
// repeat). The stalled check and the other worker may pick the jobs up meanwhile: the runs'
// holds keep them from claiming (start-run-3.lua).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOutageCluster, type OutageCluster } from '../support/outage-runs.js';

const RUNS = 20;
const OUTAGE_MS = 16_000;

let outage: OutageCluster | undefined;

// The default lock (10 s), stalled check (5 s) and hold (30 s).
beforeAll(async () => {
  outage = await startOutageCluster({ runs: RUNS });
}, 240_000);
afterAll(async () => {
  await outage?.stop();
}, 60_000);

describe('a Redis outage shorter than the hold (#33)', () => {
  it('costs no re-run: every run finishes at attempt 1, each model call made once, no gap or repeat', async () => {
    const result = await (outage as OutageCluster).runThroughOutage(OUTAGE_MS);
    console.log(`[redis kill -9, ${OUTAGE_MS / 1000} s] ${JSON.stringify(result)}`);
    expect(result.doubled, 'runs executed twice at once').toBe(0);
    expect(result.takenOver, 'runs taken over').toBe(0);
    expect(result.modelCalls, 'model calls').toBe(RUNS);
    expect(result.brokenTexts, 'streams with a gap or a repeat').toBe(0);
  }, 400_000);
});
