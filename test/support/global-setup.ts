// One private Redis for the whole test run. Never the machine's shared 6379, never flushed.
// Order of preference: REDIS_URL_TEST; with WARREN_TEST_REDIS=cluster, a local 3-master Redis
// Cluster of redis-servers (free ports, a temp directory, torn down after); a testcontainers
// Redis when a Docker engine answers; a redis-server spawned from the project's redis.conf on a
// free port in a temp directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { spawnRedis, spawnRedisCluster } from '../../src/cli/redis-process.js';
import { sweepLeftovers } from './leftovers.js';
import { installProjectDeps, PROJECTS_WITH_DEPS } from './project-deps.js';

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

/** Removes what tests left behind (see leftovers.ts), and says so in one line if anything was. */
function sweep(dir: string): void {
  const { processes, dirs } = sweepLeftovers(path.join(dir, 'leftovers.jsonl'));
  rmSync(dir, { recursive: true, force: true });
  if (processes + dirs > 0) console.log(`[warren tests] removed what failed tests left behind: ${processes} process(es), ${dirs} folder(s)`);
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  for (const name of PROJECTS_WITH_DEPS) installProjectDeps(path.join(import.meta.dirname, '..', 'fixtures', name));
  const leftovers = mkdtempSync(path.join(tmpdir(), 'warren-test-run-'));
  project.provide('leftoversFile', path.join(leftovers, 'leftovers.jsonl'));
  const teardown = await setupRedis(project);
  return async () => {
    sweep(leftovers);
    await teardown();
  };
}

async function setupRedis(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.REDIS_URL_TEST;
  if (given) {
    project.provide('redisUrl', given);
    return async () => {};
  }
  if (process.env.WARREN_TEST_REDIS === 'cluster') {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'warren-test-redis-cluster-'));
    try {
      const cluster = await spawnRedisCluster({ dataDir, overrides: { appendonly: 'no', save: '' } });
      project.provide('redisUrl', cluster.url);
      return async () => {
        await cluster.stop();
        rmSync(dataDir, { recursive: true, force: true });
      };
    } catch (err) {
      rmSync(dataDir, { recursive: true, force: true });
      throw err;
    }
  }
  if (process.env.WARREN_TEST_REDIS !== undefined && process.env.WARREN_TEST_REDIS !== 'single') {
    throw new Error(`WARREN_TEST_REDIS=${process.env.WARREN_TEST_REDIS}: expected "single" (the default) or "cluster".`);
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
