// The record stores on the test Redis, for the tests of one file: connected before them,
// disconnected after. Read `redis` and `stores` inside tests (they are set in beforeAll).
import { afterAll, beforeAll, inject } from 'vitest';
import type { RedisClient } from '../../src/store/redis.js';
import { createStores, type Stores } from '../../src/stores.js';
import { connectTestRedis } from './test-redis.js';

export function testStores(): { readonly redis: RedisClient; readonly stores: Stores } {
  const held = {} as { redis: RedisClient; stores: Stores };
  beforeAll(() => {
    held.redis = connectTestRedis(inject('redisUrl'));
    held.stores = createStores(held.redis);
  });
  afterAll(() => held.redis?.disconnect());
  return held;
}
