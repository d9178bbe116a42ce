// Writes a run's stream as its worker would, but without a run record or attempt: for tests of
// the readers (the hub, its page cache), which only ever read streams.
import type { RedisClient } from '../../src/store/redis.js';
import { keys } from '../../src/store/keys.js';

export function streamWriter(redis: RedisClient, threadId: string, runId: string) {
  const key = keys.runStream(threadId, runId);
  return {
    append: async (event: string, data: string) => (await redis.xadd(key, '*', 'event', event, 'data', data)) as string,
    close: async () => {
      await redis.xadd(key, '*', 'event', 'end', 'data', '{}');
    },
  };
}
