// The history feed's run attribution reads each run's `messages_before` instead of a checkpoint
// per run per request: the first request that needs it counts it at the run's starting checkpoint
// and keeps it on the run's record; a count removed is counted again, with the same answer.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import type { RedisClient } from '../../src/store/redis.js';
import { createStores } from '../../src/stores.js';
import { startStack, testGraphs, type Stack } from '../support/stack.js';
import { connectTestRedis } from '../support/test-redis.js';

let stack: Stack;
let redis: RedisClient;

beforeAll(async () => {
  stack = await startStack({ config: { graphs: testGraphs('echo') } });
  redis = connectTestRedis(inject('redisUrl'));
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await stack?.close();
});

interface Row {
  run_id: string | null;
  seq: number;
}
const feed = async (threadId: string): Promise<Row[]> => {
  const res = await fetch(`${stack.url}/api/threads/${threadId}/messages`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Row[]).map(({ run_id, seq }) => ({ run_id, seq }));
};

describe('messages_before on run records', () => {
  it('is the message count where each run began, and an old record without it is attributed the same', async () => {
    const { thread_id: threadId } = await stack.client.threads.create();
    for (const text of ['one', 'two', 'three']) await stack.client.runs.wait(threadId, 'echo', { input: { messages: [{ type: 'human', content: text }] } });
    // Newest first.
    type RunList = { run_id: string }[];
    const listed = (await (await fetch(`${stack.apiUrl}/threads/${threadId}/runs`)).json()) as RunList | { runs: RunList };
    const runIds = (Array.isArray(listed) ? listed : listed.runs).map((run) => run.run_id).toReversed();
    const stores = createStores(redis);
    const counts = async () => Promise.all(runIds.map(async (id) => (await stores.runs.get(threadId, id))?.messages_before));
    // The workers count nothing: a run's start reads no checkpoint for it.
    expect(await counts()).toEqual([undefined, undefined, undefined]);
    const expected = runIds.flatMap((id, i) => [{ run_id: id, seq: 2 * i + 1 }, { run_id: id, seq: 2 * i + 2 }]);
    expect(await feed(threadId)).toEqual(expected);
    expect(await counts()).toEqual([0, 2, 4]);

    // Counted again when removed.
    for (const id of runIds) await redis.hdel(keys.run(threadId, id), 'messages_before');
    expect((await stores.runs.get(threadId, runIds[1] as string))?.messages_before).toBeUndefined();
    expect(await feed(threadId)).toEqual(expected);
  });
});
