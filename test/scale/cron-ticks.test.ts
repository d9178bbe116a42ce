// Exactly one run per cron tick, in the production topology: 2 API processes behind nginx and
// 3 workers, a cron firing every second, one worker SIGKILLed in the middle and the cron's
// scheduler upserted twice at once from both replicas. Every tick between the first and the
// last observed must have made exactly one run, whose id is derived from the tick.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tickRunId } from '../../src/admission/tick-ids.js';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { userInput } from '../support/sse.js';
import { testGraphs } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

interface ListedRun {
  run_id: string;
  metadata: { cron_id?: string; cron_tick?: string };
}

let cluster: Cluster;
beforeAll(async () => {
  buildDist();
  cluster = await startCluster({
    apis: 2,
    workers: 3,
    workerConcurrency: 4,
    // A killed worker's tick is taken over once its lock lapses.
    config: { graphs: testGraphs('echo'), runtime: { lock_seconds: 2, stalled_check_seconds: 1 } },
  });
}, 240_000);
afterAll(async () => cluster?.stop(), 60_000);

const replica = (i: number) => `http://127.0.0.1:${cluster.apis[i]?.port}/api/langgraph`;
async function call<T>(base: string, path: string, body: unknown, method = 'POST'): Promise<T> {
  const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Tick times (ms) of the cron's runs on the thread, with their run ids. */
async function cronRuns(threadId: string, cronId: string): Promise<Array<{ tick: number; runId: string }>> {
  const { runs } = await call<{ runs: ListedRun[] }>(replica(0), `/threads/${threadId}/runs?limit=1000`, undefined, 'GET');
  return runs.filter((r) => r.metadata.cron_id === cronId).map((r) => ({ tick: Date.parse(r.metadata.cron_tick ?? ''), runId: r.run_id }));
}

const gapsIn = (ticks: number[]) => ticks.slice(1).filter((t, i) => t - (ticks[i] as number) !== 1000).length;

describe('cron ticks across replicas and workers', () => {
  it('makes exactly one run per tick through a worker kill and concurrent scheduler upserts', async () => {
    const { thread_id: threadId } = await call<{ thread_id: string }>(replica(0), '/threads', {});
    const cron = await call<{ cron_id: string }>(replica(0), `/threads/${threadId}/runs/crons`, {
      assistant_id: 'echo',
      schedule: '* * * * * *',
      input: userInput('tick'),
    });
    await waitFor(async () => (await cronRuns(threadId, cron.cron_id)).length >= 4, '4 ticks before the kill', 60_000);

    const victim = cluster.workers[1];
    victim?.child.kill('SIGKILL');
    const runsAtKill = (await cronRuns(threadId, cron.cron_id)).length;
    // Two schedulers at once: both replicas PATCH the cron (each re-upserts its job scheduler).
    await Promise.all([0, 1, 0, 1].map((i, n) => call(replica(i), `/runs/crons/${cron.cron_id}`, { metadata: { patched_by: `api-${i}-${n}` } }, 'PATCH')));
    await waitFor(async () => (await cronRuns(threadId, cron.cron_id)).length >= runsAtKill + 10, '10 ticks after the kill', 90_000);

    // Every tick so far has its run: a tick the killed worker held is retried once its lock
    // lapses. Checked while the cron is still on: a tick taken after it is switched off starts
    // nothing (by design), so the range is closed before, not after, the switch.
    const settled = await waitFor(async () => {
      const found = await cronRuns(threadId, cron.cron_id);
      const ticks = [...new Set(found.map((r) => r.tick))].sort((a, b) => a - b);
      return gapsIn(ticks) === 0 && found;
    }, 'every tick between the first and the last to have its run', 60_000).catch(async (err: unknown) => {
      const ticks = [...new Set((await cronRuns(threadId, cron.cron_id)).map((r) => r.tick))].sort((a, b) => a - b);
      const missing = ticks.slice(1).flatMap((t, i) => (t - (ticks[i] as number) === 1000 ? [] : [`${new Date(ticks[i] as number).toISOString()} -> ${new Date(t).toISOString()}`]));
      throw new Error(`${String(err)}; gaps: ${missing.join(', ')}`);
    });
    await call(replica(1), `/runs/crons/${cron.cron_id}`, { enabled: false }, 'PATCH');
    // No tick of the settled range gained a second run since (late or repeated ticks included).
    const closedAt = Math.max(...settled.map((r) => r.tick));
    const runs = (await cronRuns(threadId, cron.cron_id)).filter((r) => r.tick <= closedAt);

    const ticks = runs.map((r) => r.tick).sort((a, b) => a - b);
    const distinct = new Set(ticks);
    const first = ticks[0] as number;
    const last = ticks.at(-1) as number;
    const expected = (last - first) / 1000 + 1;
    console.log(
      `cron ticks: ${distinct.size} ticks observed (${new Date(first).toISOString()} .. ${new Date(last).toISOString()}, ${expected} expected), ` +
        `${runs.length} runs, ${runs.length - distinct.size} doubled, ${expected - distinct.size} missing; ${runsAtKill} runs before the SIGKILL of worker-1`,
    );
    expect(runs.length).toBe(distinct.size);
    expect(distinct.size).toBe(expected);
    expect(gapsIn([...distinct])).toBe(0);
    for (const run of runs) expect(run.runId).toBe(tickRunId(cron.cron_id, run.tick));
    await call(replica(0), `/runs/crons/${cron.cron_id}`, undefined, 'DELETE').catch(() => undefined);
  }, 300_000);
});
