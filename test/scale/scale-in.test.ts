// Workers scaled the way KEDA's HPA would scale them under deploy/kubernetes's production
// overlay: up by its scale-up policy, then down by its scale-down policy (SIGTERM, as the kubelet
// sends when a pod is removed), all under a steady load of streamed chat runs. The policies are
// read from the rendered ScaledObject and played with their periods compressed (more removals
// per run than the cluster would make: a harsher test). Every run completes exactly once, every
// removed worker hands its runs back and exits cleanly within the grace period, and no stream
// loses a chunk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOP_DEADLINE_MS } from '../../src/cli/process-lifecycle.js';
import { render, workerScalePolicies } from '../deploy/kustomize.js';
import { buildDist, startCluster, type Cluster, type ClusterProcess } from '../support/cluster.js';
import { chatRuns, expectOneWriterAtATime } from '../support/run-invariants.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import type { SseEvent } from '../support/sse.js';
import { testGraphs } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const policy = workerScalePolicies(render('overlays/production'));
/** Policy seconds per simulated millisecond: a 60 s period lasts 2 s here. */
const COMPRESSION = 30;
const periodMs = (seconds: number) => (seconds * 1000) / COMPRESSION;
/** About 2 s of streamed answer per run. */
const ANSWER = `${'word '.repeat(19)}done.`;
/** New runs per load tick, and the tick: about as many runs at once as two workers' slots. */
const LOAD = { runs: 1, everyMs: 400 };
/**
 * Workers added at the scale-up: the policy allows `up.value` per period; this machine (two
 * cores shared by the whole suite) starts two more, which the removals then take back.
 */
const ADDED = 2;
/** Waits that hold on a machine whose cores are busy with other suites. */
const LOADED_WAIT = 180_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let llm: ScriptedOpenAI;
let cluster: Cluster;
let chat: ReturnType<typeof chatRuns>;

beforeAll(async () => {
  buildDist();
  llm = await startScriptedOpenAI((_request, index) => ({ content: `Answer ${index}: ${ANSWER}`, delayMs: 100 }));
  cluster = await startCluster({
    apis: 2,
    workers: policy.min,
    workerConcurrency: 4,
    config: { graphs: testGraphs('chat') },
    // 'run started' / 'run handed back on shutdown' lines tell which worker holds which run.
    env: { LOG_LEVEL: 'info', WARREN_TEST_OPENAI_URL: llm.url },
  });
  chat = chatRuns(cluster);
}, 240_000);
afterAll(async () => {
  await cluster?.stop();
  await llm?.close();
}, 60_000);

/** Runs the worker holds now, by its log lines. */
function holding(worker: ClusterProcess): number {
  const held = new Set<string>();
  for (const line of worker.lines) {
    if (!line.startsWith('{')) continue;
    const { msg, run_id: runId } = JSON.parse(line) as { msg?: string; run_id?: string };
    if (!runId) continue;
    if (msg === 'run started') held.add(runId);
    else if (msg === 'run finished' || msg === 'run failed' || msg?.startsWith('run lost') || msg === 'run handed back on shutdown') held.delete(runId);
  }
  return held.size;
}
const handedBack = (worker: ClusterProcess) => worker.lines.filter((line) => line.includes('"run handed back on shutdown"')).length;
const started = (worker: ClusterProcess) => worker.lines.some((line) => line.includes('"worker started"'));
const alive = () => cluster.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);

/** The text each model call of the run's last attempt streamed, by message id. */
function lastAttemptText(events: SseEvent[]): string[] {
  const start = events.findLastIndex((e) => e.event === 'metadata');
  const texts = new Map<string, string>();
  for (const event of events.slice(start)) {
    if (event.event !== 'messages') continue;
    const [chunk] = event.data as [{ id?: string; content?: unknown }];
    if (chunk.id && typeof chunk.content === 'string') texts.set(chunk.id, (texts.get(chunk.id) ?? '') + chunk.content);
  }
  return [...texts.values()];
}

describe('scale-in by the configured policy, under load', () => {
  it('every run completes exactly once, removed workers hand their runs back, no stream loses a chunk', async () => {
    expect(policy.down.type).toBe('Pods');
    expect(policy.up.type).toBe('Pods');
    await waitFor(async () => cluster.workers.every(started), 'the first workers to start', LOADED_WAIT);
    const threads: string[] = [];
    const runs: string[] = [];
    let loading = true;
    const load = (async () => {
      while (loading) {
        const batch = await chat.threads(LOAD.runs);
        runs.push(...(await chat.start(batch, 'a question')));
        threads.push(...batch);
        await sleep(LOAD.everyMs);
      }
    })();

    // Scale up within one scale-up period (no more than its policy allows), once runs flow.
    await waitFor(async () => runs.length >= 4, 'the load to start');
    const peak = Math.min(policy.max, policy.min + Math.min(policy.up.value, ADDED));
    for (let i = alive().length; i < peak; i++) await cluster.startWorker();
    await sleep(periodMs(policy.up.periodSeconds));
    // Every worker is taking runs before the first one goes.
    await waitFor(async () => alive().every((w) => w.lines.some((l) => l.includes('"run started"'))), 'every worker to take runs', LOADED_WAIT);

    // Scale in: `value` workers per period back to the minimum, the busiest first.
    const removed: { worker: ClusterProcess; exit: Promise<number | null> }[] = [];
    while (alive().length > policy.min) {
      const victims = [...alive()].sort((a, b) => holding(b) - holding(a)).slice(0, Math.min(policy.down.value, alive().length - policy.min));
      for (const worker of victims) {
        const exit = new Promise<number | null>((resolve) => worker.child.once('exit', (code) => resolve(code)));
        worker.child.kill('SIGTERM');
        removed.push({ worker, exit });
      }
      await sleep(periodMs(policy.down.periodSeconds));
    }
    loading = false;
    await load;

    // Each removed worker closed on its own, within the stop deadline the grace period is built on.
    for (const { worker, exit } of removed) expect(await exit, `${worker.name} exit code`).toBe(0);
    const handed = removed.reduce((n, { worker }) => n + handedBack(worker), 0);
    expect(handed, 'runs handed back by removed workers').toBeGreaterThan(0);
    expect(removed.every(({ worker }) => !worker.lines.some((l) => l.includes(`did not stop within ${STOP_DEADLINE_MS} ms`)))).toBe(true);

    await chat.succeeded(threads, runs, 'every run', LOADED_WAIT);
    let resumed = 0;
    for (const [i, threadId] of threads.entries()) {
      const events = await chat.replay(threadId, runs[i] as string, i);
      const attempts = expectOneWriterAtATime(events, `run on ${threadId}`);
      if (attempts.length > 1) resumed += 1;
      // The attempt that finished streamed its whole answer: no chunk lost on the way.
      expect(lastAttemptText(events).map((t) => t.replace(/^Answer \d+: /, '')), `chunks of ${threadId}`).toEqual([ANSWER]);
      expect(await chat.turns(threadId, i), `turns of ${threadId}`).toEqual([`human:a question on ${threadId}`, `ai:${ANSWER}`]);
    }
    // A run handed back twice (by two removals) resumes once more each time, but shows as one run.
    expect(resumed, 'runs resumed on another worker').toBeGreaterThan(0);
    expect(resumed).toBeLessThanOrEqual(handed);
    // Finished once each, across the deployment (a hand-back is not a finish).
    const metrics = await (await fetch(`http://127.0.0.1:${cluster.apis[0]?.port}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^warren_runs_finished_total\\{status="success"\\} ${runs.length}$`, 'm'));
    console.log(
      `[scale-in] ${runs.length} runs; workers ${policy.min} → ${peak} → ${policy.min} (${policy.down.value} per ${policy.down.periodSeconds} s, compressed ${COMPRESSION}×); ${handed} runs handed back and resumed, none lost`,
    );
  }, 600_000);
});
