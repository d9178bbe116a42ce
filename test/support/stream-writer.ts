// Writes a run's stream as its worker would, but without a run record or attempt: for tests of
// the readers (the hub, its page cache), which only ever read streams. On a Redis Cluster each
// entry's id is published on the run's channel, as the worker's scripts do.
import type { RedisClient } from '../../src/store/redis.js';
import { keys } from '../../src/store/keys.js';
import { appendedChannel } from '../../src/store/run-stream.js';

export function streamWriter(redis: RedisClient, threadId: string, runId: string) {
  const key = keys.runStream(threadId, runId);
  const channel = appendedChannel(redis, threadId, runId);
  const add = async (event: string, data: string) => {
    const id = (await redis.xadd(key, '*', 'event', event, 'data', data)) as string;
    if (channel !== '') await redis.spublish(channel, id);
    return id;
  };
  return {
    append: add,
    close: async () => {
      await add('end', '{}');
    },
  };
}
