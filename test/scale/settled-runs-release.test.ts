// #33 (flat memory): what a process holds for a run is gone once the run has settled. Heap
// snapshots over a soak found nothing retained per run; this keeps it so. On 2 APIs and 2 workers,
// runs streamed by their caller, runs joined from the other API, runs whose client leaves at the
// first event and runs cancelled mid-answer; once every run has settled and every client has
// gone, each API's stream hub follows no run, holds no subscriber and caches no page, no SSE
// connection is open, and no worker counts a run as executing. A holder that missed its release
// shows here after a few dozen runs, long before a soak's memory chart would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/cli/redis-process.js';
import { buildDist, startCluster, type Cluster } from '../support/cluster.js';
import { chatRuns } from '../support/run-invariants.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { collect, userInput } from '../support/sse.js';
import { testGraphs } from '../support/stack.js';
import { waitFor, waitForMetric } from '../support/wait-for.js';

const EACH = 6;

let llm: ScriptedOpenAI;
let cluster: Cluster;
const metricsPorts: number[] = [];

beforeAll(async () => {
  buildDist();
  // Twenty words, 20 ms apart: long enough to leave or cancel a run mid-answer.
  llm = await startScriptedOpenAI(() => ({ content: `${'word '.repeat(19)}done.`, delayMs: 20 }));
  process.env.WARREN_TEST_OPENAI_URL = llm.url;
  metricsPorts.push(await freePort(), await freePort());
  cluster = await startCluster({
    apis: 2,
    workers: 2,
    config: { graphs: testGraphs('chat') },
    workerEnv: (i) => ({ WARREN_WORKER_METRICS_PORT: String(metricsPorts[i]) }),
  });
}, 240_000);
afterAll(async () => {
  await cluster?.stop();
  await llm?.close();
}, 60_000);

describe('a settled run leaves nothing behind in the processes (#33)', () => {
  it('empties every API stream hub, SSE connection and worker run count after streamed, joined, left and cancelled runs', async () => {
    const chat = chatRuns(cluster);
    const streamed = await chat.threads(EACH);
    const joined = await chat.threads(EACH);
    const left = await chat.threads(EACH);
    const cancelled = await chat.threads(EACH);

    const streamOne = (threadId: string, i: number, signal?: AbortSignal) =>
      chat.client(i).runs.stream(threadId, 'chat', { input: userInput(`question on ${threadId}`), streamMode: ['messages-tuple', 'values'], onDisconnect: 'continue', signal });
    const leaveEarly = async (threadId: string, i: number) => {
      const abort = new AbortController();
      try {
        for await (const _ of streamOne(threadId, i, abort.signal)) abort.abort();
      } catch (err) {
        if (!abort.signal.aborted) throw err;
      }
    };
    const joinedRuns = await chat.start(joined, 'question');
    const cancelledRuns = await chat.start(cancelled, 'question');
    await Promise.all([
      ...streamed.map((t, i) => collect(streamOne(t, i))),
      // Started through API i, read through the other one from the first event.
      ...joined.map((t, i) => collect(chat.client(i + 1).runs.joinStream(t, joinedRuns[i] as string, { lastEventId: '-1' }))),
      ...left.map((t, i) => leaveEarly(t, i)),
      ...cancelled.map((t, i) => chat.client(i + 1).runs.cancel(t, cancelledRuns[i] as string)),
    ]);

    // A thread is busy until its run has settled (then idle, or error for a run that failed).
    const all = [...streamed, ...joined, ...left, ...cancelled];
    let statuses: string[] = [];
    await waitFor(
      async () => {
        statuses = await Promise.all(all.map(async (t, i) => (await chat.client(i).threads.get(t)).status));
        return statuses.every((status) => status !== 'busy');
      },
      'every run to settle',
      120_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; thread statuses: ${statuses.join(', ')}`);
    });
    expect(llm.requests.length, 'the model was asked at least once per run that started').toBeGreaterThan(0);

    for (const api of cluster.apis) {
      const url = `http://127.0.0.1:${api.port}`;
      await waitForMetric(url, 'warren_stream_hub_runs', 0);
      await waitForMetric(url, 'warren_stream_hub_subscribers', 0);
      await waitForMetric(url, 'warren_stream_hub_cache_bytes', 0);
      await waitForMetric(url, 'warren_open_connections{transport="sse"}', 0);
    }
    for (const port of metricsPorts) await waitForMetric(`http://127.0.0.1:${port}`, 'warren_worker_runs_executing', 0);
  }, 300_000);
});
