// The queue contract on the worker's side: a run record whose kwargs do not match
// RunKwargsSchema, and a run job whose data does not match RunJobSchema, each end as a clear
// failure, and the worker goes on to run the next run.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { createRunQueue, runQueueNames } from '../../src/queue/run-queue.js';
import { nowIso, type StoredRun } from '../../src/store/records.js';
import { keys } from '../../src/store/keys.js';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis, testBullmq } from '../support/test-redis.js';
import { createStores } from '../../src/stores.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

let stack: Stack;
let redis: RedisClient;
beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('counter') } });
  redis = connectTestRedis(inject('redisUrl'));
});
afterAll(async () => {
  redis?.disconnect();
  await stack?.close();
});

const counted = { input: { count: 0 }, config: { configurable: { target: 2 } } };

describe('the worker checks what crosses the queue', () => {
  it('fails a run whose stored kwargs do not match the contract with an error event, then runs the next', async () => {
    const { thread_id: threadId } = await stack.client.threads.create();
    const stores = createStores(redis);
    const now = nowIso();
    const run: StoredRun = {
      run_id: randomUUID(),
      thread_id: threadId,
      assistant_id: 'counter',
      status: 'pending',
      created_at: now,
      updated_at: now,
      metadata: {},
      // Written by some other release: a stream mode this one does not know.
      kwargs: { input: { count: 0 }, stream_mode: ['values', 'telepathy'] },
      multitask_strategy: 'enqueue',
      attempt: 0,
      cancel: null,
      temporary: false,
    };
    const created = await stores.runs.create(run, 'enqueue');
    expect(created.dispatch).toBe(true);
    const bull = testBullmq(inject('redisUrl'));
    onTestFinished(() => bull.close());
    const dispatcher = createRunQueue(bull.connection, stack.env.queueName, pino({ level: 'silent' }));
    try {
      await dispatcher.dispatch(threadId, run.run_id);
    } finally {
      await dispatcher.close();
    }
    await stack.client.runs.join(threadId, run.run_id);

    expect((await stack.client.runs.get(threadId, run.run_id)).status).toBe('error');
    const stored = await stores.streams.readAfter(threadId, run.run_id, '0');
    expect(stored.map((e) => e.event)).toEqual(['metadata', 'error', 'end']);
    const error = JSON.parse(stored[1]?.data ?? '{}') as { error: string; message: string };
    expect(error.error).toBe('InvalidRunKwargs');
    expect(error.message).toContain('/stream_mode/1');

    // The thread was handed on: its next run runs.
    const values = (await stack.client.runs.wait(threadId, 'counter', counted)) as { count: number };
    expect(values.count).toBe(2);
  });

  it('with tracing off (no collector configured), a run job carries only its ids', async () => {
    const { thread_id: threadId } = await stack.client.threads.create();
    await stack.client.runs.wait(threadId, 'counter', counted);
    // The spec's run list answers `{runs: [...]}`.
    const { runs } = (await (await fetch(`${stack.apiUrl}/threads/${threadId}/runs`)).json()) as { runs: { run_id: string }[] };
    const [run] = runs;
    if (!run) throw new Error('the run is not listed');
    const bull = testBullmq(inject('redisUrl'));
    onTestFinished(() => bull.close());
    const dispatcher = createRunQueue(bull.connection, stack.env.queueName, pino({ level: 'silent' }));
    try {
      expect((await dispatcher.queueFor(threadId).getJob(run.run_id))?.data).toEqual({ thread_id: threadId, run_id: run.run_id });
    } finally {
      await dispatcher.close();
    }
  });

  it('fails a run job whose data does not match the contract, and keeps taking jobs', async () => {
    const bull = testBullmq(inject('redisUrl'));
    onTestFinished(() => bull.close());
    // Any run queue (a Cluster has several): every worker takes from each.
    const [name] = runQueueNames(bull.connection, stack.env.queueName) as [string];
    const queue = new Queue(name, { connection: bull.connection, prefix: bull.prefix(name) });
    try {
      const job = await queue.add('run', { thread_id: 42 }, { jobId: `bad-${randomUUID()}`, attempts: 1 });
      const failed = await waitFor(async () => ((await queue.getJobState(job.id as string)) === 'failed' ? queue.getJob(job.id as string) : null), 'the bad job to fail');
      expect(failed?.failedReason).toContain('Invalid run job');
    } finally {
      await queue.close();
    }
    const { thread_id: threadId } = await stack.client.threads.create();
    const values = (await stack.client.runs.wait(threadId, 'counter', counted)) as { count: number };
    expect(values.count).toBe(2);
  });
});
