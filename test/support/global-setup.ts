// One private Redis for the whole test run. Never the machine's shared 6379, never flushed.
// Order of preference: REDIS_URL_TEST; a testcontainers Redis when a Docker engine answers;
// a redis-server spawned from the project's redis.conf on a free port in a temp directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { spawnRedis } from '../../src/store/redis-process.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

async function dockerAnswers(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.REDIS_URL_TEST;
  if (given) {
    project.provide('redisUrl', given);
    return async () => {};
  }
  if (process.env.WARREN_TEST_DOCKER !== '0' && (await dockerAnswers())) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const container = await new RedisContainer('redis:7-alpine').start();
    project.provide('redisUrl', container.getConnectionUrl());
    return async () => {
      await container.stop();
    };
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'warren-test-redis-'));
  const redis = await spawnRedis({ dataDir, overrides: { appendfsync: 'no', save: '' } });
  project.provide('redisUrl', redis.url);
  return async () => {
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
