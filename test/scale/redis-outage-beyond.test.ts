// #33: a Redis outage longer than the workers' hold (16 s against a hold of 4 s), Redis killed
// (-9, AOF on) mid-answer for 20 runs on two workers. Each worker gives its runs up (dropping
// what it held back); after the outage they are taken over from their last checkpoint, and the
// stream's exactly-once holds: no run shows two writers, no turn is lost or doubled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOutageCluster, type OutageCluster } from '../support/outage-runs.js';

const RUNS = 20;
const OUTAGE_MS = 16_000;

let outage: OutageCluster | undefined;

beforeAll(async () => {
  outage = await startOutageCluster({ runs: RUNS, runtime: { outage_hold_seconds: 4 } });
}, 240_000);
afterAll(async () => {
  await outage?.stop();
}, 60_000);

describe('a Redis outage longer than the hold (#33)', () => {
  it('takes the runs over after the outage, exactly once', async () => {
    const result = await (outage as OutageCluster).runThroughOutage(OUTAGE_MS);
    console.log(`[redis kill -9, ${OUTAGE_MS / 1000} s, hold 4 s] ${JSON.stringify(result)}`);
    expect(result.doubled, 'runs executed twice at once').toBe(0);
    expect(result.takenOver, 'runs taken over').toBe(RUNS);
    expect(result.mostCallsForOneRun, 'model calls for one run').toBe(2);
    expect(result.brokenTexts, 'streams with a gap or a repeat in the answer').toBe(0);
  }, 400_000);
});
