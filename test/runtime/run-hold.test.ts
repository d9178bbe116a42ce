// #33, the other side of a re-take: the stalled-job check moved a running run's job back to wait
// (its lock lapsed, as in an outage longer than the lock) before its worker could lock it again.
// Whichever worker fetches the job finds the run held by a live attempt and parks the job rather
// than claim the run (which would execute it again); the run goes on where it runs, finishes at
// attempt 1 with one model call, and the parked job completes once it comes back.
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { bullmqOptionsFromUrl, type RedisClient } from '../../src/store/redis.js';
import { expectOneWriterAtATime, streamedTexts } from '../support/run-invariants.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai.js';
import { collect, userInput } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { connectTestRedis } from '../support/test-redis.js';
import { waitFor } from '../support/wait-for.js';

/** About 10 s of streamed answer: the run is mid-answer when its job is moved. */
const ANSWER = `${'word '.repeat(99)}done.`;

let llm: ScriptedOpenAI;
let stack: Stack;
let redis: RedisClient;
beforeAll(async () => {
  llm = await startScriptedOpenAI(() => ({ content: ANSWER, delayMs: 100 }));
  process.env.WARREN_TEST_OPENAI_URL = llm.url;
  // The default lock (10 s): the holder's lock renewals come every 5 s, far apart from the move.
  stack = await startStack({ config: { graphs: testGraphs('chat') }, workers: 2 });
  redis = connectTestRedis(inject('redisUrl'));
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await stack?.close();
  await llm?.close();
});

describe('a run whose job the stalled check moved while its worker still runs it (#33)', () => {
  it('is not claimed again: its job is parked, the run finishes at attempt 1 with one model call', async () => {
    const queueName = stack.env.queueName;
    const connection = bullmqOptionsFromUrl(inject('redisUrl'), 'run-hold-test');
    const prefix = keys.bullPrefix(queueName, false);
    const { thread_id: threadId } = await stack.client.threads.create();
    const json = await (
      await fetch(`${stack.apiUrl}/threads/${threadId}/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ assistant_id: 'chat', input: userInput('question'), stream_mode: ['messages-tuple', 'values'] }),
      })
    ).json();
    const runId = (json as { run_id: string }).run_id;
    await waitFor(async () => (await redis.xlen(keys.runStream(threadId, runId))) >= 5, 'the run streaming');

    // BullMQ's own stalled check, on a Worker of the test's that processes nothing: with the
    // job's lock gone and the job marked by an earlier pass, it moves the job back to wait.
    const checker = new Worker(queueName, null, { connection, prefix, autorun: false, stalledInterval: 60_000 });
    const moved: string[] = [];
    checker.on('stalled', (jobId) => moved.push(jobId));
    try {
      const qualified = `${prefix}:${queueName}`;
      await redis.multi().del(keys.bullJobLock(qualified, runId)).sadd(keys.bullStalled(qualified), runId).del(keys.bullStalledCheck(qualified)).exec();
      await checker.startStalledCheckTimer();
      await waitFor(async () => moved.includes(runId), 'the stalled check to move the job');
    } finally {
      await checker.close();
    }

    await waitFor(async () => (await stack.client.runs.get(threadId, runId)).status === 'success', 'the run to finish', 60_000);
    const events = await collect(stack.client.runs.joinStream(threadId, runId, { lastEventId: '-1', streamMode: ['messages-tuple', 'values'] }));
    expect(expectOneWriterAtATime(events, 'the run'), 'attempts').toEqual([1]);
    expect([...streamedTexts(events).values()], 'the answer, streamed once whole').toEqual([ANSWER]);
    expect(llm.requests, 'model calls').toHaveLength(1);
    // The parked job comes back after the hold's length, finds the run settled, and completes.
    const queue = new Queue(queueName, { connection, prefix });
    try {
      await waitFor(async () => (await queue.getJobState(runId)) === 'completed', 'the parked job to complete', 60_000);
    } finally {
      await queue.close();
    }
  }, 120_000);
});
