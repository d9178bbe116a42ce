// Worker fault handling in process: graceful hand-back on shutdown, and the attempt limit.
import { Client } from '@langchain/langgraph-sdk';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, inject, onTestFinished } from 'vitest';
import { keys } from '../../src/store/keys.js';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis, testBullmq } from '../support/test-redis.js';
import { collect, names } from '../support/sse.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

let stack: Stack;
let redis: RedisClient;
let jsonClient: Client;
beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('counter') } });
  redis = connectTestRedis(inject('redisUrl'));
  jsonClient = new Client({ apiUrl: stack.apiUrl, defaultHeaders: { Accept: 'application/json' } });
});
afterAll(async () => {
  redis?.disconnect();
  await stack?.close();
});

describe('worker faults', () => {
  it('a worker shutting down hands its run back at once; another worker resumes it from its checkpoint as a new attempt that the limit does not count', async () => {
    const { thread_id: id } = await stack.client.threads.create();
    const run = await jsonClient.runs.create(id, 'counter', {
      input: { count: 0 },
      streamMode: ['custom'],
      onDisconnect: 'continue',
      config: { configurable: { target: 30, tick_ms: 30 } },
    });
    await waitFor(async () => ((await stack.client.threads.getState<{ count?: number }>(id)).values.count ?? 0) >= 5, 'progress');
    const handedBackAt = Date.now();
    await stack.worker.close();
    const status = (await stack.client.runs.get(id, run.run_id)).status;
    expect(['pending', 'running']).toContain(status);
    console.log(`[faults] graceful hand-back took ${Date.now() - handedBackAt} ms`);
    await stack.addWorker();
    await stack.client.runs.join(id, run.run_id);
    expect((await stack.client.runs.get(id, run.run_id)).status).toBe('success');
    const events = await collect(stack.client.runs.joinStream(id, run.run_id, { lastEventId: '-1' }));
    const counts = events.filter((e) => e.event === 'custom').map((e) => (e.data as { count: number }).count);
    expect(new Set(counts)).toEqual(new Set(Array.from({ length: 30 }, (_, i) => i + 1)));
    expect(counts.filter((c) => c === 1)).toHaveLength(1);
    const attempts = events.filter((e) => e.event === 'metadata').map((e) => (e.data as { attempt: number }).attempt);
    expect(attempts).toEqual([1, 2]);
    // The hand-back was not counted: this run may still lose max_attempts workers.
    expect(await redis.hget(keys.run(id, run.run_id), 'handbacks')).toBe('1');
  });

  it('after the last allowed attempt a run fails with a clear error instead of running again', async () => {
    // Put a run back as if three workers had died running it, then let a worker take it again.
    const { thread_id: id2 } = await stack.client.threads.create();
    const parked = await jsonClient.runs.create(id2, 'counter', { input: { count: 0 }, config: { configurable: { target: 1 } } });
    await stack.client.runs.join(id2, parked.run_id);
    // Re-run the same job with an attempt counter already at the limit.
    await redis.hset(keys.run(id2, parked.run_id), 'status', 'running', 'attempt', '3');
    await redis.del(keys.runStream(id2, parked.run_id));
    await redis.set(keys.activeRun(id2), parked.run_id);
    const { createRunQueue } = await import('../../src/queue/run-queue.js');
    const bull = testBullmq(inject('redisUrl'));
    onTestFinished(() => bull.close());
    const queue = createRunQueue(bull.connection, stack.env.queueName, pino({ level: 'silent' }));
    await queue.queueFor(id2).remove(parked.run_id);
    await queue.dispatch(id2, parked.run_id);
    await queue.close();
    const events = await collect(stack.client.runs.joinStream(id2, parked.run_id, { lastEventId: '-1' }));
    expect(names(events)).toEqual(['error', 'end']);
    expect(events[0]?.data).toMatchObject({ error: 'RunAttemptsExhausted', message: expect.stringMatching(/after 3 attempts/) });
    expect((await stack.client.runs.get(id2, parked.run_id)).status).toBe('error');
    expect((await stack.client.threads.get(id2)).status).toBe('error');
  });
});
