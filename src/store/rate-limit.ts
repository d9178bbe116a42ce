// What @fastify/rate-limit counts in: the command connection and the key prefix from keys.ts.
// The plugin's own Redis store does the counting (one INCR + PEXPIRE script on one key, so a
// Redis Cluster keeps each counter on one slot); the app registers it (src/app.ts).
import type { RedisClient } from './redis.js';
import { keys } from './keys.js';

export interface RateLimitBacking {
  /** The ioredis client the plugin's Redis store runs its script on. */
  redis: RedisClient;
  /** Prefix of every counter key. */
  nameSpace: string;
}

export const rateLimitBacking = (redis: RedisClient): RateLimitBacking => ({ redis, nameSpace: keys.rateLimitPrefix() });
