// A run whose event append fails mid-run (real Redis underneath, the failure injected into the
// stream writer): the graph stops at once, no checkpoint is stored past the events the stream
// holds (so a resumed run could never skip events), and the run settles as an error that says why.
import { Client } from '@langchain/langgraph-sdk';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { parseAppConfig } from '../../src/config/load-config.js';
import { createGraphRegistry } from '../../graphs/registry.js';
import { createRunQueue } from '../../src/queue/run-queue.js';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis, testBullmq } from '../support/test-redis.js';
import type { RunStreams } from '../../src/store/run-stream.js';
import { createStores } from '../../src/stores.js';
import { executeRun } from '../../workers/run-executor/executor.js';
import { GRAPHS_MODULE, startStack, testGraphs, type Stack } from '../support/stack.js';

let stack: Stack;
let redis: RedisClient;
beforeAll(async () => {
  // No worker: the test runs the executor itself, with a stream writer that fails on purpose.
  stack = await startStack({ config: { graphs: testGraphs('counter') }, workers: 0 });
  redis = connectTestRedis(inject('redisUrl'));
});
afterAll(async () => {
  redis?.disconnect();
  await stack?.close();
});

/** The real run streams, except that the writer's `failAt`-th append is refused. */
function failingStreams(streams: RunStreams, failAt: number): RunStreams {
  let appends = 0;
  return {
    ...streams,
    writer(fence) {
      const real = streams.writer(fence);
      return {
        append: async (event, data) => {
          appends += 1;
          if (appends === failAt) throw new Error('injected: Redis refused the append');
          return real.append(event, data);
        },
        sendQueued: () => real.sendQueued(),
        discard: (reason) => real.discard(reason),
      };
    },
  };
}

describe('a failed append', () => {
  it('stops the graph, stores no checkpoint past the stored events, and fails the run', async () => {
    const json = new Client({ apiUrl: stack.apiUrl, defaultHeaders: { Accept: 'application/json' } });
    const { thread_id: threadId } = await stack.client.threads.create();
    const target = 200;
    const run = await json.runs.create(threadId, 'counter', {
      input: { count: 0 },
      streamMode: ['custom'],
      onDisconnect: 'continue',
      config: { configurable: { target, tick_ms: 5 } },
    });

    const stores = createStores(redis);
    const bull = testBullmq(inject('redisUrl'));
    onTestFinished(() => bull.close());
    const dispatcher = createRunQueue(bull.connection, stack.env.queueName, pino({ level: 'silent' }));
    const appConfig = parseAppConfig({ graphs: { counter: `${GRAPHS_MODULE}:counter` } }, process.env);
    const outcome = await executeRun({ thread_id: threadId, run_id: run.run_id }, new AbortController().signal, {
      runs: stores.runs,
      threads: stores.threads,
      // Append 1 is the run's metadata; the 12th is the graph's 11th event.
      streams: failingStreams(stores.streams, 12),
      graphs: createGraphRegistry(appConfig.graphs, '/', { checkpointer: stores.checkpointer, appConfig }),
      checkpoints: {
        saverFor: (fence, forkFrom) => stores.checkpointer.forRun(fence, forkFrom),
        rollBack: (fence, checkpointId) => stores.checkpointer.rollBack(fence, checkpointId),
        deleteThread: (id) => stores.checkpointer.deleteThread(id),
      },
      dispatcher,
      settings: { maxAttempts: 3, defaultRecursionLimit: 1_000, streamRetentionSeconds: 600 },
      log: pino({ level: 'silent' }),
    });
    await dispatcher.close();
    expect(outcome).toBe('settled');

    const stored = await stores.streams.readAfter(threadId, run.run_id, '0');
    const counts = stored.filter((e) => e.event === 'custom').map((e) => (JSON.parse(e.data) as { count: number }).count);
    // The ten events before the refused one, in order, then the error and the end.
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(stored.slice(-2).map((e) => e.event)).toEqual(['error', 'end']);
    expect(JSON.parse(stored.at(-2)?.data ?? '{}')).toMatchObject({ message: 'injected: Redis refused the append' });

    expect((await stack.client.runs.get(threadId, run.run_id)).status).toBe('error');
    // Stopped at once, not run on to the target with its checkpoints dropped; and no checkpoint
    // is ahead of the stream: count 11's event was refused, so count 11 was never stored.
    const state = await stack.client.threads.getState<{ count: number }>(threadId);
    expect(state.values.count).toBeLessThanOrEqual(10);
    const history = await stack.client.threads.getHistory<{ count: number }>(threadId, { limit: 1_000 });
    expect(Math.max(...history.map((h) => h.values.count ?? 0))).toBeLessThanOrEqual(10);
    expect(history.length).toBeLessThan(target);
  });
});
