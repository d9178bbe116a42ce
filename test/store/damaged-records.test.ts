// A stored record whose JSON does not parse reads as its default, as before, and the stores say
// so: one warning per key, naming it, on the logger the stores were built with.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { createStores, PLAIN_STORE, type Stores } from '../../src/stores.js';

let redis: RedisClient;
let stores: Stores;
const warnings: Array<{ key: string; message: string }> = [];
// pino's `warn` is overloaded; the stores call it as (fields, message) only.
const log = { warn: (fields: { key: string }, message: string) => warnings.push({ key: fields.key, message }) } as unknown as Pick<Logger, 'warn'>;

beforeAll(() => {
  redis = connectTestRedis(inject('redisUrl'));
  stores = createStores(redis, PLAIN_STORE, log);
});
afterAll(() => redis?.disconnect());

describe('damaged records', () => {
  it('read a thread with damaged metadata as its default, and warn once for that key', async () => {
    const threadId = randomUUID();
    await stores.threads.create({ threadId, metadata: { a: 1 }, ifExists: 'raise', owner: 'damaged-records-test' });
    await redis.hset(keys.thread(threadId), 'metadata', '{not json');
    try {
      expect((await stores.threads.require(threadId)).metadata).toEqual({});
      expect((await stores.threads.require(threadId)).metadata).toEqual({});
      const mine = warnings.filter((w) => w.key === `${keys.thread(threadId)}#metadata`);
      expect(mine).toHaveLength(1);
      expect(mine[0]?.message).toMatch(/not JSON/);
    } finally {
      await stores.threads.remove(threadId);
    }
  });

  it('leaves a damaged assistant out of a listing, naming its key', async () => {
    const assistantId = randomUUID();
    await redis.hset(keys.assistant(assistantId), 'record', '[oops', 'max_version', '1');
    try {
      expect(await stores.assistants.get(assistantId)).toBeNull();
      expect(warnings.some((w) => w.key === `${keys.assistant(assistantId)}#record`)).toBe(true);
    } finally {
      await redis.del(keys.assistant(assistantId));
    }
  });
});
