// Per-user rate limits (issue 19) on two API processes from dist/ sharing the test Redis: one
// user's requests are counted together whichever replica serves them, the one past the limit
// gets 429 {detail} with Retry-After, other users keep their own count, and the liveness probes
// are never counted.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { keys } from '../../src/store/keys.js';
import { buildDist, startApiReplicas, type ApiReplicas } from '../support/cluster.js';
import type { RedisClient } from '../../src/store/redis.js';
import { connectTestRedis } from '../support/test-redis.js';
import { trackedDir } from '../support/leftovers.js';

const MAX = 6;
// Users of this run only: the test Redis outlives the run, and so would a counter of a fixed name.
const ALICE = `alice-${randomUUID()}`;
const BOB = `bob-${randomUUID()}`;
const ALICE_KEY = `alice-key-${randomUUID()}`;
const BOB_KEY = `bob-key-${randomUUID()}`;

let home: string;
let replicas: ApiReplicas;
let redis: RedisClient;
beforeAll(async () => {
  buildDist();
  home = trackedDir(mkdtempSync(path.join(tmpdir(), 'warren-rate-limits-')));
  const configFile = path.join(home, 'config.yaml');
  writeFileSync(
    configFile,
    stringify({
      auth: { api_keys: [{ key: ALICE_KEY, user: ALICE }, { key: BOB_KEY, user: BOB }] },
      // A window far longer than the test: the count cannot lapse halfway.
      rate_limits: { enabled: true, max: MAX, time_window_seconds: 3600 },
    }),
  );
  redis = connectTestRedis(inject('redisUrl'));
  replicas = await startApiReplicas({ apis: 2, redisUrl: inject('redisUrl'), home, configFile });
}, 120_000);
afterAll(async () => {
  await replicas?.stop();
  if (redis) {
    await redis.del(`${keys.rateLimitPrefix()}user:${ALICE}`, `${keys.rateLimitPrefix()}user:${BOB}`).catch(() => undefined);
    redis.disconnect();
  }
  if (home) rmSync(home, { recursive: true, force: true });
});

/** Request `i` goes to one replica, the next to the other. */
const get = (i: number, key: string, url = '/api/models') => fetch(`${replicas.urls[i % 2]}${url}`, { headers: { 'x-api-key': key } });

describe('rate limits per user, counted in Redis', () => {
  it("counts a user's requests across both replicas, and answers the one past the limit with 429 {detail} and Retry-After", async () => {
    for (let i = 0; i < MAX; i++) {
      const res = await get(i, ALICE_KEY);
      expect(res.status, `request ${i + 1}`).toBe(200);
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(MAX - i - 1);
    }
    for (const i of [0, 1]) {
      const refused = await get(i, ALICE_KEY);
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3600).toBe(true);
      const body = (await refused.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['detail']);
      expect(body.detail).toMatch(/^Too many requests: at most 6 per 3600 s/);
    }
    // The count lives under the prefix keys.ts names, by user.
    expect(Number(await redis.get(`${keys.rateLimitPrefix()}user:${ALICE}`))).toBe(MAX + 2);
  });

  it('keeps a count for each user', async () => {
    const res = await get(1, BOB_KEY);
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(MAX - 1);
  });

  it('never counts the liveness probe, and still refuses a request without a key with 401', async () => {
    for (let i = 0; i < MAX * 2; i++) {
      const res = await fetch(`${replicas.urls[i % 2]}/ok`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect((await fetch(`${replicas.urls[0]}/api/models`)).status).toBe(401);
  });
});
